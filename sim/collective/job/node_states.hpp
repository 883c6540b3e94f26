// The platform nodes' state in a collective job: which are down and until when, when each last
// lost its host memory, and the outages of the failure schedule (failure_schedule.hpp) taken so
// far. The job takes the outages as its waits reach them and decides what they mean for training;
// the recovery designs read the state (job.nodes()) to decide where and when training resumes.
// Engine-free: the caller says what time it is.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "sim/collective/job/failure_schedule.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// A time span [begin, end) in simulated seconds (end infinity while it lasts).
using TimeSpan = std::pair<double, double>;

class NodeStates {
 public:
  /// Every one of `platform_nodes` up, and the scenario's failures (failures, platform, seed).
  NodeStates(const Scenario& scenario, int platform_nodes);

  /// Platform nodes (the plan's, then any spares).
  int size() const { return static_cast<int>(down_until_.size()); }
  /// Whether node `n` is up at `now`.
  bool up(int n, double now) const { return back(n) <= now; }
  /// When node `n` comes back (infinity: never; a time not after now: it is up).
  double back(int n) const { return down_until_[static_cast<std::size_t>(n)]; }
  /// When node `n` last lost its host memory (an outage with host_memory_lost), or -infinity: a
  /// copy kept there since survives.
  double host_memory_lost_at(int n) const { return memory_lost_at_[static_cast<std::size_t>(n)]; }
  /// When node `n` was down, one span per outage that hit it (they may overlap).
  const std::vector<TimeSpan>& down_spans(int n) const {
    return down_spans_[static_cast<std::size_t>(n)];
  }

  /// The earliest outage not taken yet (nullptr: none will ever come).
  const Outage* next_outage() const { return schedule_.next(); }
  /// Takes the earliest outage when it is due by `now`, marking its nodes down; nullopt when
  /// none is.
  std::optional<Outage> take_due(double now);
  /// The failures' schedule (the heterogeneous processes' component rates).
  const FailureSchedule& schedule() const { return schedule_; }
  /// Which of failures.events were taken (the others are recorded as not injected).
  const std::vector<bool>& events_injected() const { return events_injected_; }

 private:
  FailureSchedule schedule_;
  std::vector<double> down_until_;
  std::vector<double> memory_lost_at_;
  std::vector<std::vector<TimeSpan>> down_spans_;
  std::vector<bool> events_injected_;
};

}  // namespace failsim::sim
