// Checkpoint-restart to the parallel file system (docs/cluster.md, "Checkpoint-restart"): a
// checkpoint after every `every_steps`-th step, blocking or as a snapshot written in the
// background; after a failure, a rollback to the last durable checkpoint, a wait for the failed
// nodes, a job restart and the checkpoint's load.
#pragma once

#include <optional>

#include "sim/collective/flows.hpp"
#include "sim/collective/recovery.hpp"
#include "sim/collective/replica_math.hpp"

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

 private:
  struct Checkpoint {
    std::int64_t version = 0;
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
