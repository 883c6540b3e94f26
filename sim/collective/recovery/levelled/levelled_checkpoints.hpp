// Checkpoints kept at several levels, taken lazily (docs/cluster.md, "In-memory checkpoints" and
// "Lazy multi-level checkpoints"): the mechanism the in-memory design (in_memory.hpp) and the
// lazy multi-level design (multi_level.hpp) share; each says which levels it writes.
//
// After every `every_steps`-th step v the job captures the state of version v; every rank copies
// its share to its node's host memory while the next step's forward and backward run (the
// parameters do not change until its update), and that step's update waits for the copy if it
// has not finished. The other levels stream from host memory in the background, started with the
// copy: flows to the partner node's host memory, each node's local disk (a per-node bandwidth,
// no network), flows to the parallel file system. A level is complete when its writes end and
// the host copy they read from has ended. One checkpoint is written at a time: one due while the
// previous is still being written waits for it.
//
// After a failure, the job loads the newest version that every node in use can still get from
// some level, each node from the cheapest level it survives at: its own host memory, its
// partner's, its local disk, the file system.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective/job/replica_math.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/recovery/recovery.hpp"

namespace failsim::sim {

/// Which levels a design writes, and their speeds.
struct CheckpointLevels {
  std::int64_t every_steps = 1;      ///< a checkpoint after every n-th step, >= 1
  double host_copy_bandwidth = 0.0;  ///< bytes/s of each accelerator's copy to host and back
  /// The node (of the plan's, in a ring) that keeps a copy of node i's host memory: i +
  /// partner_offset; 0: no partner copy.
  int partner_offset = 0;
  /// Every n-th checkpoint is written to the parallel file system; 0: none is.
  std::int64_t file_system_every = 0;
  /// bytes/s of a node's local disk; 0: no local-disk level.
  double disk_write_bandwidth = 0.0;
  double disk_read_bandwidth = 0.0;
};

class LevelledCheckpoints : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  void poll(CollectiveJob& job) override;
  Interrupt before_update(CollectiveJob& job, const StepSpan& span) override;
  Interrupt after_step(CollectiveJob& job) override;
  std::int64_t next_action_version(const CollectiveJob& job) const override;
  bool network_busy() const override;
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override;

 protected:
  /// The design's levels, from its section of the scenario.
  virtual CheckpointLevels levels(const CollectiveJob& job) const = 0;

 private:
  static constexpr double NEVER = std::numeric_limits<double>::infinity();
  /// One version and when each of its levels was complete on every node (NEVER: not written
  /// there, not yet, or cut short by a failure).
  struct Snapshot {
    std::int64_t version = 0;
    std::optional<ReplicaMath::State> state;  // none for a time-only run
    double host = NEVER;
    double partner = NEVER;
    double disk = NEVER;
    double file_system = NEVER;
    /// The platform node of each plan node when the copies were made: a spare that took a
    /// node's place since holds none of its copies (host memory, local disk, partner copy).
    std::vector<int> nodes;
    /// Writes under way (flows), streaming from host memory.
    std::optional<FlowSet> partner_writes;
    std::optional<FlowSet> file_system_writes;
    bool complete = false;  // counted in counts().checkpoints

    bool writing() const { return partner_writes || file_system_writes; }
    /// When its copies to host memory and local disk end (those of them it has).
    double local_end() const;
    /// The same version and levels, without the writes.
    Snapshot copy() const;
  };
  /// Where a node gets a version from at a restart.
  enum class Source { HOST_MEMORY, PARTNER_MEMORY, LOCAL_DISK, FILE_SYSTEM };
  /// Its name in events ("host-memory", ...).
  static const char* name_of(Source source);
  struct Choice {
    const Snapshot* snapshot = nullptr;
    std::vector<Source> sources;  // per node of the plan
  };

  Interrupt checkpoint(CollectiveJob& job);
  /// Notes the writes that have ended (a level complete), and makes the file system's copy
  /// durable.
  void settle(CollectiveJob& job, Snapshot& s);
  /// Waits for the latest checkpoint's writes (checkpoint_stall).
  Interrupt finish_writes(CollectiveJob& job);
  /// Every rank stopped at `failed_at`: the writes under way are lost, and so is every level
  /// not complete by then.
  void cut_at(CollectiveJob& job, Snapshot& s, double failed_at);
  /// Where each node would load `s` from, or nullopt when a node can get it from nowhere.
  std::optional<std::vector<Source>> sources(const CollectiveJob& job, const Snapshot& s) const;
  /// The newest version every node can load (version 0, from scratch, when no other).
  Choice choose(const CollectiveJob& job) const;
  /// Rolls back to the choice's version and loads it (checkpoint_load).
  Interrupt load(CollectiveJob& job, const Choice& choice);
  void make_durable(CollectiveJob& job, const Snapshot& s);

  CheckpointLevels levels_;
  std::int64_t taken_ = 0;  // checkpoints taken, for file_system_every
  std::optional<Snapshot> latest_;
  std::optional<Snapshot> previous_;  // complete at its levels: the latest had to wait for it
  Snapshot durable_;                  // the newest on the file system (version 0: the start)
};

}  // namespace failsim::sim
