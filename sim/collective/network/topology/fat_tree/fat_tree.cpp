#include "sim/collective/network/topology/fat_tree/fat_tree.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include <simgrid/s4u.hpp>

#include "sim/collective/network/topology/fat_tree/fabric_zone.hpp"
#include "sim/collective/network/topology/platform_checks.hpp"
#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(fat_tree, failsim, "the collective platform's fat-tree");

namespace failsim::sim::fat_tree {

namespace sg4 = simgrid::s4u;

void check(const ClusterPlatformConfig& config) {
  const TopologyConfig& topology = config.topology;
  platform_checks::at_least_one(topology.nodes_per_leaf, "nodes_per_leaf");
  platform_checks::at_least_one(topology.spines, "spines");
  platform_checks::at_least_one(topology.uplinks, "uplinks");
  if (topology.uplink_bandwidth < 0.0) {
    platform_checks::positive(topology.uplink_bandwidth, "uplink_bandwidth");
  }
  platform_checks::latency(topology.switch_latency, "switch_latency");
}

PlatformZone* build(sg4::Engine& engine, const ClusterPlatformConfig& config,
                    ClusterPlatform& out) {
  if (engine.get_netzone_root() != nullptr) {
    throw std::logic_error("cluster platform: the engine already holds a platform");
  }
  const int nodes = config.platform_nodes();  // the job's and the spares
  const TopologyConfig& topology = config.topology;
  out.leaves = (nodes + topology.nodes_per_leaf - 1) / topology.nodes_per_leaf;
  out.padding_slots = out.leaves * topology.nodes_per_leaf - nodes;
  const double node_bandwidth = config.node.nics * config.node.nic_bandwidth;
  out.uplink_bandwidth = topology.uplink_bandwidth > 0.0
                             ? topology.uplink_bandwidth
                             : topology.nodes_per_leaf * node_bandwidth /
                                   (static_cast<double>(topology.spines) * topology.uplinks);

  auto* zone = new FabricZone("cluster", config, out.leaves, out.uplink_bandwidth);
  for (int n = 0; n < nodes; ++n) zone->add_node(n, out);  // looks for signals as it goes
  zone->add_uplinks();

  FAILSIM_VERBOSE(
      "cluster: {} nodes x {} accelerators, {} leaves of {} nodes ({} padding slots), {} spines "
      "x {} uplinks of {} B/s each",
      nodes, config.node.accelerators, out.leaves, topology.nodes_per_leaf, out.padding_slots,
      topology.spines, topology.uplinks, out.uplink_bandwidth);
  return zone;
}

}  // namespace failsim::sim::fat_tree
