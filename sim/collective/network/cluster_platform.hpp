// The collective protocol's platform (docs/cluster.md, "Platform and network"): accelerator
// nodes joined by a topology of topology/topologies.def (the fat-tree), a parallel file system
// every accelerator reaches, and a coordinator host for the driver actor. It builds only; the
// collectives that run on it are in collectives.hpp, the flows they are made of in flows.hpp.
#pragma once

#include "sim/collective/network/cluster_hosts.hpp"
#include "sim/scenario/collective/config.hpp"

namespace simgrid::s4u {
class Engine;
}  // namespace simgrid::s4u

namespace failsim::sim {

/// The SimGrid settings under which the times of collectives.hpp are the documented formulas:
/// network/model:CM02 (max-min sharing, a flow takes latency + bytes / bandwidth; the default
/// LV08 multiplies latencies by 13.01 and bandwidths by 0.97 to mimic TCP),
/// network/crosstraffic:0 (no acknowledgement flow of 5% on the reverse direction) and
/// network/TCP-gamma:0 (no window bound gamma / (2 x latency) on a flow's rate, which would cap
/// a 10 us route below 210 GB/s). Call after creating the Engine, before building a platform.
void use_cluster_network_model(simgrid::s4u::Engine& engine);

/// Builds the cluster of `config` in `engine` (which must hold no platform yet).
///
/// One root zone "cluster" holds every host: the topology of config.topology.kind builds it
/// (topology/topologies.def) with every node's accelerators, and this adds the file system and
/// the coordinator (a zone per node made SimGrid's construction quadratic in the nodes;
/// topology/platform_zone.hpp). Inside node n each accelerator has a split-duplex link (one
/// direction each way, so a ring's send and receive on it do not share bandwidth) of
/// intra_bandwidth and intra_latency to the node's switch. The fat-tree
/// (topology/fat_tree/fat_tree.hpp) has 2 levels: node to leaf switch by one split-duplex link of
/// nics x nic_bandwidth and nic_latency (the NICs aggregated), leaf to each spine by `uplinks`
/// split-duplex links of uplink_bandwidth and switch_latency. So a route crosses, with the
/// latency it pays:
///   - inside a node:          2 accelerator links                      2 intra_latency
///   - nodes under one leaf:   + the two nodes' NIC links               + 2 nic_latency
///   - nodes under two leaves: + an uplink to a spine and one down      + 2 switch_latency
///
/// The file system: a host "file-system" reached from node n by the route accelerator link,
/// node n's NIC link, "file-system-write" (write_bandwidth, latency); and back by
/// "file-system-read" (read_bandwidth, latency), node n's NIC, the accelerator link: two links,
/// one per direction, so reads and writes do not share bandwidth while all writers share the
/// write link (and all readers the read one). Checkpoint traffic shares a node's NICs with its
/// collectives. The fabric's switches do not carry it. The coordinator has no route at all.
///
/// Throws std::invalid_argument on sizes SimGrid cannot build (nodes, accelerators, nics < 1, a
/// bandwidth <= 0, a latency < 0; then the topology's own, e.g. the fat-tree's nodes_per_leaf,
/// spines, uplinks < 1), before building anything; the scenario's checks are meant to refuse them
/// first.
ClusterPlatform build_cluster_platform(simgrid::s4u::Engine& engine,
                                       const ClusterPlatformConfig& config);

}  // namespace failsim::sim
