// The seam between the collective platform and its topologies (topologies.def): what a topology
// gets from build_cluster_platform and hands back, the one thing every topology builds alike (a
// node's zone), and the dispatch by platform.topology.kind. A topology is a room of its own,
// topology/<room>/, with check() and build(); adding one is a room and a line of the list, not
// an edit here or in the platform builder.
#pragma once

#include <utility>
#include <vector>

#include "sim/collective/network/cluster_hosts.hpp"
#include "sim/scenario/collective/config.hpp"

namespace simgrid::s4u {
class Engine;
class NetZone;
}  // namespace simgrid::s4u
namespace simgrid::kernel::routing {
class NetPoint;
}  // namespace simgrid::kernel::routing

namespace failsim::sim {

/// The platform's nodes as a topology built them, indexed by platform node: each node's zone and
/// its gateway (the node's switch), the ends of the file system's bypass routes.
struct TopologyNodes {
  std::vector<simgrid::kernel::routing::NetPoint*> zones;
  std::vector<simgrid::kernel::routing::NetPoint*> gateways;
};

/// Throws std::invalid_argument when `config.topology` is not one its kind can build (the kind's
/// check()). Called before anything is built, so a refusal leaves the engine without a platform.
void check_topology(const ClusterPlatformConfig& config);

/// Builds the fabric of `config.topology.kind` under `root` (the kind's build()): every platform
/// node's zone (make_node_zone, node n's accelerators appended to out.accelerators in node
/// order), the links between nodes, out.nic_up and out.nic_down for every node (the links the
/// file system's routes and a NIC failure use), and the topology's own fields of `out`.
TopologyNodes build_topology(simgrid::s4u::Engine& engine, simgrid::s4u::NetZone* root,
                             const ClusterPlatformConfig& config, ClusterPlatform& out);

/// Node n's zone "node-<n>" under `parent`: a star whose centre is the node's switch (router
/// "node-<n>-switch", the zone's gateway); each accelerator "node-<n>-acc-<g>" (speed
/// accelerator_speed, appended to out.accelerators) has a split-duplex link "<host>-link" of
/// intra_bandwidth and intra_latency to it. Returns the zone's netpoint and the switch.
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> make_node_zone(
    simgrid::s4u::NetZone* parent, const ClusterPlatformConfig& config, int n,
    ClusterPlatform& out);

// Each room's part of the dispatch: failsim::sim::<room>::check() and build(), as above.
#define FAILSIM_TOPOLOGY(KIND, room, spelling)                                    \
  namespace room {                                                                \
  void check(const ClusterPlatformConfig& config);                                \
  TopologyNodes build(simgrid::s4u::Engine& engine, simgrid::s4u::NetZone* root,  \
                      const ClusterPlatformConfig& config, ClusterPlatform& out); \
  }
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY

}  // namespace failsim::sim
