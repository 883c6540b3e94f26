// Which part of the cluster runs a collective job now (docs/cluster.md, "Assignment"). At the
// start every data-parallel replica runs on the plan's nodes and a step consumes one batch per
// replica. Recovery designs change it: a per-step quorum drops a failed replica and the others go
// on with a smaller global batch; a resume on another layout keeps fewer replicas that each
// accumulate several batches; a spare pool moves a failed node's ranks to a spare. The job
// measures a step once per assignment (step_network.hpp; by parts, those of a shape measured under
// another assignment reused: measured_times.hpp) and counts a failure only when it hits
// a node in use. Engine-free.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "sim/scenario/collective/plan.hpp"

namespace failsim::sim {

struct Assignment {
  /// Per data-parallel replica d of the plan: whether it runs.
  std::vector<bool> active;
  /// Per node n of the plan: the platform node its ranks run on (n itself unless a spare took
  /// its place; a platform may have more nodes than the plan, the spares).
  std::vector<int> node;
  /// The data streams (one per replica of the plan, ReplicaMath) a step takes one batch from,
  /// ascending: the active replicas', or every replica's when the survivors accumulate the
  /// missing replicas' batches to keep the global batch.
  std::vector<int> streams;
  /// The data-parallel collectives of a step when a design replaces the plan's (nullopt: the
  /// plan's dp_collectives, which the last backward pass hides in part when layout.overlap
  /// says so). A design's own run after the step's update, none of them hidden: DiLoCo's inner
  /// steps have none, its outer steps an all-reduce of the parameters.
  std::optional<std::vector<DataParallelCollective>> data_parallel;

  /// Every replica on its own node, one batch each.
  static Assignment full(const CollectivePlan& plan) {
    Assignment a;
    a.active.assign(static_cast<std::size_t>(plan.dp), true);
    a.node.resize(
        plan.node_of_rank.empty() ? 0 : static_cast<std::size_t>(plan.node_of_rank.back()) + 1);
    for (std::size_t n = 0; n < a.node.size(); ++n) a.node[n] = static_cast<int>(n);
    for (int d = 0; d < plan.dp; ++d) a.streams.push_back(d);
    return a;
  }

  int active_replicas() const {
    return static_cast<int>(std::count(active.begin(), active.end(), true));
  }
  /// Batches the busiest active replica takes in a step: ceil(streams / active replicas). Its
  /// micro-batches run in one pipeline schedule (gradient accumulation), rounds x m of them.
  int rounds() const {
    const int a = active_replicas();
    return a == 0 ? 0 : (static_cast<int>(streams.size()) + a - 1) / a;
  }
  /// The platform node that rank `rank` of the plan runs on.
  int node_of(const CollectivePlan& plan, int rank) const {
    return node[static_cast<std::size_t>(plan.node_of_rank[static_cast<std::size_t>(rank)])];
  }
  /// Whether rank `rank` runs (its replica is active).
  bool runs(const CollectivePlan& plan, int rank) const {
    return active[static_cast<std::size_t>(plan.coordinates(rank).d)];
  }
  /// Per platform node n < `platform_nodes`: whether an active rank runs on it. A plan node's
  /// ranks are its G consecutive ones (CollectivePlan::node_of_rank), so this looks at a rank or
  /// so per node, not at every rank: a spare swap asks it of 100,352 ranks' assignments.
  std::vector<char> in_use(const CollectivePlan& plan, std::size_t platform_nodes) const {
    std::vector<char> used(platform_nodes, 0);
    const int g = plan.accelerators_per_node;
    for (std::size_t p = 0; p < node.size(); ++p) {
      const int first = static_cast<int>(p) * g;
      for (int r = first; r < std::min(first + g, plan.ranks()); ++r) {
        if (!runs(plan, r)) continue;
        used[static_cast<std::size_t>(node[p])] = 1;
        break;
      }
    }
    return used;
  }
  /// The platform nodes of the active ranks, ascending, each once.
  std::vector<int> nodes_in_use(const CollectivePlan& plan) const {
    const std::size_t platform_nodes =
        node.empty() ? 0
                     : static_cast<std::size_t>(*std::max_element(node.begin(), node.end())) + 1;
    const std::vector<char> used = in_use(plan, platform_nodes);
    std::vector<int> out;
    for (std::size_t n = 0; n < used.size(); ++n) {
      if (used[n] != 0) out.push_back(static_cast<int>(n));
    }
    return out;
  }

  bool operator==(const Assignment&) const = default;
};

}  // namespace failsim::sim
