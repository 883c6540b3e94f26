// Checkpoint-restart to the parallel file system (docs/cluster.md, "Checkpoint-restart"): a
// checkpoint after every `every_steps`-th step, blocking or as a snapshot written in the
// background; after a failure, a rollback to the last durable checkpoint, a wait for the failed
// nodes, a job restart and the checkpoint's load. Its pieces (the durable checkpoint, the write
// under way, the rollback, the load) are public for the designs composed on it (a resume on
// another layout, universal_checkpoint.hpp).
#pragma once

#include <optional>

#include "sim/collective/job/replica_math.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/tracked_flows.hpp"
#include "sim/collective/recovery/recovery.hpp"

namespace failsim::sim {

class CheckpointRestart : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  void poll(CollectiveJob& job) override;
  Interrupt after_step(CollectiveJob& job) override;
  std::int64_t next_action_version(const CollectiveJob& job) const override;
  bool network_busy() const override { return persisting_.has_value(); }
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override;

  // ---- The pieces, for designs composed on checkpoint-restart ---------------------------------
  /// The last durable checkpoint's version (0: none, a restart starts from scratch) and how
  /// many data-parallel replicas wrote it (ZeRO shards it over them).
  std::int64_t durable_version() const { return durable_.version; }
  int durable_replicas() const { return durable_.replicas; }
  /// Whether a checkpoint falls due after the step that made the current version.
  static bool due(const CollectiveJob& job);
  /// Every rank stopped: drops the write under way and rolls back to the durable checkpoint.
  void roll_back(CollectiveJob& job);
  /// Drops the write under way, if any (its writers' processes died): it never becomes durable.
  void drop_write();
  /// Waits for the write under way, if any (checkpoint_stall), and makes it durable.
  Interrupt flush(CollectiveJob& job);
  /// Reads the durable checkpoint with `reads` (checkpoint_load); nothing for version 0.
  /// FAILURE (the due outages taken) or STOP when cut short.
  Interrupt load(CollectiveJob& job, const TrackedFlows& reads);

 private:
  struct Checkpoint {
    std::int64_t version = 0;
    int replicas = 0;                         // the active replicas that wrote it
    std::optional<ReplicaMath::State> state;  // none for a time-only run
  };
  /// A snapshot checkpoint whose write is still going on in the background.
  struct Persisting {
    Checkpoint checkpoint;
    FlowSet writes;
  };
  Interrupt checkpoint(CollectiveJob& job);
  /// Makes a checkpoint durable: the ledger commits the steps up to it.
  void make_durable(CollectiveJob& job, Checkpoint checkpoint);

  Checkpoint durable_;
  std::optional<Persisting> persisting_;
};

}  // namespace failsim::sim
