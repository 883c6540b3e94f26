// The fat-tree's root zone (fat_tree.hpp): every accelerator host, the nodes' NIC links, the
// leaf-spine links and the file system in one zone of failsim's own, whose routes are computed
// when SimGrid asks for one. They are the routes SimGrid 3.32 computed for the platform failsim
// built before (a fat-tree zone whose leaves were a star zone per node, and bypass routes to the
// file system's zone): the same links in the same order, the same uplink chosen, the latency
// summed in the same order, so every result stays the same to the bit; only the link names
// differ (tests/test_fabric_routes.cpp builds both and compares every route).
#pragma once

#include <string>
#include <vector>

#include "sim/collective/network/cluster_hosts.hpp"
#include "sim/collective/network/topology/platform_zone.hpp"
#include "sim/scenario/collective/config.hpp"

namespace failsim::sim::fat_tree {

class FabricZone final : public PlatformZone {
 public:
  /// The empty root zone `name` of `config`'s fat-tree, `leaves` leaf switches each linked to
  /// every spine by `uplinks` links of `uplink_bandwidth`. The engine must hold no zone yet.
  FabricZone(const std::string& name, const ClusterPlatformConfig& config, int leaves,
             double uplink_bandwidth);

  /// Node n (called for n = 0, 1, ... in turn, before anything else is made in the zone, so
  /// accelerator i's host is the zone's component i): its accelerators "node-<n>-acc-<g>"
  /// (appended to out.accelerators), each with a split-duplex link "<host>-link" of
  /// intra_bandwidth and intra_latency, and its NIC links "node-<n>-nic_UP" (to its leaf switch)
  /// and "node-<n>-nic_DOWN" of nics x nic_bandwidth and nic_latency (appended to out.nic_up and
  /// out.nic_down).
  void add_node(int n, ClusterPlatform& out);

  /// The links between leaf l and spine s, "leaf-<l>-spine-<s>-<i>_UP" (towards the spine) and
  /// "_DOWN" for i < uplinks, of uplink_bandwidth and switch_latency.
  void add_uplinks();

  void add_file_system(simgrid::s4u::Host* file_system, simgrid::s4u::Link* write,
                       simgrid::s4u::Link* read) override;

  void links(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
             std::vector<simgrid::s4u::Link*>& out, double* latency) const override;

 private:
  /// A link of a route: SimGrid's (what a route is made of) and its interface (its latency, read
  /// when the route is asked for, as SimGrid does).
  struct Hop {
    simgrid::kernel::resource::StandardLinkImpl* impl = nullptr;
    simgrid::s4u::Link* link = nullptr;
  };
  static Hop hop(simgrid::s4u::Link* link);
  /// Where a route's links go, in route order: SimGrid's route (the links' implementations) or
  /// a list of their interfaces (links()). Their latencies are summed apart by pay(), in the
  /// order SimGrid summed them.
  struct Into {
    simgrid::kernel::routing::Route* route = nullptr;
    std::vector<simgrid::s4u::Link*>* links = nullptr;
    void cross(const Hop& hop) const;
  };
  static void pay(double* latency, const Hop& hop);

  /// The route between two hosts of this zone: links and latency as SimGrid 3.32 gave them for
  /// the platform of zones (fabric_zone.cpp).
  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;
  void walk(const simgrid::kernel::routing::NetPoint* src,
            const simgrid::kernel::routing::NetPoint* dst, const Into& into, double* latency) const;
  void route_between_nodes(unsigned long from, unsigned long to, const Into& into,
                           double* latency) const;
  [[noreturn]] static void no_route(const simgrid::kernel::routing::NetPoint* src,
                                    const simgrid::kernel::routing::NetPoint* dst);

  const NodeSpec node_;
  const int nodes_;  // the platform's: the job's and the spares
  const int nodes_per_leaf_;
  const int leaves_;
  const int spines_;
  const int uplinks_;
  const double uplink_bandwidth_;
  const double switch_latency_;
  unsigned long accelerators_ = 0;  // made so far: their hosts are components 0 .. accelerators_-1

  std::vector<Hop> accelerator_up_;    // by accelerator: to its node's switch
  std::vector<Hop> accelerator_down_;  // from it
  std::vector<Hop> nic_up_;            // by node: to its leaf switch
  std::vector<Hop> nic_down_;          // from it
  std::vector<Hop> uplink_up_;         // by (leaf x spines + spine) x uplinks + i: to the spine
  std::vector<Hop> uplink_down_;       // from it
  bool has_file_system_ = false;
  unsigned long file_system_ = 0;  // its component
  Hop file_system_write_;
  Hop file_system_read_;
};

}  // namespace failsim::sim::fat_tree
