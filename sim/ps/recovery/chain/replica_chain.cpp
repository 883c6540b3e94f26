#include "sim/ps/recovery/chain/replica_chain.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(replica_chain, failsim, "replica chain of the chain strategies");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Replica::Replica(RunContext& context, const Shard& shard, sg4::Host* host, ServerState state,
                 int id)
    : context_(context),
      shard_(shard),
      host_(host),
      state_(std::move(state)),
      mailbox_(sg4::Mailbox::by_name(shard.name(fmt::format("replica-{}", id)))),
      ack_(sg4::Mailbox::by_name(shard.name(fmt::format("replica-{}.ack", id)))),
      name_(shard.name(fmt::format("replica-{}", id))) {}

void Replica::launch(std::function<Replica*(Replica*)> successor) {
  successor_ = std::move(successor);
  actor_ = sg4::Actor::create(name_, host_, [this] { serve(); });
}

void Replica::kill() {
  alive_ = false;
  mailbox_->set_receiver(nullptr);
  if (actor_) actor_->kill();
}

void Replica::serve() {
  mailbox_->set_receiver(sg4::Actor::self());
  while (true) {
    std::unique_ptr<StateCopy> copy;
    try {
      copy = mailbox_->get_unique<StateCopy>();
    } catch (const simgrid::Exception&) {
      continue;
    }
    state_ = ServerState{copy->snapshot, copy->optimizer};
    if (Replica* next = successor_(this)) forward(*next, *copy, context_, shard_, ack_);
    if (copy->ack_to != nullptr) {
      // The acknowledgement names the version, so a late one is not taken for the next.
      copy->ack_to
          ->put_init(new std::int64_t(copy->snapshot->version),
                     static_cast<std::uint64_t>(CONTROL_BYTES))
          ->detach([](void* p) { delete static_cast<std::int64_t*>(p); });
    }
  }
}

bool Replica::forward(Replica& next, const StateCopy& copy, RunContext& context, const Shard& shard,
                      sg4::Mailbox* ack) {
  const double timeout = context.scenario.failures.request_timeout;
  const double bytes = state_bytes(shard.bytes, copy.optimizer);
  auto message = std::make_unique<StateCopy>(StateCopy{copy.snapshot, copy.optimizer, ack});
  try {
    next.mailbox()->put(message.get(), static_cast<std::uint64_t>(bytes), timeout);
    static_cast<void>(message.release());
    while (*ack->get_unique<std::int64_t>(timeout) != copy.snapshot->version) {
    }
    return true;
  } catch (const simgrid::TimeoutException&) {
  } catch (const simgrid::NetworkFailureException&) {
  }
  return false;
}

ReplicaChain::ReplicaChain(RunContext& context, const Shard& shard,
                           std::function<ParameterServer*()> head,
                           std::function<void(Replica&)> joined_headless,
                           std::function<bool(sg4::Host*)> orphaned)
    : context_(context),
      shard_(shard),
      head_(std::move(head)),
      joined_headless_(std::move(joined_headless)),
      orphaned_(std::move(orphaned)) {}

void ReplicaChain::add(sg4::Host* host, ServerState state) {
  add_replica(host, std::move(state), true);
}

bool ReplicaChain::replicate(ParameterServer& head) {
  // The head knows its successor from the coordinator: a replica whose failure is not yet
  // detected is still in the chain, and costs a timeout.
  const ServerState state = head.state();
  const bool acknowledged =
      Replica::forward(*chain_.front(), StateCopy{state.snapshot, state.optimizer, nullptr},
                       context_, shard_, sg4::Mailbox::by_name(head.name() + ".ack"));
  context_.recorder.event(sg4::Engine::get_clock(),
                          acknowledged ? EventType::REPLICATED : EventType::REPLICATION_INCOMPLETE,
                          head.name(), {{"version", state.snapshot->version}});
  if (!acknowledged)
    FAILSIM_VERBOSE(
        "{}: replication of version {} incomplete: a replica did not acknowledge in time",
        head.name(), state.snapshot->version);
  return acknowledged;
}

Replica* ReplicaChain::first_live() {
  for (Replica* r : chain_) {
    if (r->alive()) return r;
  }
  return nullptr;
}

void ReplicaChain::promote(Replica& replica) {
  replica.kill();  // its process now runs the server
  chain_.erase(std::find(chain_.begin(), chain_.end(), &replica));
}

sg4::Host* ReplicaChain::host_at(int position) {
  int p = 0;
  for (Replica* r : chain_) {
    if (r->alive() && ++p == position) return r->host();
  }
  return nullptr;
}

bool ReplicaChain::fail(sg4::Host* host, double host_back) {
  for (Replica* r : chain_) {
    if (r->alive() && r->host() == host) {
      r->kill();
      sg4::Actor::create("detection", context_.roles.coordinator, [this, r, host, host_back] {
        sg4::this_actor::sleep_for(context_.scenario.failures.detection_timeout);
        context_.recorder.event(sg4::Engine::get_clock(), EventType::DETECTED, r->name());
        FAILSIM_INFO("detected the failure of {}", r->name());
        chain_.erase(std::find(chain_.begin(), chain_.end(), r));
        replace(host, host_back);
      });
      return true;
    }
  }
  return false;
}

Replica* ReplicaChain::add_replica(sg4::Host* host, ServerState state, bool in_chain) {
  replicas_.push_back(std::make_unique<Replica>(context_, shard_, host, std::move(state),
                                                static_cast<int>(replicas_.size())));
  Replica* r = replicas_.back().get();
  if (in_chain) chain_.push_back(r);
  r->launch([this](Replica* self) -> Replica* {
    auto it = std::find(chain_.begin(), chain_.end(), self);
    return it == chain_.end() || ++it == chain_.end() ? nullptr : *it;
  });
  return r;
}

void ReplicaChain::replace(sg4::Host* host, double host_back) {
  const double ready =
      std::max(sg4::Engine::get_clock() + context_.scenario.failures.restart_delay, host_back);
  if (std::isinf(ready)) return;
  sg4::Actor::create("joiner", context_.roles.coordinator, [this, host, ready] {
    sg4::this_actor::sleep_until(ready);
    if (!context_.repairs.wait_until_up(host)) return;  // it failed again, for good
    Replica* tail = nullptr;
    for (Replica* r : chain_) {
      if (r->alive()) tail = r;
    }
    ParameterServer* head = head_();
    if (tail == nullptr && !head->alive()) {
      if (orphaned_(host)) return;
      // Every copy of the parameters died: nothing to join from.
      context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLACEMENT, host->get_name(),
                              {{"reason", "no live node holds the parameters"}});
      FAILSIM_INFO("no replacement on {}: no live node holds the parameters", host->get_name());
      return;
    }
    const ServerState state = tail != nullptr ? tail->state() : head->state();
    // Outside the chain until it holds the state: a promotion meanwhile must not pick it.
    Replica* joined = add_replica(host, ServerState{shard_.initial, nullptr}, false);
    if (!Replica::forward(*joined, StateCopy{state.snapshot, state.optimizer, nullptr}, context_,
                          shard_, sg4::Mailbox::by_name(joined->name() + ".join"))) {
      return;  // it died while joining: its own failure is detected and replaced
    }
    chain_.push_back(joined);
    context_.recorder.event(sg4::Engine::get_clock(), EventType::REPLICA_JOINED, joined->name(),
                            {{"host", host->get_name()}, {"version", state.snapshot->version}});
    FAILSIM_INFO("{} joined the chain on {} with version {}", joined->name(), host->get_name(),
                 state.snapshot->version);
    if (!head_()->alive()) joined_headless_(*joined);
  });
}

ChainedStrategy::ChainedStrategy(RunContext& context, const Shard& shard,
                                 std::function<void(Replica&)> joined_headless,
                                 std::function<bool(simgrid::s4u::Host*)> orphaned)
    : Strategy(context, shard),
      chain_(
          context, shard, [this] { return head_; }, std::move(joined_headless),
          std::move(orphaned)) {}

simgrid::s4u::Host* ChainedStrategy::replica_host(int position) {
  if (position == 0) return head_->alive() ? head_->host() : nullptr;
  return chain_.host_at(position);
}

bool ChainedStrategy::replica_failed(simgrid::s4u::Host* host, double host_back) {
  return chain_.fail(host, host_back);
}

}  // namespace failsim::sim
