// Strategy "stateless_chain" (docs/strategies.md): the study's future work, a hybrid of the
// stateless server and chain replication. Workers talk only to the external store, as in
// "stateless": they pull the parameters it holds and push their gradients to its pending list,
// so they keep computing whatever happens to the server. The parameters live in the head and
// its replica chain, as in "chain": every K updates the head sends its state down the chain
// (replica_chain.hpp) and, once every replica acknowledged it, publishes it to the store. The
// store thus only ever holds committed parameters: no worker computes from a state that a
// failure can roll back. When the head's failure is detected, the first live replica is
// promoted at once (no restart delay, the dead host is not needed): it starts from the state it
// holds and applies everything that piled up in the store as one update by the stale rule.
// With no live replica the stateless recovery takes over: the first failed host whose
// replacement comes due (after the restart delay, once up) runs a new head that reads the
// store's (committed) parameters.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>

#include "sim/engine/log.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/recovery/chain/replica_chain.hpp"
#include "sim/ps/recovery/stateless/stateless_store.hpp"
#include "sim/ps/recovery/stateless_chain/settings.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(stateless_chain, failsim, "stateless server with a replica chain");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

class StatelessChain final : public ChainedStrategy {
 public:
  StatelessChain(RunContext& context, const Shard& shard)
      // A replacement that joins while the head is dead needs no promotion: the detection
      // promotes a live replica, and with none the first replacement due becomes the head
      // (restart_from_store) instead of joining.
      : ChainedStrategy(
            context, shard, [](Replica& /*joined*/) {},
            [this](sg4::Host* host) { return restart_from_store(host); }),
        config_(context.scenario.recovery.get<StatelessChainConfig>()),
        store_(context, shard, config_.stateless) {}

  void start() override {
    store_.launch();
    const ServerState initial = initial_state();
    head_ = start_server(shard_.hosts.front(), initial);
    for (std::size_t i = 1; i < shard_.hosts.size(); ++i) chain_.add(shard_.hosts[i], initial);
    // Workers talk to the store only.
    context_.coordinator.set_initial_primary(shard_.index, &store_);
  }

  void run_server(ParameterServer& server) override {
    const auto incarnation =
        static_cast<std::size_t>(std::find_if(servers_.begin(), servers_.end(),
                                              [&](const auto& s) { return s.get() == &server; }) -
                                 servers_.begin());
    const bool reads_store =
        std::find(read_store_.begin(), read_store_.end(), incarnation) != read_store_.end();
    const bool recovered = &server != servers_.front().get();
    serve_from_store(server, store_, reads_store, recovered, [this](bool first) {
      if (first) Observer::evaluate_now(context_);  // the pending gradients' effect
    });
  }

  void after_update(ParameterServer& server) override {
    if (server.version() % config_.chain.every_updates != 0) return;
    // Committed once every replica holds it; with no replica at all the head is the only copy
    // and publishes alone.
    if (!chain_.empty() && !chain_.replicate(server)) return;
    const ServerState state = server.state();
    send_to_store(store_, new StoreRequest{StateCopy{state.snapshot, state.optimizer, nullptr}},
                  state_bytes(shard_, state));
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    // A batch on its way to the dead server is lost with it (one it was applying already
    // counted as lost when it died).
    context_.recorder.gradients_lost(store_.forget_server(dead.mailbox()));
    remember_lost(dead);
    if (Replica* next = chain_.first_live()) {
      promote(*next);
    } else {
      // The whole chain is dead: the store's committed parameters are the newest copy left.
      const SnapshotPtr stored = store_.latest();
      roll_back_to(*stored);
      headless_ = true;
      context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLICA, dead.name(),
                              {{"version", stored->version}, {"pending", store_.pending()}});
      FAILSIM_INFO(
          "no live replica after the failure of {}: the store's version {} is the newest copy, {} "
          "gradients pending",
          dead.name(), stored->version, store_.pending());
    }
    // The dead head's host comes back as a replica, or as the head if it is the first due.
    chain_.replace(dead.host(), host_back);
  }

  ParameterServer* primary() override { return head_->alive() ? head_ : nullptr; }
  SnapshotPtr observed_snapshot() override {
    return headless_ ? store_.latest() : head_->snapshot();
  }
  std::int64_t pending_at_end() override {
    return Strategy::pending_at_end() + store_.pending() + store_.in_flight();
  }
  std::int64_t peak_pending() const override { return store_.peak_pending(); }
  /// Nothing to tell: the store keeps no rounds or clocks (async only), and the server's
  /// mailbox receives the store's answers, not worker messages.
  void membership_changed() override {}

 private:
  /// The replica's process becomes the head with the state it holds. The store may hold a newer
  /// committed state only if this replica joined while the rest of the chain took one it missed:
  /// then the new head reads the store's instead.
  void promote(Replica& replica) {
    sg4::Host* host = replica.host();
    const ServerState state = replica.state();
    const bool stale = store_.latest()->version > state.snapshot->version;
    const ServerState start = stale ? ServerState{store_.latest(), nullptr} : state;
    const std::int64_t lost = roll_back_to(*start.snapshot);
    start_head(host, start, stale);
    // Out of the chain only now: starting the head lets other actors run, and a replacement
    // coming due meanwhile must still find this replica's state to join from.
    chain_.promote(replica);
    context_.recorder.event(sg4::Engine::get_clock(), EventType::PROMOTED, head_->name(),
                            {{"host", host->get_name()},
                             {"version", start.snapshot->version},
                             {"updates_lost", lost},
                             {"pending", store_.pending()}});
    FAILSIM_INFO("promoted {} on {} to {} at version {}{}: {} updates lost, {} gradients pending",
                 replica.name(), host->get_name(), head_->name(), start.snapshot->version,
                 stale ? " (the store's)" : "", lost, store_.pending());
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }

  /// With the whole chain dead, the first replacement due becomes the head, reading the
  /// store's parameters. Not before the head's failure is detected (the detection decides),
  /// and only one: a second one due meanwhile finds no live node and is not replaced.
  bool restart_from_store(sg4::Host* host) {
    if (!headless_ || restarting_) return false;
    restarting_ = true;  // starting the head lets other actors run
    context_.recorder.event(sg4::Engine::get_clock(), EventType::RESTART,
                            shard_.server_name(servers_.size()),
                            {{"host", host->get_name()}, {"pending", store_.pending()}});
    FAILSIM_INFO("restarting {} on {} from the store, {} gradients pending",
                 shard_.name(fmt::format("server-{}", servers_.size())), host->get_name(),
                 store_.pending());
    start_head(host, ServerState{store_.latest(), nullptr}, true);
    headless_ = restarting_ = false;
    return true;
  }

  /// A new head holding `state`; when `reads_store` it first reads it from the store (a
  /// transfer), as a restarted stateless server does. Marked before it is started: its actor
  /// may run before start_server returns.
  void start_head(sg4::Host* host, const ServerState& state, bool reads_store) {
    if (reads_store) read_store_.push_back(servers_.size());
    head_ = start_server(host, state);
  }

  const StatelessChainConfig& config_;
  StatelessStore store_;
  bool headless_ = false;                // the head's failure was detected with no live replica
  bool restarting_ = false;              // a head reading the store is being started
  std::vector<std::size_t> read_store_;  // incarnations (servers_ indices) that read the store
};
}  // namespace

std::unique_ptr<Strategy> make_stateless_chain(RunContext& context, const Shard& shard) {
  return std::make_unique<StatelessChain>(context, shard);
}

}  // namespace failsim::sim
