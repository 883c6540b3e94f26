// Several scenarios, one simulated prefix: a family of scenarios that differ only in their
// failures at a time (`failures.events` with `at`), and in consistency mode "sync" against
// "async", runs as one simulation up to the first such failure, or the first decision where sync
// and async act differently, that tells two of them apart. There the process forks, and each
// process goes on with the members that agree on it, until every process holds one member. (With
// one worker sync and async never act differently: the study's sync and async runs are one.) A
// simulation is a deterministic function of its scenario, so each member's results are those of its
// own run, byte for byte (tests/test_branching.cpp), while the shared prefix is computed once: a
// 2-kill run costs only what follows its second kill once its 1-kill sibling runs.
//
// Engine-free: the failure injector asks arrive() when a timed failure is due and fires it only
// if this process's members have it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

class Branching {
 public:
  /// A distinct timed failure of the family, with its position in each member's
  /// failures.events (nullopt: the member does not have it).
  struct TimedFailure {
    FailureEvent event;
    std::vector<std::optional<std::size_t>> index;  // per member
  };

  /// members[0] is the run's scenario, labels[i] names member i's file in errors. Throws
  /// InputError, at the first difference, unless every member equals members[0] in all but
  /// `name`, `description`, `output.directory`, its failures at a time and `consistency.mode`
  /// if both are "sync" or "async": same seed, same failures after an update (`at_update`, in
  /// the same order), same everything else. A family of one is a plain run.
  Branching(std::vector<Scenario> members, std::vector<std::string> labels);

  /// The family's distinct timed failures, members' lists merged in member order (for members[0]
  /// alone: its own timed failures in its order).
  const std::vector<TimedFailure>& timed_failures() const { return timed_; }

  /// Timed failure `k` is due. Splits this process's members by the failure's position in their
  /// lists (forking a process for every class but the first) and returns that position for the
  /// members this process keeps, or nullopt when they do not have it.
  std::optional<std::size_t> arrive(std::size_t k);

  /// How a sync round combines its gradients: the family's sync members' rule (they share it;
  /// an async update holds one gradient, which every rule applies alike).
  GradientCombine combine() const { return members_[sync_member()].consistency.combine; }
  /// Whether a member of this process trains in sync mode (workers then ask for the next round).
  bool may_sync() const;
  /// A decision where sync waits and async goes on (a pull for a round not applied yet, a round
  /// short of gradients): whether this process's members wait. A family mixing the two splits
  /// here: this process keeps the first member's mode, a child takes the other.
  bool sync_here();

  /// The run is over: forks a process for every member but the first of those this process still
  /// holds (they had the same failures up to the end) and returns the one member this process
  /// reports.
  std::size_t settle();

  const Scenario& member(std::size_t i) const { return members_[i]; }
  std::size_t size() const { return members_.size(); }
  /// Whether this process was forked from another (it should not print progress).
  bool forked() const { return forked_; }
  /// The processes this one forked; the caller waits for them (wait_for_children).
  const std::vector<pid_t>& children() const { return children_; }

 private:
  /// Forks: the child goes on with the members `mine`, this process with `rest`. Returns true
  /// in the child.
  bool split(std::vector<std::size_t> mine, const std::vector<std::size_t>& rest);
  /// The first member in sync mode (0 if none).
  std::size_t sync_member() const;

  std::vector<Scenario> members_;
  std::vector<TimedFailure> timed_;
  std::vector<std::size_t> group_;  // the members this process still stands for
  std::vector<pid_t> children_;
  bool forked_ = false;
};

/// Waits for every process in `children`; returns 0 if each exited 0, else the first non-zero
/// exit status (or 1 for a process killed by a signal).
int wait_for_children(const std::vector<pid_t>& children);

}  // namespace failsim::sim
