// Live migration to a warm standby (docs/cluster.md, "Live migration to a warm standby"; after
// TrainMover, OSDI'26, and the "TorchPass" live migration of a vendor's benchmark): after a
// detected failure nobody restarts and nothing rolls back. The ranks of a failed node that is
// still down move onto a standby of the spare pool (the job's swap); a failed node already back
// restarts its own processes. Each such rank receives its state (what a checkpoint of it holds)
// from a data-parallel peer that holds the same stage and tensor shard, as flows on the simulated
// network; then only the communicators of the groups that include a moved rank are initialised
// again. The interrupted step is lost and redone. Without enough standbys up, or without a live
// peer for a moved rank, the job falls back to checkpoint-restart (composed: its checkpoints,
// rollback, restart and load), which is why the design checkpoints as checkpoint-restart does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/collective/network/flows.hpp"
#include "sim/collective/recovery/checkpoint_restart/checkpoint_restart.hpp"

namespace failsim::sim {

class LiveMigration : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  void poll(CollectiveJob& job) override { checkpoints_.poll(job); }
  Interrupt after_step(CollectiveJob& job) override { return checkpoints_.after_step(job); }
  std::int64_t next_action_version(const CollectiveJob& job) const override {
    return checkpoints_.next_action_version(job);
  }
  bool network_busy() const override { return checkpoints_.network_busy(); }
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override { checkpoints_.finish(job); }

 private:
  /// How an attempt at migrating ended.
  enum class Attempt { MIGRATED, FALL_BACK, FAILURE, STOP };
  /// FAILURE (the outages due taken) or STOP, for what cut a wait short.
  static Attempt attempt(Interrupt i);
  /// One attempt: standbys, in-place restarts, the peers' copy, the communicators' rebuild.
  Attempt migrate(CollectiveJob& job);
  /// Marks the plan nodes that lost their processes pending (and moved) and returns those back up
  /// already (their processes restart in place); nullopt when the pool has fewer standbys up than
  /// nodes still down, or a pending rank has no live peer: the failure is checkpoint-restart's.
  std::optional<std::vector<int>> mark_failed(CollectiveJob& job);
  /// The pool's swap for the nodes still down; `in_place` start their processes again.
  Attempt take_standbys(CollectiveJob& job, const std::vector<int>& in_place);
  /// Every pending rank's state from its peer (checkpoint_load); none is pending after.
  Attempt copy_state(CollectiveJob& job);
  /// Whether plan node `p` lost its processes: its node is down, or failed since they started.
  bool failed(const CollectiveJob& job, int p) const;
  /// The data-parallel replica that sends rank (d, p, t) of a pending node its state: the live
  /// replicas of (p, t) in turn from d + 1 on; -1 when none is live.
  int source_replica(const CollectiveJob& job, int rank) const;
  /// The copies to every rank of a pending plan node from its source, under the assignment.
  std::vector<Flow> copy_flows(CollectiveJob& job) const;
  /// Seconds of the communicators' initialisation for the groups with a rank of a moved node.
  double rebuild_seconds(const CollectiveJob& job) const;
  /// The ranks of the plan nodes marked in `nodes`.
  std::vector<int> ranks_of(const CollectiveJob& job, const std::vector<char>& nodes) const;

  CheckpointRestart checkpoints_;
  std::vector<double> joined_;  // per plan node: when its processes started where it runs
  std::vector<char> pending_;   // per plan node: its ranks wait for their state
  std::vector<char> moved_;     // per plan node: its groups wait for their communicators
};

}  // namespace failsim::sim
