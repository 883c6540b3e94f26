// The spare pool of a collective job (docs/cluster.md, "Spare pool"): the platform nodes up and
// mapped by no plan node (the platform's spares, and nodes a spare replaced once they are
// repaired). The job moves a down node's ranks to a spare while it waits for its nodes; the pool
// tells when one of its down nodes comes back and how many node-seconds it stood idle.
// Engine-free: the caller says what time it is.
#pragma once

#include <set>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/job/node_states.hpp"
#include "sim/output/collective_summary.hpp"
#include "sim/output/recorder.hpp"

namespace failsim::sim {

class SparePool {
 public:
  /// Over the nodes of `nodes`, none mapped yet; swaps go to `recorder` and `counts`.
  SparePool(const NodeStates& nodes, Recorder& recorder, CollectiveCounts& counts);

  /// From `now` on the plan nodes map exactly the platform nodes of `assignment`.
  void map(const Assignment& assignment, double now);
  /// Moves the ranks of every node of `assignment` (the one last mapped) in use (`in_use`, per
  /// platform node) and down at `now` to a spare up, the lowest-numbered first, in `assignment`.
  /// Returns how many nodes it replaced.
  int swap_in(Assignment& assignment, const std::vector<char>& in_use, double now);
  /// When the first node of the pool down at `now` comes back (infinity: none will).
  double back(double now) const;
  /// How many nodes of the pool are up at `now`: the spares a swap could take.
  int up(double now) const;
  /// Node-seconds of the pool by `end`: platform nodes up and mapped by no plan node (paid for,
  /// idle).
  double node_seconds(double end) const;

 private:
  const NodeStates& nodes_;
  Recorder& recorder_;
  CollectiveCounts& counts_;
  std::vector<int> mapped_;  // per platform node, now: how many plan nodes map it
  std::vector<std::vector<TimeSpan>>
      mapped_spans_;  // per platform node: when a plan node mapped it
  // Kept per event (a swap maps one node and unmaps one): the platform nodes no plan node maps
  // (where swap_in and back() look, not at all 12,593 nodes of the AIReSim job), and the plan's
  // nodes as last mapped.
  std::set<int> unmapped_;
  std::vector<int> node_;
  /// Node `n`'s mapped span opens or closes now if it is mapped or not.
  void follow(int n, double now);
};

}  // namespace failsim::sim
