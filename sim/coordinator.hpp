// The coordination service (the study used ZooKeeper): who the primary parameter server is now,
// and which workers are live, as far as the system knows. Failures reach it only after the
// detection timeout (failure_injector.cpp); workers ask it where to send requests after one
// timed out. It lives on the observer host, which never fails.
#pragma once

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <vector>

namespace failsim::sim {

class Endpoint;

class Coordinator {
 public:
  explicit Coordinator(int num_workers);

  /// The endpoint workers use (the primary server or the store), nullptr while none is up. `epoch`
  /// grows with every change.
  Endpoint* primary() const { return primary_; }
  std::int64_t epoch() const { return epoch_; }

  /// The first primary, before the simulation runs (no actor can be waiting yet).
  void set_initial_primary(Endpoint* server) { primary_ = server; }
  /// A new primary is up: wakes every actor waiting for one.
  void set_primary(Endpoint* server);
  /// The primary's failure was detected: no primary until set_primary.
  void clear_primary();
  /// Blocks the calling actor until a primary of an epoch newer than `seen` is up; returns it.
  Endpoint* wait_for_primary(std::int64_t seen);

  /// Workers the system believes live (failures count only once detected).
  bool worker_live(int w) const { return live_[static_cast<std::size_t>(w)]; }
  int live_workers() const;
  void set_worker_live(int w, bool live) { live_[static_cast<std::size_t>(w)] = live; }

 private:
  Endpoint* primary_ = nullptr;
  std::int64_t epoch_ = 0;
  std::vector<bool> live_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
};

}  // namespace failsim::sim
