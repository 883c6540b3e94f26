// The fat-tree topology (platform.topology.kind "fat-tree", docs/cluster.md "Platform and
// network"): the nodes joined by a two-level leaf-spine tree, routed by the root zone of
// fabric_zone.hpp; a line of topologies.def.
#pragma once

#include "sim/collective/network/topology/topology.hpp"

namespace failsim::sim::fat_tree {

/// Refuses (std::invalid_argument) nodes_per_leaf, spines or uplinks < 1, a negative
/// uplink_bandwidth and a switch_latency < 0.
void check(const ClusterPlatformConfig& config);

/// The root zone "cluster" (FabricZone) of a two-level fat-tree, the nodes under leaf switches of
/// nodes_per_leaf (node n under leaf n / nodes_per_leaf): node to leaf switch by one split-duplex
/// link of nics x nic_bandwidth and nic_latency (the NICs aggregated), leaf to each spine by
/// `uplinks` split-duplex links of uplink_bandwidth (0: nodes_per_leaf x nics x nic_bandwidth /
/// (spines x uplinks), non-blocking) and switch_latency. Routes are destination-mod-k, as
/// SimGrid's fat-tree {2, {nodes_per_leaf, leaves}, {1, spines}, {1, uplinks}} routes them. Sets
/// out.leaves, out.padding_slots and out.uplink_bandwidth.
///
/// When the platform's nodes are not a multiple of nodes_per_leaf, the last leaf has empty slots
/// (padding): the non-blocking uplink bandwidth still counts nodes_per_leaf nodes. Throws
/// std::logic_error if `engine` already holds a zone (this one must be the root), and
/// input::Interrupted as build_topology() says.
PlatformZone* build(simgrid::s4u::Engine& engine, const ClusterPlatformConfig& config,
                    ClusterPlatform& out);

}  // namespace failsim::sim::fat_tree
