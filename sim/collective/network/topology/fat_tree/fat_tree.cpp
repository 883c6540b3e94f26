#include "sim/collective/network/topology/fat_tree/fat_tree.hpp"

#include <fmt/core.h>

#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>

#include <simgrid/s4u.hpp>

#include "sim/collective/network/topology/platform_checks.hpp"
#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(fat_tree, failsim, "the collective platform's fat-tree");

namespace failsim::sim::fat_tree {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace {

/// The (child, parent) switch-or-node ids in the name SimGrid 3.32's FatTreeZone gives a link,
/// "link_from_<child>_<parent>_<serial>[_UP|_DOWN]"; false for any other name.
bool link_ends(std::string_view name, long& child, long& parent) {
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
    if (!link_ends(name, child, parent) || parent < first_leaf_switch) continue;
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

TopologyNodes build(sg4::Engine& engine, sg4::NetZone* root, const ClusterPlatformConfig& config,
                    ClusterPlatform& out) {
  const int nodes = config.platform_nodes();  // the job's and the spares
  const TopologyConfig& topology = config.topology;
  out.leaves = (nodes + topology.nodes_per_leaf - 1) / topology.nodes_per_leaf;
  const int slots = out.leaves * topology.nodes_per_leaf;
  out.padding_slots = slots - nodes;
  const double node_bandwidth = config.node.nics * config.node.nic_bandwidth;
  out.uplink_bandwidth = topology.uplink_bandwidth > 0.0
                             ? topology.uplink_bandwidth
                             : topology.nodes_per_leaf * node_bandwidth /
                                   (static_cast<double>(topology.spines) * topology.uplinks);

  // SimGrid calls `slot` for slot i = 0, 1, ... in order, so node n is slot n.
  TopologyNodes built;
  const auto slot = [&](sg4::NetZone* fabric, const std::vector<unsigned long>& /*coord*/,
                        unsigned long id) -> std::pair<NetPoint*, NetPoint*> {
    const int i = static_cast<int>(id);
    if (i >= nodes) return {fabric->create_router(fmt::format("padding-{}", i)), nullptr};
    auto [zone, node_switch] = make_node_zone(fabric, config, i, out);
    built.zones.push_back(zone);
    built.gateways.push_back(node_switch);
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

  FAILSIM_VERBOSE(
      "cluster: {} nodes x {} accelerators, {} leaves of {} nodes ({} padding slots), {} spines "
      "x {} uplinks of {} B/s each",
      nodes, config.node.accelerators, out.leaves, topology.nodes_per_leaf, out.padding_slots,
      topology.spines, topology.uplinks, out.uplink_bandwidth);
  return built;
}

}  // namespace failsim::sim::fat_tree
