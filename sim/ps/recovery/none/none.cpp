// Strategy "none": a failed server stays dead. Workers time out and wait; training stops. Also
// the failure-free baseline.
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

namespace failsim::sim {

namespace {
class NoRecovery final : public Strategy {
 public:
  NoRecovery(RunContext& context, const Shard& shard) : Strategy(context, shard) {}

  void start() override {
    server_ = start_server(shard_.hosts.front(), initial_state());
    context_.coordinator.set_initial_primary(shard_.index, server_);
  }
  void on_server_failure_detected(ParameterServer& /*dead*/, double /*host_back*/) override {}
  ParameterServer* primary() override { return server_->alive() ? server_ : nullptr; }
  // The dead server's last parameters: what the stopped training has.
  SnapshotPtr observed_snapshot() override { return server_->snapshot(); }

 private:
  ParameterServer* server_ = nullptr;
};
}  // namespace

std::unique_ptr<Strategy> make_no_recovery(RunContext& context, const Shard& shard) {
  return std::make_unique<NoRecovery>(context, shard);
}

}  // namespace failsim::sim
