// Resume on another layout (docs/cluster.md, "Resume on another layout"; after Universal
// Checkpointing, Lian et al. 2024, DeepSpeed's universal_checkpoint): checkpoint-restart to the
// parallel file system (composed: its checkpoints, rollback and load), except that after a
// failure the job waits at most `wait_limit` for the failed nodes and otherwise restarts on the
// data-parallel replicas whose nodes are up. The checkpoint, sharded by ZeRO for the replicas
// that wrote it, is converted once to the universal format (every parameter's state in its own
// file) and each rank reads its new shard; the survivors keep the global batch by gradient
// accumulation or take their own batches only. When the nodes return, the job grows back at the
// next checkpoint by a planned restart. Tensor and pipeline parallelism do not change.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/recovery/checkpoint_restart/checkpoint_restart.hpp"

namespace failsim::sim {

class UniversalCheckpoint : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  void poll(CollectiveJob& job) override { checkpoints_.poll(job); }
  /// Checkpoint-restart's checkpoint; then, at a checkpoint, a grow back onto the replicas
  /// whose nodes are up again.
  Interrupt after_step(CollectiveJob& job) override;
  bool network_busy() const override { return checkpoints_.network_busy(); }
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override { checkpoints_.finish(job); }

 private:
  /// Per replica of the plan: whether every node it runs on is up now.
  std::vector<bool> replicas_up(const CollectiveJob& job) const;
  /// The assignment that runs `active` (same nodes), its streams as recovery.universal.batch
  /// says: every replica's (keep) or the active ones' (reduce).
  Assignment layout(const CollectiveJob& job, const std::vector<bool>& active) const;
  /// Waits at most wait_limit for the nodes in use to come back (repair_wait).
  Interrupt wait_at_most(CollectiveJob& job);
  /// Restarts the job on `next` and loads the durable checkpoint re-sharded for it.
  Interrupt restart_on(CollectiveJob& job, const Assignment& next);
  /// The durable checkpoint's load for the current assignment: its conversion to the universal
  /// format first when the replicas that wrote it are not as many (and ZeRO shards it).
  Interrupt load(CollectiveJob& job);

  CheckpointRestart checkpoints_;
  /// The replicas the job last ran on (the RESIZE and RESIZED events say when they change).
  std::vector<bool> running_;
  /// The durable checkpoint's version that has a universal copy on the file system (-1: none):
  /// any layout loads it without converting again.
  std::int64_t universal_version_ = -1;
  bool converted_ = false;  ///< whether the last load converted the checkpoint first
};

}  // namespace failsim::sim
