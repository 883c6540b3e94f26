// The fat-tree's root zone (fabric_zone.hpp). The routes are those SimGrid 3.32 computed for the
// platform of zones failsim built before, read in its source (FatTreeZone::get_local_route for
// the fat-tree {2, {nodes_per_leaf, leaves}, {1, spines}, {1, uplinks}} whose slot i was node
// i, StarZone::get_local_route inside a node, NetZoneImpl::get_global_route_with_netzones and
// get_bypass_route joining them):
//   - Inside a node (the node's star zone): the source's link up, the destination's link down.
//   - Between nodes: the fat-tree's route between the two node zones, then the source's link up
//     to its node's switch (the zone's gateway) is put before it and the destination's link down
//     after it. The fat-tree's route goes up from node a by its NIC; if node b is under another
//     leaf, up from a's leaf by its parent port b mod (spines x uplinks), which is spine
//     (port mod spines), parallel link (port / spines); down from that spine to b's leaf by the
//     parallel link a mod uplinks; then down b's NIC. The latency is summed as SimGrid adds it:
//     the fat-tree's links first, then the source's accelerator link, then the destination's.
//   - To the file system: the bypass route from node a's zone to the file system's zone (a's NIC
//     up), with the accelerator link up to the node's switch before it and the file system's
//     write link after it; back, the read link, the bypass route (a's NIC down), the accelerator
//     link down. Summed in that order.
#include "sim/collective/network/topology/fat_tree/fabric_zone.hpp"

#include <fmt/core.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>

#include "input/interrupt.hpp"

namespace failsim::sim::fat_tree {

namespace {
/// Accelerators built between two looks at the interrupt flag: a few milliseconds of work.
constexpr unsigned long ACCELERATORS_BETWEEN_POLLS = 512;
}  // namespace

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

FabricZone::FabricZone(const std::string& name, const ClusterPlatformConfig& config, int leaves,
                       double uplink_bandwidth)
    : PlatformZone(name),
      node_(config.node),
      nodes_(config.platform_nodes()),
      nodes_per_leaf_(config.topology.nodes_per_leaf),
      leaves_(leaves),
      spines_(config.topology.spines),
      uplinks_(config.topology.uplinks),
      uplink_bandwidth_(uplink_bandwidth),
      switch_latency_(config.topology.switch_latency) {
  const auto accelerators = static_cast<std::size_t>(nodes_) * node_.accelerators;
  accelerator_up_.reserve(accelerators);
  accelerator_down_.reserve(accelerators);
  nic_up_.reserve(static_cast<std::size_t>(nodes_));
  nic_down_.reserve(static_cast<std::size_t>(nodes_));
}

FabricZone::Hop FabricZone::hop(sg4::Link* link) { return {link->get_impl(), link}; }

void FabricZone::Into::cross(const Hop& hop) const {
  if (route != nullptr) route->link_list_.push_back(hop.impl);
  if (links != nullptr) links->push_back(hop.link);
}

void FabricZone::pay(double* latency, const Hop& hop) {
  if (latency != nullptr) *latency += hop.link->get_latency();
}

void FabricZone::add_node(int n, ClusterPlatform& out) {
  if (n != static_cast<int>(nic_up_.size()) || has_file_system_) {
    throw std::logic_error(fmt::format("fabric zone: node {} added out of turn", n));
  }
  sg4::NetZone* zone = get_iface();
  for (int g = 0; g < node_.accelerators; ++g) {
    // A look at the interrupt flag every few milliseconds of work, inside a node too: one node
    // may hold millions of accelerators.
    if (accelerators_ % ACCELERATORS_BETWEEN_POLLS == 0) {
      if (const int signal = input::caught_interrupt()) {
        throw input::Interrupted(
            signal, fmt::format("while building the platform, at node {} of {}", n, nodes_));
      }
    }
    const std::string name = fmt::format("node-{}-acc-{}", n, g);
    // Sealed at once (its CPU's share constraint made), between two looks at the interrupt flag:
    // left to the zone's one seal(), the 655,360 hosts of the largest platform took a second
    // that no signal could interrupt. The zone's seal() finds them sealed.
    sg4::Host* host = zone->create_host(name, node_.accelerator_speed)->seal();
    if (host->get_netpoint()->id() != accelerators_++) {
      throw std::logic_error("fabric zone: " + name + " is not the component of its index");
    }
    sg4::SplitDuplexLink* link =
        zone->create_split_duplex_link(name + "-link", node_.intra_bandwidth);
    link->set_latency(node_.intra_latency);
    accelerator_up_.push_back(hop(link->get_link_up()));
    accelerator_down_.push_back(hop(link->get_link_down()));
    out.accelerators.push_back(host);
  }
  const double bandwidth = node_.nics * node_.nic_bandwidth;
  const std::string nic = fmt::format("node-{}-nic", n);
  sg4::Link* up = zone->create_link(nic + "_UP", bandwidth)->set_latency(node_.nic_latency);
  sg4::Link* down = zone->create_link(nic + "_DOWN", bandwidth)->set_latency(node_.nic_latency);
  nic_up_.push_back(hop(up));
  nic_down_.push_back(hop(down));
  out.nic_up.push_back(up);
  out.nic_down.push_back(down);
}

void FabricZone::add_uplinks() {
  sg4::NetZone* zone = get_iface();
  const auto count = static_cast<std::size_t>(leaves_) * spines_ * uplinks_;
  uplink_up_.reserve(count);
  uplink_down_.reserve(count);
  for (int l = 0; l < leaves_; ++l) {
    for (int s = 0; s < spines_; ++s) {
      for (int i = 0; i < uplinks_; ++i) {
        const std::string name = fmt::format("leaf-{}-spine-{}-{}", l, s, i);
        uplink_up_.push_back(
            hop(zone->create_link(name + "_UP", uplink_bandwidth_)->set_latency(switch_latency_)));
        uplink_down_.push_back(hop(
            zone->create_link(name + "_DOWN", uplink_bandwidth_)->set_latency(switch_latency_)));
      }
    }
  }
}

void FabricZone::add_file_system(sg4::Host* file_system, sg4::Link* write, sg4::Link* read) {
  if (has_file_system_ || nic_up_.size() != static_cast<std::size_t>(nodes_)) {
    throw std::logic_error("fabric zone: the file system added before the nodes or twice");
  }
  has_file_system_ = true;
  file_system_ = file_system->get_netpoint()->id();
  file_system_write_ = hop(write);
  file_system_read_ = hop(read);
}

void FabricZone::no_route(const NetPoint* src, const NetPoint* dst) {
  throw std::logic_error(fmt::format("the collective platform has no route from {} to {}",
                                     src->get_cname(), dst->get_cname()));
}

void FabricZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into,
                                 double* latency) {
  walk(src, dst, {into, nullptr}, latency);
}

void FabricZone::links(const sg4::Host* from, const sg4::Host* to, std::vector<sg4::Link*>& out,
                       double* latency) const {
  walk(from->get_netpoint(), to->get_netpoint(), {nullptr, &out}, latency);
}

void FabricZone::walk(const NetPoint* src, const NetPoint* dst, const Into& into,
                      double* latency) const {
  const unsigned long from = src->id();
  const unsigned long to = dst->id();
  const bool from_file_system = has_file_system_ && from == file_system_;
  const bool to_file_system = has_file_system_ && to == file_system_;
  if ((from >= accelerators_ && !from_file_system) || (to >= accelerators_ && !to_file_system)) {
    no_route(src, dst);
  }
  const auto G = static_cast<unsigned long>(node_.accelerators);
  if (from_file_system && to_file_system) {  // the file system's star: its link up and down
    into.cross(file_system_read_);
    into.cross(file_system_write_);
    pay(latency, file_system_read_);
    pay(latency, file_system_write_);
  } else if (to_file_system) {
    const Hop& accelerator = accelerator_up_[from];
    const Hop& nic = nic_up_[from / G];
    into.cross(accelerator);
    into.cross(nic);
    into.cross(file_system_write_);
    pay(latency, accelerator);
    pay(latency, nic);
    pay(latency, file_system_write_);
  } else if (from_file_system) {
    const Hop& nic = nic_down_[to / G];
    const Hop& accelerator = accelerator_down_[to];
    into.cross(file_system_read_);
    into.cross(nic);
    into.cross(accelerator);
    pay(latency, file_system_read_);
    pay(latency, nic);
    pay(latency, accelerator);
  } else if (from / G == to / G) {  // one node's star (an accelerator to itself too)
    into.cross(accelerator_up_[from]);
    into.cross(accelerator_down_[to]);
    pay(latency, accelerator_up_[from]);
    pay(latency, accelerator_down_[to]);
  } else {
    into.cross(accelerator_up_[from]);
    route_between_nodes(from / G, to / G, into, latency);
    into.cross(accelerator_down_[to]);
    pay(latency, accelerator_up_[from]);
    pay(latency, accelerator_down_[to]);
  }
}

void FabricZone::route_between_nodes(unsigned long from, unsigned long to, const Into& into,
                                     double* latency) const {
  const Hop* hops[4];
  int count = 0;
  hops[count++] = &nic_up_[from];
  const auto per_leaf = static_cast<unsigned long>(nodes_per_leaf_);
  const unsigned long from_leaf = from / per_leaf;
  const unsigned long to_leaf = to / per_leaf;
  if (from_leaf != to_leaf) {
    const auto spines = static_cast<unsigned long>(spines_);
    const auto uplinks = static_cast<unsigned long>(uplinks_);
    const unsigned long port = to % (spines * uplinks);  // destination-mod-k
    const unsigned long spine = port % spines;
    hops[count++] = &uplink_up_[(from_leaf * spines + spine) * uplinks + port / spines];
    hops[count++] = &uplink_down_[(to_leaf * spines + spine) * uplinks + from % uplinks];
  }
  hops[count++] = &nic_down_[to];
  for (int i = 0; i < count; ++i) into.cross(*hops[i]);
  for (int i = 0; i < count; ++i) pay(latency, *hops[i]);
}

}  // namespace failsim::sim::fat_tree
