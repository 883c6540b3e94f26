// The coordination service (the study used ZooKeeper): who the primary parameter server of each
// shard is now, and which workers are live, as far as the system knows. Failures reach it only
// after the detection timeout (failure_injector.cpp); workers ask it where to send requests after
// one timed out. It lives on the observer host, which never fails.
#pragma once

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <vector>

namespace failsim::sim {

class Endpoint;

class Coordinator {
 public:
  Coordinator(int num_workers, int num_shards);

  /// The endpoint workers use for shard `shard` (its primary server or its store), nullptr while
  /// none is up. `epoch` grows with every change of that shard's endpoint.
  Endpoint* primary(int shard) const { return primaries_[static_cast<std::size_t>(shard)]; }
  std::int64_t epoch(int shard) const { return epochs_[static_cast<std::size_t>(shard)]; }

  /// The first primary of `shard`, before the simulation runs (no actor can be waiting yet).
  void set_initial_primary(int shard, Endpoint* server) {
    primaries_[static_cast<std::size_t>(shard)] = server;
  }
  /// A new primary of `shard` is up: wakes every actor waiting for one.
  void set_primary(int shard, Endpoint* server);
  /// The failure of `shard`'s primary was detected: none until set_primary.
  void clear_primary(int shard);
  /// An elastic job resized (job.hpp) to `num_shards` shards: none has a primary yet, and every
  /// epoch is newer than any before, so no worker takes an old answer for a new shard's. Only
  /// when no worker process is running (a resize stops them all).
  void reshape(int num_shards);
  /// Blocks the calling actor until a primary of `shard` of an epoch newer than `seen` is up;
  /// returns it.
  Endpoint* wait_for_primary(int shard, std::int64_t seen);

  /// Workers the system believes live (failures count only once detected).
  bool worker_live(int w) const { return live_[static_cast<std::size_t>(w)]; }
  /// Their number, kept as they change (a sync round asks at every gradient).
  int live_workers() const { return live_count_; }
  void set_worker_live(int w, bool live);

 private:
  std::vector<Endpoint*> primaries_;
  std::vector<std::int64_t> epochs_;
  std::vector<bool> live_;
  int live_count_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
};

}  // namespace failsim::sim
