// Strategy "stateless" (docs/strategies.md), the study's stateless parameter server: the
// parameters and the pending gradients live in an external store (on the storage host), not in
// the server. Workers pull the latest stored parameters from the store and push their gradients
// to its pending list, whether or not a server is up. The server repeatedly takes everything
// pending (transfer of k gradients), applies it as one update by the configured rule, and
// publishes the new parameters to the store (one transfer). After a failure a new server starts
// after the restart delay, reads the stored parameters, and applies everything that piled up
// meanwhile at once: the study's recovery.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <cmath>

#include "sim/engine/log.hpp"
#include "sim/ps/recovery/stateless/stateless_store.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(stateless, failsim, "stateless parameter server");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

class Stateless final : public Strategy {
 public:
  Stateless(RunContext& context, const Shard& shard)
      : Strategy(context, shard),
        store_(context, shard, context.scenario.recovery.get<StatelessConfig>()) {}

  void start() override {
    store_.launch();
    current_ = start_server(shard_.hosts.front(), initial_state());
    // Workers talk to the store, whatever happens.
    context_.coordinator.set_initial_primary(shard_.index, &store_);
  }

  void run_server(ParameterServer& server) override {
    // A restarted server reads the stored parameters, and its first update is the recovery.
    const bool restarted = &server != servers_.front().get();
    serve_from_store(server, store_, restarted, restarted, [&](bool first_after_recovery) {
      const ServerState state = server.state();
      if (first_after_recovery) store_.evaluate_next_publish();
      send_to_store(store_, new StoreRequest{StateCopy{state.snapshot, state.optimizer, nullptr}},
                    state_bytes(shard_, state));
    });
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    // A batch on its way to the dead server is lost with it (one it was applying already
    // counted as lost when it died).
    context_.recorder.gradients_lost(store_.forget_server(dead.mailbox()));
    // Updates applied but not yet published died with the server (the store holds what this
    // lineage published, so never a newer version than the dead server's).
    remember_lost(dead);
    roll_back_to(*store_.latest());
    FAILSIM_INFO("after the failure of {} the store holds version {} and {} pending gradients",
                 dead.name(), store_.latest()->version, store_.pending());
    restart_later(
        dead, host_back,
        [this] {
          return nlohmann::json{{"pending", store_.pending()}};
        },
        [this](sg4::Host* host) {
          current_ = start_server(host, ServerState{store_.latest(), nullptr});
        });
  }

  ParameterServer* primary() override { return current_->alive() ? current_ : nullptr; }
  SnapshotPtr observed_snapshot() override { return store_.latest(); }
  std::int64_t pending_at_end() override {
    return Strategy::pending_at_end() + store_.pending() + store_.in_flight();
  }
  std::int64_t peak_pending() const override { return store_.peak_pending(); }
  /// Nothing to tell: the store keeps no rounds or clocks (async only), and the server's
  /// mailbox receives the store's answers, not worker messages.
  void membership_changed() override {}

 private:
  StatelessStore store_;
  ParameterServer* current_ = nullptr;
};
}  // namespace

std::unique_ptr<Strategy> make_stateless(RunContext& context, const Shard& shard) {
  return std::make_unique<Stateless>(context, shard);
}

}  // namespace failsim::sim
