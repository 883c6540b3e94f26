#include "sim/collective/network/cluster_platform.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

#include <simgrid/s4u.hpp>

#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(cluster_platform, failsim, "the collective protocol's platform");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

void use_cluster_network_model(sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
}

namespace {

void check_positive(double value, const char* what) {
  if (!(value > 0.0)) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be > 0, found {}", what, value));
  }
}
void check_at_least_one(int value, const char* what) {
  if (value < 1) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be >= 1, found {}", what, value));
  }
}
void check_latency(double value, const char* what) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be >= 0, found {}", what, value));
  }
}

void check(const ClusterPlatformConfig& config) {
  const NodeSpec& node = config.node;
  check_at_least_one(config.nodes, "nodes");
  if (config.spares < 0) {
    throw std::invalid_argument(
        fmt::format("cluster platform: spares must be >= 0, found {}", config.spares));
  }
  check_at_least_one(node.accelerators, "accelerators per node");
  check_at_least_one(node.nics, "nics");
  check_at_least_one(config.topology.nodes_per_leaf, "nodes_per_leaf");
  check_at_least_one(config.topology.spines, "spines");
  check_at_least_one(config.topology.uplinks, "uplinks");
  check_positive(node.accelerator_speed, "accelerator_speed");
  check_positive(node.intra_bandwidth, "intra_bandwidth");
  check_positive(node.nic_bandwidth, "nic_bandwidth");
  check_positive(config.file_system.write_bandwidth, "file system write_bandwidth");
  check_positive(config.file_system.read_bandwidth, "file system read_bandwidth");
  if (config.topology.uplink_bandwidth < 0.0) {
    check_positive(config.topology.uplink_bandwidth, "uplink_bandwidth");
  }
  check_latency(node.intra_latency, "intra_latency");
  check_latency(node.nic_latency, "nic_latency");
  check_latency(config.topology.switch_latency, "switch_latency");
  check_latency(config.file_system.latency, "file system latency");
}

/// Node n's zone: its accelerators around the node's switch, which is the zone's gateway.
std::pair<NetPoint*, NetPoint*> make_node(sg4::NetZone* fabric, const ClusterPlatformConfig& config,
                                          int n, ClusterPlatform& out) {
  sg4::NetZone* zone = sg4::create_star_zone(fmt::format("node-{}", n))->set_parent(fabric);
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

/// The (child, parent) switch-or-node ids in the name SimGrid 3.32's FatTreeZone gives a link,
/// "link_from_<child>_<parent>_<serial>[_UP|_DOWN]"; false for any other name.
bool fat_tree_link_ends(std::string_view name, long& child, long& parent) {
  constexpr std::string_view prefix = "link_from_";
  if (name.substr(0, prefix.size()) != prefix) return false;
  const char* p = name.data() + prefix.size();
  const char* end = name.data() + name.size();
  auto r = std::from_chars(p, end, child);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '_') return false;
  r = std::from_chars(r.ptr + 1, end, parent);
  return r.ec == std::errc();
}

/// Finds the node-to-leaf links of the fat-tree and gives them the NICs' bandwidth and latency
/// (SimGrid's fat-tree makes every link alike). SimGrid 3.32 numbers the `slots` leaves of the
/// tree 0..slots-1 and its switches downwards from 2 x slots - 1, leaf switches first, so a link
/// is node-to-leaf iff its upper end is one of the `leaves` highest ids. Checked: every slot
/// must get one such link each way, or SimGrid's numbering changed and we refuse to guess.
void set_nic_links(sg4::Engine& engine, const ClusterPlatformConfig& config, int slots, int leaves,
                   ClusterPlatform& out) {
  const int nodes = config.platform_nodes();
  out.nic_up.assign(static_cast<std::size_t>(nodes), nullptr);
  out.nic_down.assign(static_cast<std::size_t>(nodes), nullptr);
  std::vector<int> found(static_cast<std::size_t>(slots), 0);
  const long first_leaf_switch = 2L * slots - leaves;
  const double bandwidth = config.node.nics * config.node.nic_bandwidth;
  for (sg4::Link* link : engine.get_all_links()) {
    long child = 0;
    long parent = 0;
    const std::string& name = link->get_name();
    if (!fat_tree_link_ends(name, child, parent) || parent < first_leaf_switch) continue;
    if (child < 0 || child >= slots) {
      throw std::logic_error("cluster platform: unexpected fat-tree link " + name);
    }
    ++found[static_cast<std::size_t>(child)];
    if (child >= nodes) continue;  // a padding slot's link: left as it is, unused
    link->set_bandwidth(bandwidth);
    link->set_latency(config.node.nic_latency);
    const bool up = name.size() > 3 && name.compare(name.size() - 3, 3, "_UP") == 0;
    (up ? out.nic_up : out.nic_down)[static_cast<std::size_t>(child)] = link;
  }
  for (int i = 0; i < slots; ++i) {
    if (found[static_cast<std::size_t>(i)] != 2 ||
        (i < nodes && (out.nic_up[static_cast<std::size_t>(i)] == nullptr ||
                       out.nic_down[static_cast<std::size_t>(i)] == nullptr))) {
      throw std::logic_error(fmt::format(
          "cluster platform: node slot {} has {} node-to-leaf links instead of an up and a down "
          "one (SimGrid's fat-tree naming differs from 3.32's)",
          i, found[static_cast<std::size_t>(i)]));
    }
  }
}

}  // namespace

ClusterPlatform build_cluster_platform(sg4::Engine& engine, const ClusterPlatformConfig& config) {
  check(config);
  const int nodes = config.platform_nodes();  // the job's and the spares
  const TopologyConfig& topology = config.topology;
  ClusterPlatform out;
  out.accelerators_per_node = config.node.accelerators;
  out.leaves = (nodes + topology.nodes_per_leaf - 1) / topology.nodes_per_leaf;
  const int slots = out.leaves * topology.nodes_per_leaf;
  out.padding_slots = slots - nodes;
  const double node_bandwidth = config.node.nics * config.node.nic_bandwidth;
  out.uplink_bandwidth = topology.uplink_bandwidth > 0.0
                             ? topology.uplink_bandwidth
                             : topology.nodes_per_leaf * node_bandwidth /
                                   (static_cast<double>(topology.spines) * topology.uplinks);

  sg4::NetZone* root = sg4::create_full_zone("cluster");

  // The fabric: SimGrid calls make_node for slot i = 0, 1, ... in order, so node n is slot n.
  std::vector<NetPoint*> node_zones;
  std::vector<NetPoint*> node_switches;
  const auto slot = [&](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/,
                        unsigned long id) -> std::pair<NetPoint*, NetPoint*> {
    const int i = static_cast<int>(id);
    if (i >= nodes) return {fabric->create_router(fmt::format("padding-{}", i)), nullptr};
    auto [zone, node_switch] = make_node(fabric, config, i, out);
    node_zones.push_back(zone);
    node_switches.push_back(node_switch);
    return {zone, node_switch};
  };
  const sg4::FatTreeParams params(
      2, {static_cast<unsigned>(topology.nodes_per_leaf), static_cast<unsigned>(out.leaves)},
      {1U, static_cast<unsigned>(topology.spines)}, {1U, static_cast<unsigned>(topology.uplinks)});
  sg4::NetZone* fabric = sg4::create_fatTree_zone(
      "fabric", root, params, sg4::ClusterCallbacks(slot), out.uplink_bandwidth,
      topology.switch_latency, sg4::Link::SharingPolicy::SPLITDUPLEX);
  fabric->seal();
  set_nic_links(engine, config, slots, out.leaves, out);

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
    const auto i = static_cast<std::size_t>(n);
    root->add_bypass_route(node_zones[i], fs_zone->get_netpoint(), node_switches[i], fs_gateway,
                           {sg4::LinkInRoute(out.nic_up[i])});
    root->add_bypass_route(fs_zone->get_netpoint(), node_zones[i], fs_gateway, node_switches[i],
                           {sg4::LinkInRoute(out.nic_down[i])});
  }

  sg4::NetZone* coordinator_zone = sg4::create_empty_zone("coordinator")->set_parent(root);
  out.coordinator = coordinator_zone->create_host("coordinator", 1.0);
  coordinator_zone->seal();
  root->seal();

  FAILSIM_VERBOSE(
      "cluster: {} nodes x {} accelerators, {} leaves of {} nodes ({} padding slots), {} spines "
      "x {} uplinks of {} B/s each",
      nodes, config.node.accelerators, out.leaves, topology.nodes_per_leaf, out.padding_slots,
      topology.spines, topology.uplinks, out.uplink_bandwidth);
  return out;
}

}  // namespace failsim::sim
