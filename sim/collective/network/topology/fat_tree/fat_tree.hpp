// The fat-tree topology (platform.topology.kind "fat-tree", docs/cluster.md "Platform and
// network"): the nodes joined by SimGrid's two-level fat-tree zone (create_fatTree_zone), a line
// of topologies.def.
#pragma once

#include "sim/collective/network/topology/topology.hpp"

namespace failsim::sim::fat_tree {

/// Refuses (std::invalid_argument) nodes_per_leaf, spines or uplinks < 1, a negative
/// uplink_bandwidth and a switch_latency < 0.
void check(const ClusterPlatformConfig& config);

/// A fat-tree zone "fabric" of 2 levels under `root`, the nodes its leaves (SimGrid's
/// FatTreeParams {2, {nodes_per_leaf, leaves}, {1, spines}, {1, uplinks}}): node to leaf switch
/// by one split-duplex link of nics x nic_bandwidth and nic_latency (the NICs aggregated), leaf to
/// each spine by `uplinks` split-duplex links of uplink_bandwidth (0: nodes_per_leaf x nics x
/// nic_bandwidth / (spines x uplinks), non-blocking) and switch_latency. Routes are SimGrid's
/// destination-mod-k. Sets out.leaves, out.padding_slots and out.uplink_bandwidth.
///
/// When the platform's nodes are not a multiple of nodes_per_leaf, the last leaf is padded with
/// empty slots (routers "padding-<i>" nothing sends to), since SimGrid's fat-tree needs
/// nodes_per_leaf x leaves leaves; the non-blocking uplink bandwidth still counts nodes_per_leaf
/// nodes. SimGrid's fat-tree allows one per process.
TopologyNodes build(simgrid::s4u::Engine& engine, simgrid::s4u::NetZone* root,
                    const ClusterPlatformConfig& config, ClusterPlatform& out);

}  // namespace failsim::sim::fat_tree
