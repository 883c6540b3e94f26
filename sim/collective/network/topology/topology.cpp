// The dispatch by platform.topology.kind to the topologies' rooms (topologies.def), and a node's
// zone, which every topology builds alike.
#include "sim/collective/network/topology/topology.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <simgrid/s4u.hpp>

#include "input/interrupt.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

void check_topology(const ClusterPlatformConfig& config) {
  switch (config.topology.kind) {
#define FAILSIM_TOPOLOGY(KIND, room, spelling) \
  case TopologyKind::KIND:                     \
    return room::check(config);
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
  }
  throw std::logic_error("cluster platform: a topology kind outside topologies.def");
}

TopologyNodes build_topology(sg4::Engine& engine, sg4::NetZone* root,
                             const ClusterPlatformConfig& config, ClusterPlatform& out) {
  switch (config.topology.kind) {
#define FAILSIM_TOPOLOGY(KIND, room, spelling) \
  case TopologyKind::KIND:                     \
    return room::build(engine, root, config, out);
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
  }
  throw std::logic_error("cluster platform: a topology kind outside topologies.def");
}

std::pair<NetPoint*, NetPoint*> make_node_zone(sg4::NetZone* parent,
                                               const ClusterPlatformConfig& config, int n,
                                               ClusterPlatform& out) {
  sg4::NetZone* zone = sg4::create_star_zone(fmt::format("node-{}", n))->set_parent(parent);
  NetPoint* node_switch = zone->create_router(fmt::format("node-{}-switch", n));
  for (int g = 0; g < config.node.accelerators; ++g) {
    // At each node's first (a node's zone takes longer as there are more), and every 512 of a
    // node of up to 65,536: SimGrid searches every zone's names for each host and link.
    input::poll_interrupt(1LL * n * config.node.accelerators + g,
                          1LL * config.platform_nodes() * config.node.accelerators,
                          "creating the nodes' accelerators", "accelerator",
                          std::min(config.node.accelerators, 512));
    const std::string name = fmt::format("node-{}-acc-{}", n, g);
    sg4::Host* host = zone->create_host(name, config.node.accelerator_speed);
    sg4::Link* link = zone->create_split_duplex_link(name + "-link", config.node.intra_bandwidth)
                          ->set_latency(config.node.intra_latency);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {{link, sg4::LinkInRoute::Direction::UP}}, true);
    out.accelerators.push_back(host);
  }
  zone->seal();
  return {zone->get_netpoint(), node_switch};
}

}  // namespace failsim::sim
