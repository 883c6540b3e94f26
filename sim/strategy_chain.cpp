// Strategy "chain" (docs/strategies.md): chain replication over the N server hosts. The head is
// the primary parameter server; the other N-1 nodes are replicas in chain order. Every K
// updates the head sends its state to its successor, which stores it, forwards it to its own
// successor and acknowledges only once that one acknowledged (so an acknowledged state is on
// every live node); the head waits for the acknowledgement. When the head's failure is
// detected, the first live replica is promoted with the state it holds (updates since it are
// lost); a replacement for any failed node joins at the tail after the restart delay (once its
// host is up), receiving the tail's state.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <cmath>

#include "sim/failure_injector.hpp"
#include "sim/observer.hpp"
#include "sim/strategies.hpp"
#include "sim/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(chain, failsim, "chain replication");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

/// A replica process: keeps the last state it received and passes it down the chain.
class Replica {
 public:
  Replica(RunContext& context, sg4::Host* host, ServerState state, int id)
      : context_(context),
        host_(host),
        state_(std::move(state)),
        mailbox_(sg4::Mailbox::by_name(fmt::format("replica-{}", id))),
        ack_(sg4::Mailbox::by_name(fmt::format("replica-{}.ack", id))),
        name_(fmt::format("replica-{}", id)) {}

  void launch(std::function<Replica*(Replica*)> successor) {
    successor_ = std::move(successor);
    actor_ = sg4::Actor::create(name_, host_, [this] { serve(); });
  }
  void kill() {
    alive_ = false;
    mailbox_->set_receiver(nullptr);
    if (actor_) actor_->kill();
  }
  bool alive() const { return alive_; }
  sg4::Host* host() const { return host_; }
  sg4::Mailbox* mailbox() const { return mailbox_; }
  const ServerState& state() const { return state_; }
  const std::string& name() const { return name_; }

 private:
  void serve() {
    mailbox_->set_receiver(sg4::Actor::self());
    while (true) {
      std::unique_ptr<StateCopy> copy;
      try {
        copy = mailbox_->get_unique<StateCopy>();
      } catch (const simgrid::Exception&) {
        continue;
      }
      state_ = ServerState{copy->snapshot, copy->velocity};
      if (Replica* next = successor_(this)) forward(*next, *copy, context_, ack_);
      if (copy->ack_to != nullptr) {
        // The acknowledgement names the version, so a late one is not taken for the next.
        copy->ack_to
            ->put_init(new std::int64_t(copy->snapshot->version),
                       static_cast<std::uint64_t>(CONTROL_BYTES))
            ->detach([](void* p) { delete static_cast<std::int64_t*>(p); });
      }
    }
  }

 public:
  /// Sends `copy` to `next` and waits for its acknowledgement, each within the request timeout.
  /// False when it timed out (a dead successor: its failure is detected and repaired
  /// separately; meanwhile the chain ends before it).
  static bool forward(Replica& next, const StateCopy& copy, RunContext& context,
                      sg4::Mailbox* ack) {
    const double timeout = context.scenario.failures.request_timeout;
    const double bytes = context.time.param_bytes * (copy.velocity ? 2.0 : 1.0);
    auto message = std::make_unique<StateCopy>(StateCopy{copy.snapshot, copy.velocity, ack});
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

 private:
  RunContext& context_;
  sg4::Host* host_;
  ServerState state_;
  sg4::Mailbox* mailbox_;
  sg4::Mailbox* ack_;
  std::string name_;
  std::function<Replica*(Replica*)> successor_;
  sg4::ActorPtr actor_;
  bool alive_ = true;
};

class ChainReplication final : public Strategy {
 public:
  explicit ChainReplication(RunContext& context) : Strategy(context) {}

  void start() override {
    const ServerState initial{context_.math.initial_snapshot(), nullptr};
    head_ = start_server(context_.roles.servers.front(), initial);
    for (std::size_t i = 1; i < context_.roles.servers.size(); ++i)
      add_replica(context_.roles.servers[i], initial);
    context_.coordinator.set_initial_primary(head_);
  }

  void after_update(ParameterServer& server) override {
    if (server.version() % context_.scenario.recovery.chain.every_updates != 0) return;
    // The head knows its successor from the coordinator: a replica whose failure is not yet
    // detected is still in the chain, and costs a timeout.
    if (chain_.empty()) return;
    const ServerState state = server.state();
    const bool acknowledged =
        Replica::forward(*chain_.front(), StateCopy{state.snapshot, state.velocity, nullptr},
                         context_, sg4::Mailbox::by_name(server.name() + ".ack"));
    context_.recorder.event(sg4::Engine::get_clock(),
                            acknowledged ? "replicated" : "replication_incomplete", server.name(),
                            {{"version", state.snapshot->version}});
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    lost_head_version_ = dead.version();
    lost_head_gradients_ = dead.gradients();
    // The first replica in chain order that is up (the coordinator knows of every failure
    // detected so far) becomes the head.
    Replica* next = first_live();
    if (next == nullptr) {
      context_.recorder.event(sg4::Engine::get_clock(), "no_replacement", dead.name(),
                              {{"reason", "no live replica"}});
    } else {
      promote(*next);
    }
    replace(dead.host(), host_back);
  }

  /// A replica's failure (detected by the failure injector through server_on -> nullptr).
  ParameterServer* primary() override { return head_->alive() ? head_ : nullptr; }
  SnapshotPtr observed_snapshot() override { return head_->snapshot(); }

  sg4::Host* replica_host(int position) override {
    if (position == 0) return head_->alive() ? head_->host() : nullptr;
    int p = 0;
    for (Replica* r : chain_) {
      if (r->alive() && ++p == position) return r->host();
    }
    return nullptr;
  }

  bool replica_failed(sg4::Host* host, double host_back) override {
    for (Replica* r : chain_) {
      if (r->alive() && r->host() == host) {
        r->kill();
        sg4::Actor::create("detection", context_.roles.coordinator, [this, r, host, host_back] {
          sg4::this_actor::sleep_for(context_.scenario.failures.detection_timeout);
          context_.recorder.event(sg4::Engine::get_clock(), "detected", r->name());
          chain_.erase(std::find(chain_.begin(), chain_.end(), r));
          replace(host, host_back);
        });
        return true;
      }
    }
    return false;
  }

 private:
  /// The replica's process becomes the head, with the state it holds; updates the dead head had
  /// applied since are lost.
  void promote(Replica& replica) {
    const ServerState state = replica.state();
    const std::int64_t lost =
        std::max<std::int64_t>(0, lost_head_version_ - state.snapshot->version);
    context_.recorder.rolled_back(
        lost, std::max<std::int64_t>(0, lost_head_gradients_ - state.snapshot->gradients));
    replica.kill();  // its process now runs the server
    chain_.erase(std::find(chain_.begin(), chain_.end(), &replica));
    head_ = start_server(replica.host(), state);
    context_.recorder.event(sg4::Engine::get_clock(), "promoted", head_->name(),
                            {{"host", replica.host()->get_name()},
                             {"version", state.snapshot->version},
                             {"updates_lost", lost}});
    context_.coordinator.set_primary(head_);
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }

  Replica* first_live() {
    for (Replica* r : chain_) {
      if (r->alive()) return r;
    }
    return nullptr;
  }

  /// A new replica process on `host`; it enters the chain (as the tail) when `in_chain`, else
  /// the caller adds it once it holds its state.
  Replica* add_replica(sg4::Host* host, ServerState state, bool in_chain = true) {
    replicas_.push_back(std::make_unique<Replica>(context_, host, std::move(state),
                                                  static_cast<int>(replicas_.size())));
    Replica* r = replicas_.back().get();
    if (in_chain) chain_.push_back(r);
    r->launch([this](Replica* self) -> Replica* {
      auto it = std::find(chain_.begin(), chain_.end(), self);
      return it == chain_.end() || ++it == chain_.end() ? nullptr : *it;
    });
    return r;
  }

  /// A replacement node joins at the tail once the restart delay passed and its host is up; it
  /// starts from the tail's state (or the head's, with no replica left), sent over the network.
  void replace(sg4::Host* host, double host_back) {
    const double ready =
        std::max(sg4::Engine::get_clock() + context_.scenario.failures.restart_delay, host_back);
    if (std::isinf(ready)) return;
    sg4::Actor::create("joiner", context_.roles.coordinator, [this, host, ready] {
      sg4::this_actor::sleep_until(ready);
      if (!context_.injector->wait_until_up(host)) return;  // it failed again, for good
      Replica* tail = nullptr;
      for (Replica* r : chain_) {
        if (r->alive()) tail = r;
      }
      if (tail == nullptr && !head_->alive()) {
        // Every copy of the parameters died: nothing to join from.
        context_.recorder.event(sg4::Engine::get_clock(), "no_replacement", host->get_name(),
                                {{"reason", "no live node holds the parameters"}});
        return;
      }
      const ServerState state = tail != nullptr ? tail->state() : head_->state();
      // Outside the chain until it holds the state: a promotion meanwhile must not pick it.
      Replica* joined =
          add_replica(host, ServerState{context_.math.initial_snapshot(), nullptr}, false);
      if (!Replica::forward(*joined, StateCopy{state.snapshot, state.velocity, nullptr}, context_,
                            sg4::Mailbox::by_name(joined->name() + ".join"))) {
        return;  // it died while joining: its own failure is detected and replaced
      }
      chain_.push_back(joined);
      context_.recorder.event(sg4::Engine::get_clock(), "replica_joined", joined->name(),
                              {{"host", host->get_name()}, {"version", state.snapshot->version}});
      if (!head_->alive() && context_.coordinator.primary() == nullptr) promote(*joined);
    });
  }

  ParameterServer* head_ = nullptr;
  // The dead head's version and gradient count: what a promotion loses from.
  std::int64_t lost_head_version_ = 0;
  std::int64_t lost_head_gradients_ = 0;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> chain_;  // live and not-yet-detected replicas, in chain order
};
}  // namespace

std::unique_ptr<Strategy> make_chain_replication(RunContext& context) {
  return std::make_unique<ChainReplication>(context);
}

}  // namespace failsim::sim
