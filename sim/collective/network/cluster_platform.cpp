// Builds the collective platform: the checks every topology shares, the topology's fabric
// (topology/topology.hpp, by platform.topology.kind), the file system's routes and the
// coordinator.
#include "sim/collective/network/cluster_platform.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include <simgrid/s4u.hpp>

#include "input/interrupt.hpp"
#include "sim/collective/network/topology/platform_checks.hpp"
#include "sim/collective/network/topology/topology.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

void use_cluster_network_model(sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
}

namespace {

/// The checks of what every topology builds alike: the nodes, their accelerators and NICs, the
/// file system. The topology's own settings are its room's check().
void check(const ClusterPlatformConfig& config) {
  const NodeSpec& node = config.node;
  platform_checks::at_least_one(config.nodes, "nodes");
  if (config.spares < 0) {
    throw std::invalid_argument(
        fmt::format("cluster platform: spares must be >= 0, found {}", config.spares));
  }
  platform_checks::at_least_one(node.accelerators, "accelerators per node");
  platform_checks::at_least_one(node.nics, "nics");
  platform_checks::positive(node.accelerator_speed, "accelerator_speed");
  platform_checks::positive(node.intra_bandwidth, "intra_bandwidth");
  platform_checks::positive(node.nic_bandwidth, "nic_bandwidth");
  platform_checks::positive(config.file_system.write_bandwidth, "file system write_bandwidth");
  platform_checks::positive(config.file_system.read_bandwidth, "file system read_bandwidth");
  platform_checks::latency(node.intra_latency, "intra_latency");
  platform_checks::latency(node.nic_latency, "nic_latency");
  platform_checks::latency(config.file_system.latency, "file system latency");
}

}  // namespace

ClusterPlatform build_cluster_platform(sg4::Engine& engine, const ClusterPlatformConfig& config) {
  check(config);
  check_topology(config);
  const int nodes = config.platform_nodes();  // the job's and the spares
  ClusterPlatform out;
  out.accelerators_per_node = config.node.accelerators;

  sg4::NetZone* root = sg4::create_full_zone("cluster");
  const TopologyNodes fabric = build_topology(engine, root, config, out);

  // The file system: writes come in through one link, reads go out through another.
  sg4::NetZone* fs_zone = sg4::create_star_zone("file-system")->set_parent(root);
  NetPoint* fs_gateway = fs_zone->create_router("file-system-gateway");
  out.file_system = fs_zone->create_host("file-system", 1.0);  // stores, never computes
  sg4::Link* write = fs_zone->create_link("file-system-write", config.file_system.write_bandwidth)
                         ->set_latency(config.file_system.latency);
  sg4::Link* read = fs_zone->create_link("file-system-read", config.file_system.read_bandwidth)
                        ->set_latency(config.file_system.latency);
  write->seal();
  read->seal();
  fs_zone->add_route(out.file_system->get_netpoint(), nullptr, nullptr, nullptr,
                     {sg4::LinkInRoute(read)}, false);
  fs_zone->add_route(nullptr, out.file_system->get_netpoint(), nullptr, nullptr,
                     {sg4::LinkInRoute(write)}, false);
  fs_zone->seal();

  // Node n <-> file system: bypass routes of the root through node n's NIC link.
  for (int n = 0; n < nodes; ++n) {
    input::poll_interrupt(n, nodes, "routing the nodes to the file system", "node", 256);
    const auto i = static_cast<std::size_t>(n);
    root->add_bypass_route(fabric.zones[i], fs_zone->get_netpoint(), fabric.gateways[i], fs_gateway,
                           {sg4::LinkInRoute(out.nic_up[i])});
    root->add_bypass_route(fs_zone->get_netpoint(), fabric.zones[i], fs_gateway, fabric.gateways[i],
                           {sg4::LinkInRoute(out.nic_down[i])});
  }

  sg4::NetZone* coordinator_zone = sg4::create_empty_zone("coordinator")->set_parent(root);
  out.coordinator = coordinator_zone->create_host("coordinator", 1.0);
  coordinator_zone->seal();
  root->seal();

  return out;
}

}  // namespace failsim::sim
