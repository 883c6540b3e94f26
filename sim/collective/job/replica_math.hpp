// The real math of a synchronous collective step, whatever the layout: the dp data-parallel
// replicas each take a batch of optimizer.batch_size samples from their shard of the training
// set, and one optimizer step (SGD or AdamW) is taken on the mean of their mean gradients, which is
// the mean gradient of the union of their batches (equal batch sizes). Tensor and pipeline
// parallelism split the work of a replica, not its math. A step may take batches from some streams
// only (a quorum of replicas, docs/cluster.md "Assignment"): the mean is then over those.
// Deterministic for any number of threads: the gradients are summed in replica order. The training
// state (parameters, optimizer state: SGD's velocity or AdamW's moments and steps; data streams) is
// what a checkpoint saves and a restart restores, so a rollback replays the same batches.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/optimizer.hpp"
#include "sim/engine/snapshot.hpp"
#include "sim/engine/training_math.hpp"

namespace failsim::sim {

class ReplicaMath {
 public:
  /// Version 0: the seeded initial parameters, each replica at the start of its data stream.
  ReplicaMath(TrainingMath& math, const OptimizerConfig& optimizer, int replicas);

  /// One synchronous step: version v -> v + 1, on the mean gradient of one batch from each of
  /// `streams` (ascending replica indices; summed in that order). Returns their mean training
  /// loss.
  double step(const std::vector<int>& streams);
  /// One step on every replica's batch.
  double step();
  std::int64_t version() const { return current_->version; }
  const SnapshotPtr& parameters() const { return current_; }

  /// Everything a checkpoint holds.
  struct State {
    SnapshotPtr parameters;
    std::shared_ptr<const models::OptimizerState> optimizer;  ///< null: SGD without momentum
    std::vector<BatchStream> streams;
  };
  State save() const;
  void restore(const State& state);

 private:
  TrainingMath& math_;
  models::Optimizer optimizer_;
  std::vector<BatchStream> streams_;
  std::vector<int> all_;  // 0 .. replicas - 1
  SnapshotPtr current_;
  SnapshotPool pool_;
  std::vector<std::vector<float>> grads_;  // one per job in flight
  std::vector<GradientJob> jobs_;
  std::vector<float> sum_;
};

}  // namespace failsim::sim
