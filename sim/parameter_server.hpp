// The parameter server actor: holds the parameters, answers pulls, applies gradients by the
// consistency mode (docs/consistency.md).
//   async: each gradient is one update when it arrives.
//   ssp:   the same, but a pull is answered only when the asking worker's clock is within
//          `bound` of the slowest worker's clock.
//   sync:  one update per round from one gradient of every worker (sum or mean); pulls for the
//          next round wait for it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/sgd.hpp"
#include "sim/messages.hpp"
#include "sim/run_context.hpp"

namespace failsim::sim {

class ParameterServer {
 public:
  ParameterServer(RunContext& context, SnapshotPtr initial, int num_workers);

  /// The actor's body: serves messages until the simulation stops.
  void operator()();

  std::int64_t version() const { return version_; }
  /// The current parameters as a shared snapshot (made once per version, when first asked).
  SnapshotPtr snapshot();

 private:
  bool can_serve(const PullRequest& request) const;
  std::int64_t slowest_clock() const;
  void reply(const PullRequest& request);
  void serve_deferred();
  void on_gradient(GradientPush push);
  /// Applies `pushes` as one update (costs update_flops per gradient on this host).
  void apply(std::vector<GradientPush>& pushes);

  RunContext& context_;
  models::FloatBuffer params_;
  models::Sgd sgd_;
  std::int64_t version_ = 0;
  SnapshotPtr published_;
  std::vector<std::int64_t> clocks_;  // gradients received per worker (SSP)
  std::deque<PullRequest> deferred_;
  std::vector<GradientPush> round_;   // sync: this round's gradients
  std::vector<models::PendingGradient> pending_;  // scratch for apply_pending
  models::FloatBuffer combined_;                  // scratch for apply_pending
};

}  // namespace failsim::sim
