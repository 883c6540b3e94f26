// Per-step quorum (TorchFT; docs/cluster.md, "Per-step quorum"): the data-parallel replicas form
// replica groups of recovery.quorum.group_replicas each. Every step starts with a quorum of the
// live groups (its latency), and a reconfiguration of the process groups when its members
// changed. A failed group is dropped: the others go on at once with a smaller global batch (the
// step's mean gradient is over their batches only), nothing is rolled back and nobody restarts.
// A repaired group restarts its processes, joins a later quorum and copies a live peer's state
// over the network during that step (the live groups' update waits for the copy); it takes part
// in the steps after. Only when every group is down is the state lost: the job restarts from
// scratch (there is no checkpoint).
#pragma once

#include <optional>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/job/replica_math.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/recovery/recovery.hpp"

namespace failsim::sim {

class PerStepQuorum : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  Interrupt before_step(CollectiveJob& job) override;
  Interrupt before_update(CollectiveJob& job, const StepSpan& span) override;
  Interrupt after_step(CollectiveJob& job) override;
  bool network_busy() const override { return heal_.has_value(); }
  std::optional<double> detected_at(const CollectiveJob& job) const override;
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override;

 private:
  /// Whether group k runs under `a` (its replicas are active).
  bool active(const Assignment& a, int k) const;
  /// The platform nodes of group k's ranks under the job's assignment.
  std::vector<int> nodes_of(const CollectiveJob& job, int k) const;
  /// Whether one of group k's nodes failed since it joined.
  bool failed(const CollectiveJob& job, int k) const;
  /// When group k, not running, can join a quorum: its nodes are back and its processes
  /// started (infinity: a node is down for good).
  double ready_at(const CollectiveJob& job, int k) const;
  /// `a` with group k running or not; streams taken only by running groups not joining.
  void set_group(Assignment& a, int k, bool on) const;
  void set_streams(Assignment& a) const;
  /// The groups to wait for so that `needed` groups run: the earliest ready first.
  std::vector<int> earliest_ready(const CollectiveJob& job, int needed) const;
  /// Waits until `groups` are back (repair_wait) and their processes started (restart).
  Interrupt wait_for_groups(CollectiveJob& job, const std::vector<int>& groups);
  /// Takes the failed groups and those without the state yet out of the quorum.
  void drop_failed(CollectiveJob& job);
  /// Every group is down: the state is gone, the job restarts from version 0.
  bool restart_from_scratch(CollectiveJob& job);
  /// The copy of a live peer's state to every joining rank.
  std::vector<Flow> heal_flows(CollectiveJob& job) const;

  int groups_ = 0;
  int per_group_ = 1;
  std::optional<ReplicaMath::State> initial_;  // what a restart from scratch loads
  std::vector<double> since_;                  // per group: when it last joined
  std::vector<int> joining_;                   // groups in the quorum that have no state yet
  std::optional<FlowSet> heal_;                // their copy, during the step it runs in
  bool reconfigure_ = false;  // the quorum changed: the next one reconfigures the groups
};

}  // namespace failsim::sim
