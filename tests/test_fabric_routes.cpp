// The collective platform's root zone (sim/collective/network/topology/fat_tree/fabric_zone.hpp)
// against the platform of zones failsim built before (reference_platform.hpp): for fat-trees of
// several shapes, every route between two of the platform's accelerators and file system
// crosses the same links (named by role: the new names, the old ones translated), in the same
// order, each of the same bandwidth, latency and sharing, and pays the same latency to the bit;
// and failsim's own route_of (the zone asked directly) gives what Host::route_to gives.
// Each platform is built in a forked child, since SimGrid allows one engine per process and its
// fat-tree one per process; the parent creates no engine. And a signal caught while the platform
// is built stops the construction at the next poll, with the node it reached.
#include <xbt/log.h>
#include <catch2/catch.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>

#include <fmt/core.h>

#include <csignal>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "in_child.hpp"
#include "input/interrupt.hpp"
#include "reference_platform.hpp"
#include "sim/collective/network/cluster_platform.hpp"
#include "sim/collective/network/flows.hpp"

namespace sg4 = simgrid::s4u;
using failsim::sim::ClusterPlatform;
using failsim::sim::ClusterPlatformConfig;
using failsim::testing::in_child;

namespace {

/// Latencies chosen so that a route's latency summed in another order than SimGrid's differs in
/// its last bits (inside a node, under a leaf, across leaves, to and from the file system).
ClusterPlatformConfig config(int nodes, int spares, int accelerators, int nodes_per_leaf,
                             int spines, int uplinks, double uplink_bandwidth) {
  ClusterPlatformConfig c;
  c.nodes = nodes;
  c.spares = spares;
  c.node.accelerators = accelerators;
  c.node.accelerator_speed = 3e14;
  c.node.intra_bandwidth = 4.5e11;
  c.node.intra_latency = 1.1e-6;
  c.node.nics = 3;
  c.node.nic_bandwidth = 5e10 / 3;
  c.node.nic_latency = 3.1e-6;
  c.topology.nodes_per_leaf = nodes_per_leaf;
  c.topology.spines = spines;
  c.topology.uplinks = uplinks;
  c.topology.uplink_bandwidth = uplink_bandwidth;
  c.topology.switch_latency = 1.1e-7;
  c.file_system.write_bandwidth = 2e11;
  c.file_system.read_bandwidth = 4e11;
  c.file_system.latency = 2.5e-4;
  return c;
}

/// The built platform as text: its sizes, its hosts, then one line per ordered pair of its
/// accelerators and file system (an accelerator to itself too): the links of the route with
/// their bandwidth, latency and sharing, and the route's latency, doubles in hexadecimal; marked
/// when route_of gives another route.
std::string describe(const ClusterPlatform& p,
                     const std::function<std::string(const std::string&)>& name_of) {
  std::ostringstream out;
  out << fmt::format("leaves {} padding {} uplink {:a}\n", p.leaves, p.padding_slots,
                     p.uplink_bandwidth);
  for (std::size_t n = 0; n < p.nic_up.size(); ++n) {
    out << fmt::format("node {} nics {} {}\n", n, name_of(p.nic_up[n]->get_name()),
                       name_of(p.nic_down[n]->get_name()));
  }
  std::vector<sg4::Host*> hosts = p.accelerators;
  hosts.push_back(p.file_system);
  for (const sg4::Host* h : hosts) {
    out << fmt::format("host {} {:a}\n", h->get_name(), h->get_speed());
  }
  std::vector<sg4::Link*> links;
  for (const sg4::Host* from : hosts) {
    for (const sg4::Host* to : hosts) {
      links.clear();
      double latency = 0.0;
      from->route_to(to, links, &latency);
      out << from->get_name() << " -> " << to->get_name() << ":";
      for (const sg4::Link* l : links) {
        out << fmt::format(" {}({:a},{:a},{})", name_of(l->get_name()), l->get_bandwidth(),
                           l->get_latency(), static_cast<int>(l->get_sharing_policy()));
      }
      out << fmt::format(" = {:a}", latency);
      std::vector<sg4::Link*> direct;
      double direct_latency = 0.0;
      failsim::sim::route_of(from, to, direct, &direct_latency);
      if (direct != links || direct_latency != latency) out << " (route_of differs)";
      out << "\n";
    }
  }
  return out.str();
}

/// Builds `c` in a new engine of this process, the new way or the reference's, and describes it.
std::string built(const ClusterPlatformConfig& c, bool reference) {
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine engine("test_fabric_routes");
  failsim::sim::use_cluster_network_model(engine);
  if (reference) {
    const ClusterPlatform p = failsim::testing::build_reference_platform(engine, c);
    return describe(p, [&c](const std::string& name) {
      return failsim::testing::reference_link_name(name, c);
    });
  }
  const ClusterPlatform p = failsim::sim::build_cluster_platform(engine, c);
  return describe(p, [](const std::string& name) { return name; });
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("the fabric zone's routes are the old platform's, link by link and to the bit",
          "[collective][platform]") {
  // nodes, spares, accelerators per node, nodes per leaf, spines, uplinks, uplink bandwidth.
  const std::vector<ClusterPlatformConfig> shapes{
      config(3, 0, 2, 2, 2, 2, 0.0),  // a padding slot, 2 spines x 2 uplinks
      config(5, 2, 1, 3, 3, 2, 0.0),  // spares, 2 padding slots, 3 spines x 2 uplinks
      config(4, 0, 3, 4, 1, 1, 0.0),  // one leaf
      config(9, 1, 2, 2, 2, 3, 5e9),  // 5 leaves, more ports than a leaf's nodes, a set bandwidth
      config(1, 0, 4, 8, 1, 1, 0.0),  // one node, 7 padding slots
      config(6, 0, 1, 1, 3, 1, 0.0),  // a leaf per node
      config(8, 4, 2, 4, 2, 4, 0.0),  // spares filling a leaf, 8 ports
  };
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const ClusterPlatformConfig& c = shapes[i];
    INFO(
        fmt::format("shape {}: {} nodes + {} spares x {} accelerators, leaves of {}, {} spines x "
                    "{} uplinks",
                    i, c.nodes, c.spares, c.node.accelerators, c.topology.nodes_per_leaf,
                    c.topology.spines, c.topology.uplinks));
    const std::vector<std::string> old = lines(in_child([&c] { return built(c, true); }));
    const std::vector<std::string> now = lines(in_child([&c] { return built(c, false); }));
    const std::size_t hosts =
        c.platform_nodes() * static_cast<std::size_t>(c.node.accelerators) + 1;
    CHECK(old.size() == 1 + static_cast<std::size_t>(c.platform_nodes()) + hosts + hosts * hosts);
    REQUIRE(now.size() == old.size());
    int differing = 0;
    for (std::size_t l = 0; l < old.size(); ++l) {
      if (old[l] == now[l]) continue;
      if (++differing <= 5) UNSCOPED_INFO("old: " << old[l] << "\nnew: " << now[l]);
    }
    CHECK(differing == 0);
  }
}

TEST_CASE("a signal caught while the platform is built stops it at the next poll",
          "[collective][platform][interrupt]") {
  const auto interrupted_at = [](const ClusterPlatformConfig& c, const std::string& raise_at) {
    return in_child([&c, raise_at] {
      xbt_log_control_set("root.thresh:critical");
      sg4::Engine engine("test_fabric_routes");
      failsim::input::catch_interrupts();  // after the engine's own SIGINT handler
      if (raise_at.empty()) std::raise(SIGTERM);
      simgrid::kernel::routing::NetPoint::on_creation.connect(
          [raise_at](const simgrid::kernel::routing::NetPoint& p) {
            if (p.get_name() == raise_at) std::raise(SIGTERM);
          });
      try {
        failsim::sim::build_cluster_platform(engine, c);
      } catch (const failsim::input::Interrupted& e) {
        return fmt::format("{} ({})", e.what(), e.signal());
      }
      return std::string("not interrupted");
    });
  };
  const ClusterPlatformConfig c = config(600, 0, 2, 8, 2, 1, 0.0);
  CHECK(interrupted_at(c, "") ==
        fmt::format("interrupted by SIGTERM while building the platform, at node 0 of 600 ({})",
                    SIGTERM));
  // Polled every 512 accelerators: a signal during node 300 (accelerator 600) stops the
  // construction at accelerator 1,024, node 512's first.
  CHECK(interrupted_at(c, "node-300-acc-0") ==
        fmt::format("interrupted by SIGTERM while building the platform, at node 512 of 600 ({})",
                    SIGTERM));
  // Inside a node too: one node of 2,048 accelerators stops at accelerator 512.
  const ClusterPlatformConfig one_node = config(1, 0, 2048, 8, 2, 1, 0.0);
  CHECK(interrupted_at(one_node, "node-0-acc-300") ==
        fmt::format("interrupted by SIGTERM while building the platform, at node 0 of 1 ({})",
                    SIGTERM));
}
