// The seam between the collective platform and its topologies (topologies.def): what a topology
// gets from build_cluster_platform and hands back (the root zone, platform_zone.hpp), and the
// dispatch by platform.topology.kind. A topology is a room of its own,
// topology/<room>/, with check() and build(); adding one is a room and a line of the list, not
// an edit here or in the platform builder.
#pragma once

#include "sim/collective/network/cluster_hosts.hpp"
#include "sim/collective/network/topology/platform_zone.hpp"
#include "sim/scenario/collective/config.hpp"

namespace simgrid::s4u {
class Engine;
}  // namespace simgrid::s4u

namespace failsim::sim {

/// Throws std::invalid_argument when `config.topology` is not one its kind can build (the kind's
/// check()). Called before anything is built, so a refusal leaves the engine without a platform.
void check_topology(const ClusterPlatformConfig& config);

/// Builds the platform's root zone "cluster" of `config.topology.kind` in `engine`, which holds
/// no zone yet (the kind's build()): every platform node's accelerators "node-<n>-acc-<g>"
/// (speed accelerator_speed, appended to out.accelerators in node order), each with a
/// split-duplex link "<host>-link" of intra_bandwidth and intra_latency to its node's switch,
/// the links between nodes, out.nic_up and out.nic_down for every node (the links the file
/// system's routes and a NIC failure use), and the topology's own fields of `out`. Returns the
/// zone unsealed. Throws input::Interrupted if a signal was caught (input/interrupt.hpp), polled
/// every few hundred nodes, so that a large platform's construction can be stopped.
PlatformZone* build_topology(simgrid::s4u::Engine& engine, const ClusterPlatformConfig& config,
                             ClusterPlatform& out);

// Each room's part of the dispatch: failsim::sim::<room>::check() and build(), as above.
#define FAILSIM_TOPOLOGY(KIND, room, spelling)                                           \
  namespace room {                                                                       \
  void check(const ClusterPlatformConfig& config);                                       \
  PlatformZone* build(simgrid::s4u::Engine& engine, const ClusterPlatformConfig& config, \
                      ClusterPlatform& out);                                             \
  }
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY

}  // namespace failsim::sim
