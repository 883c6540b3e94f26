#include "sim/ps/recovery/strategy.hpp"

#include <fmt/core.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(strategy, failsim,
                                "restarts and roll-backs of the recovery strategies");

namespace failsim::sim {

ParameterServer* Strategy::server_on(simgrid::s4u::Host* host) {
  for (auto& s : servers_) {
    if (s->alive() && s->host() == host) return s.get();
  }
  return nullptr;
}

void Strategy::run_server(ParameterServer& server) { server.serve_workers(); }

std::int64_t Strategy::pending_at_end() {
  std::int64_t pending = 0;
  for (const auto& s : servers_) {
    if (s->alive()) pending += s->unapplied();
  }
  return pending;
}

void Strategy::membership_changed() {
  ParameterServer* server = primary();
  if (server == nullptr) return;
  server->inbox().put_detached(Inbox::OTHER, new ServerMessage{MembershipChanged{}},
                               static_cast<std::uint64_t>(CONTROL_BYTES),
                               [](void* p) { delete static_cast<ServerMessage*>(p); });
}

void Strategy::restart_later(ParameterServer& dead, double host_back,
                             std::function<nlohmann::json()> details,
                             std::function<void(simgrid::s4u::Host*)> start,
                             simgrid::s4u::Host* elsewhere) {
  namespace sg4 = simgrid::s4u;
  sg4::Host* host = elsewhere != nullptr ? elsewhere : dead.host();
  const double ready =
      std::max(sg4::Engine::get_clock() + context_.scenario.failures.restart_delay, host_back);
  if (std::isinf(ready)) {
    context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLACEMENT, dead.name(),
                            {{"reason", "host down for good"}});
    FAILSIM_INFO("no replacement for {}: its host is down for good", dead.name());
    return;
  }
  sg4::Actor::create("restarter", context_.roles.coordinator, [this, host, ready, details, start] {
    sg4::this_actor::sleep_until(ready);
    if (!context_.repairs.wait_until_up(host)) return;  // it failed again, for good
    if (retired_) return;                               // a resize replaced the whole generation
    nlohmann::json d = details();
    d["host"] = host->get_name();
    context_.recorder.event(sg4::Engine::get_clock(), EventType::RESTART,
                            shard_.server_name(servers_.size()), d);
    FAILSIM_INFO("restarting {} on {}", shard_.server_name(servers_.size()), host->get_name());
    start(host);
  });
}

ParameterServer* Strategy::start_server(simgrid::s4u::Host* host, ServerState state) {
  servers_.push_back(std::make_unique<ParameterServer>(context_, *this, std::move(state),
                                                       static_cast<int>(servers_.size()), host));
  servers_.back()->launch();
  return servers_.back().get();
}

void Strategy::remember_lost(const ParameterServer& dead) {
  lost_version_ = dead.version();
  lost_gradients_ = dead.gradients();
}

std::int64_t Strategy::roll_back_to(const Snapshot& restored) {
  const std::int64_t lost = std::max<std::int64_t>(0, lost_version_ - restored.version);
  context_.recorder.rolled_back(lost,
                                std::max<std::int64_t>(0, lost_gradients_ - restored.gradients));
  FAILSIM_INFO("{}resumes at version {} ({} updates lost)",
               shard_.count > 1 ? fmt::format("shard {} ", shard_.index) : "", restored.version,
               lost);
  return lost;
}

}  // namespace failsim::sim
