// Builds the collective platform: the checks every topology shares, the topology's root zone
// (topology/topology.hpp, by platform.topology.kind), the file system and the coordinator.
#include "sim/collective/network/cluster_platform.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include <simgrid/s4u.hpp>

#include "input/interrupt.hpp"
#include "sim/collective/network/topology/platform_checks.hpp"
#include "sim/collective/network/topology/topology.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

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
  ClusterPlatform out;
  out.accelerators_per_node = config.node.accelerators;

  PlatformZone* root = build_topology(engine, config, out);
  sg4::NetZone* zone = root->get_iface();

  // The file system: writes come in through one link, reads go out through another.
  out.file_system = zone->create_host("file-system", 1.0);  // stores, never computes
  sg4::Link* write = zone->create_link("file-system-write", config.file_system.write_bandwidth)
                         ->set_latency(config.file_system.latency);
  sg4::Link* read = zone->create_link("file-system-read", config.file_system.read_bandwidth)
                        ->set_latency(config.file_system.latency);
  root->add_file_system(out.file_system, write, read);

  out.coordinator = zone->create_host("coordinator", 1.0);  // no route: it never sends
  // Sealing is one SimGrid call over every host and link that cannot look for a signal itself
  // (about 0.6 s at 655,360 hosts, most of it SimGrid listing the engine's hosts to find this
  // zone's; the hosts' own sealing is done as they are built): look on both sides of it, and
  // failsim run keeps an answer guard around it (run_collective.cpp).
  input::throw_if_interrupted("before sealing the platform");
  zone->seal();
  input::throw_if_interrupted("after sealing the platform");

  return out;
}

}  // namespace failsim::sim
