// The hosts and links of a built collective platform (ClusterPlatform): what the platform builder
// (cluster_platform.hpp) and the topologies it dispatches to (topology/topology.hpp) fill in, and
// what the collectives, the step network and the job use. A header of its own so that the
// topologies fill it without depending on the builder that calls them.
#pragma once

#include <cstddef>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
}  // namespace simgrid::s4u

namespace failsim::sim {

/// The hosts (and the links a failure may cut) of a built cluster.
struct ClusterPlatform {
  /// One host per accelerator, node-major: node n, local index g is accelerators[n * G + g].
  /// Named "node-<n>-acc-<g>"; speed = NodeSpec::accelerator_speed.
  std::vector<simgrid::s4u::Host*> accelerators;
  int accelerators_per_node = 0;  ///< G
  /// Per node, the direction of its aggregated NIC link towards its leaf switch (and towards the
  /// file system) and the one back.
  std::vector<simgrid::s4u::Link*> nic_up;
  std::vector<simgrid::s4u::Link*> nic_down;
  /// The parallel file system, "file-system": writes reach it through the link
  /// "file-system-write" (write_bandwidth), reads leave it through "file-system-read".
  simgrid::s4u::Host* file_system = nullptr;
  /// "coordinator", for the driver actor: a host without any link or route, so nothing it does
  /// loads the network. It must not send: flows are started from it with Comm::sendto_async
  /// between other hosts (collectives.hpp).
  simgrid::s4u::Host* coordinator = nullptr;
  // The fat-tree's (topology/fat_tree/fat_tree.hpp); 0 for another topology.
  int leaves = 0;         ///< leaf switches: ceil(nodes / nodes_per_leaf)
  int padding_slots = 0;  ///< empty node slots of the last leaf (leaves x nodes_per_leaf - nodes)
  double uplink_bandwidth = 0.0;  ///< bytes/s of one leaf-spine link, after resolving 0

  simgrid::s4u::Host* accelerator(int node, int local) const {
    return accelerators[static_cast<std::size_t>(node * accelerators_per_node + local)];
  }
};

}  // namespace failsim::sim
