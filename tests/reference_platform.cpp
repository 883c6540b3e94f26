// The old collective platform (reference_platform.hpp), as sim/collective/network built it at
// commit b275d41: cluster_platform.cpp, topology.cpp's make_node_zone and the fat-tree room.
#include "reference_platform.hpp"

#include <fmt/core.h>

#include <charconv>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

namespace failsim::testing {

namespace sg4 = simgrid::s4u;
using sim::ClusterPlatform;
using sim::ClusterPlatformConfig;
using simgrid::kernel::routing::NetPoint;

namespace {

/// The (child, parent, serial) ids in the name SimGrid 3.32's FatTreeZone gives a link,
/// "link_from_<child>_<parent>_<serial>[_UP|_DOWN]"; false for any other name.
bool link_ends(std::string_view name, long& child, long& parent, long& serial) {
  constexpr std::string_view prefix = "link_from_";
  if (name.substr(0, prefix.size()) != prefix) return false;
  const char* end = name.data() + name.size();
  auto r = std::from_chars(name.data() + prefix.size(), end, child);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '_') return false;
  r = std::from_chars(r.ptr + 1, end, parent);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '_') return false;
  r = std::from_chars(r.ptr + 1, end, serial);
  return r.ec == std::errc();
}

struct Shape {
  int nodes = 0;
  int leaves = 0;
  int slots = 0;
};

Shape shape_of(const ClusterPlatformConfig& config) {
  Shape s;
  s.nodes = config.platform_nodes();
  s.leaves = (s.nodes + config.topology.nodes_per_leaf - 1) / config.topology.nodes_per_leaf;
  s.slots = s.leaves * config.topology.nodes_per_leaf;
  return s;
}

/// Node n's star zone under `parent`, its switch the gateway (the old make_node_zone).
std::pair<NetPoint*, NetPoint*> make_node_zone(sg4::NetZone* parent,
                                               const ClusterPlatformConfig& config, int n,
                                               ClusterPlatform& out) {
  sg4::NetZone* zone = sg4::create_star_zone(fmt::format("node-{}", n))->set_parent(parent);
  NetPoint* node_switch = zone->create_router(fmt::format("node-{}-switch", n));
  for (int g = 0; g < config.node.accelerators; ++g) {
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

/// Gives the node-to-leaf links the NICs' bandwidth and latency (SimGrid's fat-tree makes every
/// link alike): SimGrid numbers the slots 0..slots-1 and the switches downwards from
/// 2 x slots - 1, leaf switches first.
void set_nic_links(sg4::Engine& engine, const ClusterPlatformConfig& config, const Shape& shape,
                   ClusterPlatform& out) {
  out.nic_up.assign(static_cast<std::size_t>(shape.nodes), nullptr);
  out.nic_down.assign(static_cast<std::size_t>(shape.nodes), nullptr);
  const long first_leaf_switch = 2L * shape.slots - shape.leaves;
  for (sg4::Link* link : engine.get_all_links()) {
    long child = 0;
    long parent = 0;
    long serial = 0;
    const std::string& name = link->get_name();
    if (!link_ends(name, child, parent, serial) || parent < first_leaf_switch) continue;
    if (child >= shape.nodes) continue;  // a padding slot's link: left as it is, unused
    link->set_bandwidth(config.node.nics * config.node.nic_bandwidth);
    link->set_latency(config.node.nic_latency);
    const bool up = name.size() > 3 && name.compare(name.size() - 3, 3, "_UP") == 0;
    (up ? out.nic_up : out.nic_down)[static_cast<std::size_t>(child)] = link;
  }
  for (int n = 0; n < shape.nodes; ++n) {
    if (out.nic_up[static_cast<std::size_t>(n)] == nullptr ||
        out.nic_down[static_cast<std::size_t>(n)] == nullptr) {
      throw std::logic_error(fmt::format("reference platform: node {} has no NIC link", n));
    }
  }
}

}  // namespace

ClusterPlatform build_reference_platform(sg4::Engine& engine, const ClusterPlatformConfig& config) {
  const Shape shape = shape_of(config);
  const sim::TopologyConfig& topology = config.topology;
  ClusterPlatform out;
  out.accelerators_per_node = config.node.accelerators;
  out.leaves = shape.leaves;
  out.padding_slots = shape.slots - shape.nodes;
  const double node_bandwidth = config.node.nics * config.node.nic_bandwidth;
  out.uplink_bandwidth = topology.uplink_bandwidth > 0.0
                             ? topology.uplink_bandwidth
                             : topology.nodes_per_leaf * node_bandwidth /
                                   (static_cast<double>(topology.spines) * topology.uplinks);

  sg4::NetZone* root = sg4::create_full_zone("cluster");
  // SimGrid calls `slot` for slot i = 0, 1, ... in order, so node n is slot n.
  std::vector<NetPoint*> zones;
  std::vector<NetPoint*> gateways;
  const auto slot = [&](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/,
                        unsigned long id) -> std::pair<NetPoint*, NetPoint*> {
    const int i = static_cast<int>(id);
    if (i >= shape.nodes) return {fabric->create_router(fmt::format("padding-{}", i)), nullptr};
    auto [zone, node_switch] = make_node_zone(fabric, config, i, out);
    zones.push_back(zone);
    gateways.push_back(node_switch);
    return {zone, node_switch};
  };
  const sg4::FatTreeParams params(
      2, {static_cast<unsigned>(topology.nodes_per_leaf), static_cast<unsigned>(shape.leaves)},
      {1U, static_cast<unsigned>(topology.spines)}, {1U, static_cast<unsigned>(topology.uplinks)});
  sg4::NetZone* fabric = sg4::create_fatTree_zone(
      "fabric", root, params, sg4::ClusterCallbacks(slot), out.uplink_bandwidth,
      topology.switch_latency, sg4::Link::SharingPolicy::SPLITDUPLEX);
  fabric->seal();
  set_nic_links(engine, config, shape, out);

  sg4::NetZone* fs_zone = sg4::create_star_zone("file-system")->set_parent(root);
  NetPoint* fs_gateway = fs_zone->create_router("file-system-gateway");
  out.file_system = fs_zone->create_host("file-system", 1.0);
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
  for (std::size_t i = 0; i < zones.size(); ++i) {
    root->add_bypass_route(zones[i], fs_zone->get_netpoint(), gateways[i], fs_gateway,
                           {sg4::LinkInRoute(out.nic_up[i])});
    root->add_bypass_route(fs_zone->get_netpoint(), zones[i], fs_gateway, gateways[i],
                           {sg4::LinkInRoute(out.nic_down[i])});
  }

  sg4::NetZone* coordinator_zone = sg4::create_empty_zone("coordinator")->set_parent(root);
  out.coordinator = coordinator_zone->create_host("coordinator", 1.0);
  coordinator_zone->seal();
  root->seal();
  return out;
}

std::string reference_link_name(const std::string& name, const ClusterPlatformConfig& config) {
  long child = 0;
  long parent = 0;
  long serial = 0;
  if (!link_ends(name, child, parent, serial)) return name;
  const Shape shape = shape_of(config);
  const std::string direction = name.substr(name.rfind('_'));  // "_UP" or "_DOWN"
  const long top = 2L * shape.slots - 1;                       // the first leaf switch's id
  if (parent > top - shape.leaves && child < shape.nodes) {
    return fmt::format("node-{}-nic{}", child, direction);
  }
  const long leaf = top - child;
  const long spine = top - shape.leaves - parent;
  const long spines = config.topology.spines;
  const long uplinks = config.topology.uplinks;
  const long index = serial - shape.slots;  // the leaf-spine links come after the slots'
  if (leaf < 0 || leaf >= shape.leaves || spine < 0 || spine >= spines || index < 0 ||
      index / uplinks != leaf * spines + spine) {
    throw std::logic_error("reference platform: cannot place fat-tree link " + name);
  }
  return fmt::format("leaf-{}-spine-{}-{}{}", leaf, spine, index % uplinks, direction);
}

}  // namespace failsim::testing
