// Strategy "chain" (docs/strategies.md): chain replication over the N server hosts. The head is
// the primary parameter server; the other N-1 nodes are replicas in chain order
// (replica_chain.hpp). Every K updates the head sends its state down the chain and waits for the
// acknowledgement. When the head's failure is detected, the first live replica is promoted with
// the state it holds (updates since it are lost); a replacement for any failed node joins at the
// tail after the restart delay (once its host is up), receiving the tail's state.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include "sim/engine/log.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/recovery/chain/replica_chain.hpp"
#include "sim/ps/recovery/chain/settings.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(chain, failsim, "chain replication");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

class ChainReplication final : public ChainedStrategy {
 public:
  ChainReplication(RunContext& context, const Shard& shard)
      : ChainedStrategy(
            context, shard,
            [this](Replica& joined) {
              if (context_.coordinator.primary(shard_.index) == nullptr) promote(joined);
            },
            [](sg4::Host* /*host*/) { return false; }) {}

  void start() override {
    const ServerState initial = initial_state();
    head_ = start_server(shard_.hosts.front(), initial);
    for (std::size_t i = 1; i < shard_.hosts.size(); ++i) chain_.add(shard_.hosts[i], initial);
    context_.coordinator.set_initial_primary(shard_.index, head_);
  }

  void after_update(ParameterServer& server) override {
    if (server.version() % context_.scenario.recovery.get<ChainConfig>().every_updates != 0) return;
    if (!chain_.empty()) chain_.replicate(server);
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    remember_lost(dead);
    Replica* next = chain_.first_live();
    if (next == nullptr) {
      context_.recorder.event(sg4::Engine::get_clock(), EventType::NO_REPLACEMENT, dead.name(),
                              {{"reason", "no live replica"}});
      FAILSIM_INFO("no live replica to promote after the failure of {}", dead.name());
    } else {
      promote(*next);
    }
    chain_.replace(dead.host(), host_back);
  }

  ParameterServer* primary() override { return head_->alive() ? head_ : nullptr; }
  SnapshotPtr observed_snapshot() override { return head_->snapshot(); }

 private:
  /// The replica's process becomes the head, with the state it holds; updates the dead head had
  /// applied since are lost.
  void promote(Replica& replica) {
    sg4::Host* host = replica.host();
    const ServerState state = replica.state();
    const std::int64_t lost = roll_back_to(*state.snapshot);
    head_ = start_server(host, state);
    // Out of the chain only now: starting the server lets other actors run, and a replacement
    // coming due meanwhile must still find this replica's state to join from.
    chain_.promote(replica);
    context_.recorder.event(
        sg4::Engine::get_clock(), EventType::PROMOTED, head_->name(),
        {{"host", host->get_name()}, {"version", state.snapshot->version}, {"updates_lost", lost}});
    FAILSIM_INFO("promoted {} on {} to {} at version {}: {} updates lost", replica.name(),
                 host->get_name(), head_->name(), state.snapshot->version, lost);
    context_.coordinator.set_primary(shard_.index, head_);
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }
};
}  // namespace

std::unique_ptr<Strategy> make_chain_replication(RunContext& context, const Shard& shard) {
  return std::make_unique<ChainReplication>(context, shard);
}

}  // namespace failsim::sim
