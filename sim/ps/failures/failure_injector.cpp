#include "sim/ps/failures/failure_injector.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "models/rng.hpp"
#include "result_format/process_name.hpp"
#include "sim/engine/log.hpp"
#include "sim/engine/never.hpp"
#include "sim/ps/actors/parameter_server.hpp"
#include "sim/ps/actors/worker.hpp"
#include "sim/ps/branching.hpp"
#include "sim/ps/recovery/replica_holder.hpp"
#include "sim/ps/recovery/strategy.hpp"
#include "sim/scenario/distribution.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(failure_injector, failsim, "failure injection and detection");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Strategy& FailureInjector::strategy(int shard) const {
  return *context_.strategies[static_cast<std::size_t>(shard)];
}

FailureInjector::FailureInjector(RunContext& context, HostEvents& hosts)
    : context_(context),
      hosts_(hosts),
      mutex_(sg4::Mutex::create()),
      host_up_(sg4::ConditionVariable::create()) {}

void FailureInjector::launch() {
  const FailureConfig& f = context_.scenario.failures;
  // Timed failures: those of every scenario this simulation stands for (branching.hpp); when
  // one is due, the family splits between those that have it and those that do not.
  const auto& timed = context_.branching.timed_failures();
  for (std::size_t k = 0; k < timed.size(); ++k) {
    const FailureEvent event = timed[k].event;
    sg4::Actor::create(fmt::format("failure-{}", k), context_.roles.coordinator, [this, event, k] {
      sg4::this_actor::sleep_until(*event.at_time);
      const std::optional<std::size_t> i = context_.branching.arrive(k);
      if (context_.branching.forked()) context_.on_evaluation = nullptr;  // one progress line
      if (i) fire(event, *i);
    });
  }
  // Stochastic failures: one actor per failing host, with its own random stream.
  std::uint64_t stream = 0;
  for (const StochasticFailures& s : f.stochastic) {
    std::vector<sg4::Host*> hosts;
    if (s.target == FailureTarget::WORKER) hosts = context_.roles.workers;
    if (s.target == FailureTarget::SERVER) hosts = context_.roles.servers;
    for (sg4::Host* host : hosts) {
      const std::uint64_t seed =
          models::derive_seed(models::derive_seed(context_.scenario.seed, SEED_FAILURES), stream++);
      sg4::Actor::create("stochastic-failures", context_.roles.coordinator, [this, s, host, seed] {
        models::Rng rng(seed);
        while (true) {
          sg4::this_actor::sleep_for(draw(s.lifetime, rng));
          const double repair = draw(s.repair, rng);
          fail_host(host, repair, "stochastic");
          sg4::this_actor::sleep_for(repair);
        }
      });
    }
  }
}

void FailureInjector::after_update(int shard, std::int64_t n) {
  const auto& events = context_.scenario.failures.events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].at_update && *events[i].at_update == n && events[i].shard == shard) {
      const FailureEvent event = events[i];
      sg4::Actor::create(fmt::format("failure-{}", i), context_.roles.coordinator,
                         [this, event, i] { fire(event, i); });
    }
  }
}

bool FailureInjector::wait_until_up(sg4::Host* host) {
  const std::unique_lock lock(*mutex_);
  while (!host->is_on()) {
    const auto it = down_.find(host);
    if (it == down_.end() || std::isinf(it->second.until)) {
      context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLACEMENT, host->get_name(),
                              {{"reason", "host down for good"}});
      return false;
    }
    host_up_->wait(lock);  // the repair notifies (possibly at this very instant)
  }
  return true;
}

void FailureInjector::finish(double end) {
  for (const auto& [host, outage] : down_)
    context_.recorder.down(host->get_name(), end - outage.since, outage.since, end);
}

void FailureInjector::record_not_injected(const std::vector<FailureEvent>& events, double end) {
  // Matched by value, not by index: a branch member's list is not the run's (sim/ps/branching.hpp).
  std::vector<FailureEvent> due = due_;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto it = std::find(due.begin(), due.end(), events[i]);
    if (it != due.end()) {
      due.erase(it);
      continue;
    }
    const FailureEvent& e = events[i];
    nlohmann::json details{{"event", i}, {"reason", "the run stopped first"}};
    if (e.at_time) details["at"] = *e.at_time;
    if (e.at_update) details["at_update"] = *e.at_update;
    FAILSIM_INFO("failure event {} not injected: the run stopped first", i);
    context_.recorder.event(end, EventType::FAILURE_NOT_INJECTED, to_string(e.target), details);
  }
}

sg4::Host* FailureInjector::target_host(const FailureEvent& event) const {
  switch (event.target) {
    case FailureTarget::SERVER:
    case FailureTarget::SERVER_LINK: {
      if (static_cast<std::size_t>(event.shard) >= context_.strategies.size()) return nullptr;
      ParameterServer* primary = strategy(event.shard).primary();
      return primary != nullptr ? primary->host() : nullptr;
    }
    case FailureTarget::REPLICA: {
      if (static_cast<std::size_t>(event.shard) >= context_.strategies.size()) return nullptr;
      ReplicaHolder* chain = strategy(event.shard).replicas();
      return chain != nullptr ? chain->replica_host(event.index) : nullptr;
    }
    case FailureTarget::WORKER:
    case FailureTarget::WORKER_LINK:
      return context_.roles.workers[static_cast<std::size_t>(event.index)];
    case FailureTarget::STORAGE:
      return context_.roles.storage;
  }
  return nullptr;
}

void FailureInjector::fire(const FailureEvent& event, std::size_t i) {
  due_.push_back(event);
  sg4::Host* host = target_host(event);
  if (host == nullptr) {
    FAILSIM_INFO("failure event {} skipped: no {} process is up", i, to_string(event.target));
    context_.recorder.event(sg4::Engine::get_clock(), EventType::FAILURE_SKIPPED,
                            to_string(event.target),
                            {{"event", i}, {"reason", "no such process is up"}});
    return;
  }
  const bool link =
      event.target == FailureTarget::SERVER_LINK || event.target == FailureTarget::WORKER_LINK;
  if (link) {
    fail_link(host, event.down_for, fmt::format("event {}", i));
  } else {
    fail_host(host, event.down_for, fmt::format("event {}", i));
  }
}

void FailureInjector::fail_link(sg4::Host* host, std::optional<double> down_for,
                                const std::string& cause) {
  // The star gives every host one split-duplex link, "<host>-link": both directions fail.
  sg4::SplitDuplexLink* link =
      sg4::SplitDuplexLink::by_name(result_format::link_name(host->get_name()));
  const double now = sg4::Engine::get_clock();
  if (!link->get_link_up()->is_on()) {  // the pair's own state does not follow turn_off
    FAILSIM_INFO("failure of link {} ({}) skipped: the link is already down", link->get_name(),
                 cause);
    context_.recorder.event(now, EventType::FAILURE_SKIPPED, link->get_name(),
                            {{"cause", cause}, {"reason", "link already down"}});
    return;
  }
  link->turn_off();
  FAILSIM_INFO("failure of link {} ({}): down {}", link->get_name(), cause,
               down_for ? fmt::format("for {} s", *down_for) : "for good");
  context_.recorder.event(
      now, EventType::LINK_FAILURE, link->get_name(),
      {{"cause", cause},
       {"down_for", down_for ? nlohmann::json(*down_for) : nlohmann::json("forever")}});
  if (!down_for) return;
  sg4::Actor::create("link-repair", context_.roles.coordinator, [this, link, down_for] {
    sg4::this_actor::sleep_for(*down_for);
    link->turn_on();
    context_.recorder.event(sg4::Engine::get_clock(), EventType::LINK_UP, link->get_name());
  });
}

void FailureInjector::fail_host(sg4::Host* host, std::optional<double> down_for,
                                const std::string& cause) {
  const double now = sg4::Engine::get_clock();
  const double host_back = down_for ? now + *down_for : NEVER;
  if (!host->is_on()) {
    context_.recorder.event(now, EventType::FAILURE_SKIPPED, host->get_name(),
                            {{"cause", cause}, {"reason", "host already down"}});
    FAILSIM_INFO("failure of host {} ({}) skipped: the host is already down", host->get_name(),
                 cause);
    return;
  }
  const Struck struck = strike(host, host_back);
  record_failure(host, down_for, cause, struck, now);
  if (struck.server != nullptr) {
    struck.server->kill();
    context_.recorder.training_stalled(now, struck.owner->shard().index);
  }
  if (struck.worker != nullptr) struck.worker->kill();
  power_off(host, down_for, now, host_back);
  if (struck.server == nullptr && struck.worker == nullptr) return;
  detect(struck, host_back);
}

FailureInjector::Struck FailureInjector::strike(sg4::Host* host, double host_back) {
  // Every shard has its own server hosts: at most one shard runs a server or replica here.
  Struck struck;
  for (Strategy* s : context_.strategies) {
    if (struck.server != nullptr) continue;
    struck.server = s->server_on(host);
    if (struck.server != nullptr) struck.owner = s;
  }
  for (Strategy* s : context_.strategies) {
    ReplicaHolder* chain = s->replicas();
    if (struck.server == nullptr && !struck.replica && chain != nullptr)
      struck.replica = chain->replica_failed(host, host_back);
  }
  for (auto& w : context_.workers) {
    if (w->alive() && context_.roles.workers[static_cast<std::size_t>(w->index())] == host)
      struck.worker = w.get();
  }
  return struck;
}

void FailureInjector::record_failure(sg4::Host* host, std::optional<double> down_for,
                                     const std::string& cause, const Struck& struck, double now) {
  const ParameterServer* server = struck.server;
  const Worker* worker = struck.worker;
  context_.recorder.event(
      now, EventType::FAILURE, host->get_name(),
      {{"cause", cause},
       {"process", server           ? server->name()
                   : worker         ? result_format::worker_name(worker->index())
                   : struck.replica ? "replica"
                                    : "none"},
       {"down_for", down_for ? nlohmann::json(*down_for) : nlohmann::json("forever")}});
  FAILSIM_INFO("failure of host {} ({}): {} killed, the host {}", host->get_name(), cause,
               server           ? server->name()
               : worker         ? fmt::format("worker-{}", worker->index())
               : struck.replica ? "a replica"
                                : "no process",
               !down_for       ? "is lost for good"
               : *down_for > 0 ? fmt::format("is down for {} s", *down_for)
                               : "stays up");
}

void FailureInjector::power_off(sg4::Host* host, std::optional<double> down_for, double now,
                                double host_back) {
  if (down_for && *down_for > 0) {
    host->turn_off();
    down_[host] = {now, host_back};
    sg4::Actor::create("repair", context_.roles.coordinator, [this, host, down_for, now] {
      sg4::this_actor::sleep_for(*down_for);
      host->turn_on();
      down_.erase(host);
      const std::unique_lock lock(*mutex_);
      host_up_->notify_all();
      context_.recorder.down(host->get_name(), *down_for, now, sg4::Engine::get_clock());
      context_.recorder.event(sg4::Engine::get_clock(), EventType::HOST_UP, host->get_name());
      FAILSIM_INFO("host {} is up again", host->get_name());
      hosts_.host_up(host);
    });
  } else if (!down_for) {
    host->turn_off();
    down_[host] = {now, NEVER};
    context_.recorder.event(now, EventType::HOST_LOST, host->get_name());
  }
}

void FailureInjector::detect(const Struck& struck, double host_back) {
  // The system notices only after the detection timeout.
  sg4::Actor::create("detection", context_.roles.coordinator, [this, struck, host_back] {
    sg4::this_actor::sleep_for(context_.scenario.failures.detection_timeout);
    const double detected = sg4::Engine::get_clock();
    if (ParameterServer* server = struck.server) {
      context_.recorder.event(detected, EventType::DETECTED, server->name());
      FAILSIM_INFO("detected the failure of {}", server->name());
      Strategy& owner = *struck.owner;
      if (owner.retired()) return;  // a resize retired its shard meanwhile
      const int shard = owner.shard().index;
      if (context_.coordinator.primary(shard) == server) context_.coordinator.clear_primary(shard);
      owner.on_server_failure_detected(*server, host_back);
      return;
    }
    Worker* worker = struck.worker;
    context_.recorder.event(detected, EventType::DETECTED,
                            result_format::worker_name(worker->index()));
    FAILSIM_INFO("detected the failure of worker-{}", worker->index());
    context_.coordinator.set_worker_live(worker->index(), false);
    for (Strategy* s : context_.strategies) s->membership_changed();
    const double ready = std::max(detected + context_.scenario.failures.restart_delay, host_back);
    if (std::isinf(ready)) return;
    sg4::this_actor::sleep_until(ready);
    if (!wait_until_up(context_.roles.workers[static_cast<std::size_t>(worker->index())])) return;
    restart_worker(*worker);
  });
}

void FailureInjector::restart_worker(Worker& worker) {
  worker.launch();
  context_.coordinator.set_worker_live(worker.index(), true);
  context_.recorder.event(sg4::Engine::get_clock(), EventType::RESTART,
                          result_format::worker_name(worker.index()));
  FAILSIM_INFO("restarted worker-{}", worker.index());
  for (Strategy* s : context_.strategies) s->membership_changed();
}

}  // namespace failsim::sim
