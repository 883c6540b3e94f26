// The collective protocol's network (sim/collective/): the platform's routes and the times of
// collectives, each against its formula computed here by hand (docs/cluster.md, "Platform and
// network" and "Collectives"). A simulation test: each TEST_CASE runs one Engine in a process
// of its own (catch_discover_tests), since SimGrid does not reset its clock between engines and
// its fat-tree numbers the leaves of a process with a static counter. The driver records
// durations; the checks come after run(), never inside the actor.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <xbt/log.h>
#include <catch2/catch.hpp>

#include "seven_b.hpp"
#include "sim/collective/job/measured_times.hpp"
#include "sim/collective/network/cluster_platform.hpp"
#include "sim/collective/network/collectives.hpp"
#include "sim/collective/network/representatives.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/collective/network/tracked_flows.hpp"
#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/scenario.hpp"

namespace sg4 = simgrid::s4u;
using failsim::sim::ClusterPlatform;
using failsim::sim::ClusterPlatformConfig;
using failsim::sim::Collective;
using failsim::sim::Flow;
using failsim::sim::FlowSet;
namespace collectives = failsim::sim;

namespace {

// Round numbers, so the formulas below read as arithmetic.
constexpr double INTRA_BW = 100e9;  // bytes/s of an accelerator's link to its node's switch
constexpr double INTRA_LAT = 1e-6;
constexpr double NIC_BW = 10e9;  // x 2 NICs: a node's link to its leaf is 20e9
constexpr double NODE_BW = 2 * NIC_BW;
constexpr double NIC_LAT = 5e-6;
constexpr double SWITCH_LAT = 2e-6;
constexpr double FS_WRITE = 5e9;
constexpr double FS_READ = 8e9;
constexpr double FS_LAT = 1e-4;

// Route latencies by class (cluster_platform.hpp).
constexpr double SAME_NODE = 2 * INTRA_LAT;
constexpr double SAME_LEAF = 2 * INTRA_LAT + 2 * NIC_LAT;
constexpr double CROSS_LEAF = SAME_LEAF + 2 * SWITCH_LAT;
constexpr double TO_FS = INTRA_LAT + NIC_LAT + FS_LAT;

ClusterPlatformConfig config(int nodes, int accelerators, int nodes_per_leaf) {
  ClusterPlatformConfig c;
  c.nodes = nodes;
  c.node.accelerators = accelerators;
  c.node.accelerator_speed = 1e12;
  c.node.intra_bandwidth = INTRA_BW;
  c.node.intra_latency = INTRA_LAT;
  c.node.nics = 2;
  c.node.nic_bandwidth = NIC_BW;
  c.node.nic_latency = NIC_LAT;
  c.topology.nodes_per_leaf = nodes_per_leaf;
  c.topology.spines = 1;
  c.topology.uplinks = 1;
  c.topology.uplink_bandwidth = 0.0;  // non-blocking: nodes_per_leaf x 20e9
  c.topology.switch_latency = SWITCH_LAT;
  c.file_system.write_bandwidth = FS_WRITE;
  c.file_system.read_bandwidth = FS_READ;
  c.file_system.latency = FS_LAT;
  return c;
}

/// Builds `c` under the cluster network model, runs `driver` in one actor on the coordinator.
void simulate(const ClusterPlatformConfig& c,
              const std::function<void(const ClusterPlatform&)>& driver) {
  static int simulations = 0;
  REQUIRE(++simulations == 1);  // one per process: run through ctest, or one test case by name
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine engine("test_collectives");
  failsim::sim::use_cluster_network_model(engine);
  const ClusterPlatform platform = failsim::sim::build_cluster_platform(engine, c);
  sg4::Actor::create("driver", platform.coordinator, [&] { driver(platform); });
  engine.run();
}

/// Simulated seconds `collective` takes when run now.
double timed(const Collective& collective) {
  const double start = sg4::Engine::get_clock();
  collectives::run(collective);
  return sg4::Engine::get_clock() - start;
}

std::vector<sg4::Host*> hosts(const ClusterPlatform& p, const std::vector<int>& indices) {
  std::vector<sg4::Host*> out;
  for (int i : indices) out.push_back(p.accelerators[static_cast<std::size_t>(i)]);
  return out;
}

Collective one_phase(std::vector<Flow> flows) { return {{{std::move(flows)}}}; }

Approx exactly(double value) { return Approx(value).epsilon(1e-9).margin(0.0); }

}  // namespace

TEST_CASE("routes: every accelerator pair, and each accelerator to and from the file system",
          "[collective][platform]") {
  // 3 nodes under leaves of 2: one padding slot. 2 spines x 2 uplinks.
  ClusterPlatformConfig c = config(3, 2, 2);
  c.topology.spines = 2;
  c.topology.uplinks = 2;
  int leaves = 0;
  int padding = 0;
  double uplink = 0.0;
  std::vector<std::string> wrong;
  simulate(c, [&](const ClusterPlatform& p) {
    leaves = p.leaves;
    padding = p.padding_slots;
    uplink = p.uplink_bandwidth;
    const int g = p.accelerators_per_node;
    const int n = static_cast<int>(p.accelerators.size());
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        std::vector<sg4::Link*> links;
        double latency = 0.0;
        p.accelerators[static_cast<std::size_t>(a)]->route_to(
            p.accelerators[static_cast<std::size_t>(b)], links, &latency);
        const int na = a / g;
        const int nb = b / g;
        const double expected = na == nb ? SAME_NODE : na / 2 == nb / 2 ? SAME_LEAF : CROSS_LEAF;
        if (links.empty() || std::abs(latency - expected) > 1e-15) {
          wrong.push_back(p.accelerators[static_cast<std::size_t>(a)]->get_name() + " -> " +
                          p.accelerators[static_cast<std::size_t>(b)]->get_name());
        }
      }
      for (bool write : {true, false}) {
        std::vector<sg4::Link*> links;
        double latency = 0.0;
        sg4::Host* acc = p.accelerators[static_cast<std::size_t>(a)];
        if (write) {
          acc->route_to(p.file_system, links, &latency);
        } else {
          p.file_system->route_to(acc, links, &latency);
        }
        const std::string fs_link = write ? "file-system-write" : "file-system-read";
        bool has_fs_link = false;
        bool has_nic = false;
        for (const sg4::Link* l : links) {
          has_fs_link = has_fs_link || l->get_name() == fs_link;
          has_nic =
              has_nic || l == (write ? p.nic_up : p.nic_down)[static_cast<std::size_t>(a / g)];
        }
        if (links.size() != 3 || !has_fs_link || !has_nic || std::abs(latency - TO_FS) > 1e-15) {
          wrong.push_back(acc->get_name() + (write ? " -> file-system" : " <- file-system"));
        }
      }
    }
  });
  CHECK(leaves == 2);
  CHECK(padding == 1);
  CHECK(uplink == exactly(2 * NODE_BW / (2 * 2)));
  CHECK(wrong.empty());
  for (const auto& route : wrong) UNSCOPED_INFO(route);
}

TEST_CASE("ring all-reduce inside one node: 2(N-1) alpha + 2(N-1)/N B/beta", "[collective][ring]") {
  const double bytes = 4e8;
  double took = 0.0;
  std::size_t flows = 0;
  simulate(config(1, 4, 8), [&](const ClusterPlatform& p) {
    const Collective ring = collectives::ring_all_reduce(p.accelerators, bytes);
    flows = ring.flow_count();
    took = timed(ring);
  });
  const double n = 4;
  CHECK(flows == 4);
  CHECK(took == exactly(2 * (n - 1) * SAME_NODE + 2 * (n - 1) / n * bytes / INTRA_BW));
}

TEST_CASE("ring all-reduce across nodes, uniform and mixed rings", "[collective][ring]") {
  const double bytes = 8e8;
  double uniform = 0.0;
  double mixed = 0.0;
  // 4 nodes x 2 accelerators, leaves of 2 nodes.
  simulate(config(4, 2, 2), [&](const ClusterPlatform& p) {
    // Local index 0 of the two nodes under leaf 0: one hop each way, alike.
    uniform = timed(collectives::ring_all_reduce(hosts(p, {0, 2}), bytes));
    // Every accelerator, node-major: hops inside nodes, under a leaf, and across leaves.
    mixed = timed(collectives::ring_all_reduce(p.accelerators, bytes));
  });
  // Uniform: N = 2, alpha = SAME_LEAF, beta = a node's NICs.
  CHECK(uniform == exactly(2 * 1 * SAME_LEAF + 2.0 * 1 / 2 * bytes / NODE_BW));
  // Mixed, N = 8: the slowest flow is a cross-leaf hop (alpha = CROSS_LEAF at a node's NIC
  // bandwidth; each NIC and uplink direction carries one flow), then 2(N-1) - 1 alphas.
  const double n = 8;
  const double per_rank = 2 * (n - 1) / n * bytes;
  CHECK(mixed == exactly(CROSS_LEAF + per_rank / NODE_BW + (2 * (n - 1) - 1) * CROSS_LEAF));
}

TEST_CASE("reduce-scatter and all-gather: (N-1) alpha + (N-1)/N B/beta each",
          "[collective][ring]") {
  const double bytes = 4e8;
  double reduce_scatter = 0.0;
  double all_gather = 0.0;
  simulate(config(1, 4, 8), [&](const ClusterPlatform& p) {
    reduce_scatter = timed(collectives::ring_reduce_scatter(p.accelerators, bytes));
    all_gather = timed(collectives::ring_all_gather(p.accelerators, bytes));
  });
  const double n = 4;
  const double expected = (n - 1) * SAME_NODE + (n - 1) / n * bytes / INTRA_BW;
  CHECK(reduce_scatter == exactly(expected));
  CHECK(all_gather == exactly(expected));
}

TEST_CASE("hierarchical all-reduce: reduce-scatter in nodes, rings across, all-gather in nodes",
          "[collective][hierarchical]") {
  const double bytes = 8e8;
  double took = 0.0;
  std::size_t phases = 0;
  std::size_t flows = 0;
  // M = 4 nodes of G = 2, leaves of 2 nodes.
  simulate(config(4, 2, 2), [&](const ClusterPlatform& p) {
    std::vector<std::vector<sg4::Host*>> nodes;
    for (int n = 0; n < 4; ++n) nodes.push_back({p.accelerator(n, 0), p.accelerator(n, 1)});
    const Collective all_reduce = collectives::hierarchical_all_reduce(nodes, bytes);
    phases = all_reduce.phases.size();
    flows = all_reduce.flow_count();
    took = timed(all_reduce);
  });
  const double g = 2;
  const double m = 4;
  // Phases 1 and 3: a ring of G inside each node.
  const double in_node = (g - 1) * SAME_NODE + (g - 1) / g * bytes / INTRA_BW;
  // Phase 2: G rings of B/G over the M nodes at once; the G flows leaving a node share its
  // NICs (NODE_BW / G each; the uplinks, 40e9 for 2 flows, do not bind), the slowest crosses
  // leaves.
  const double across = 2 * (m - 1) * CROSS_LEAF + 2 * (m - 1) / m * (bytes / g) / (NODE_BW / g);
  CHECK(phases == 3);
  CHECK(flows == 8 + 8 + 8);
  CHECK(took == exactly(2 * in_node + across));
}

TEST_CASE("point-to-point sends: alpha + B/beta, to and from the file system too",
          "[collective][send]") {
  const double bytes = 1e8;
  double across = 0.0;
  double write = 0.0;
  double read = 0.0;
  simulate(config(4, 2, 2), [&](const ClusterPlatform& p) {
    across = timed(collectives::send(p.accelerator(0, 0), p.accelerator(3, 1), bytes));
    write = timed(collectives::send(p.accelerator(1, 1), p.file_system, bytes));
    read = timed(collectives::send(p.file_system, p.accelerator(1, 1), bytes));
  });
  CHECK(across == exactly(CROSS_LEAF + bytes / NODE_BW));
  CHECK(write == exactly(TO_FS + bytes / FS_WRITE));
  CHECK(read == exactly(TO_FS + bytes / FS_READ));
}

TEST_CASE("two rings sharing an uplink take the time of halved bandwidth",
          "[collective][contention]") {
  const double bytes = 4e8;
  double alone = 0.0;
  double together = 0.0;
  // 4 nodes of 1, leaves of 2, one spine, one uplink as fast as a node's NICs: ring A joins
  // nodes 0 and 2, ring B nodes 1 and 3, so both cross leaf 0's uplink (and leaf 1's).
  ClusterPlatformConfig c = config(4, 1, 2);
  c.topology.uplink_bandwidth = NODE_BW;
  simulate(c, [&](const ClusterPlatform& p) {
    const Collective a = collectives::ring_all_reduce(hosts(p, {0, 2}), bytes);
    const Collective b = collectives::ring_all_reduce(hosts(p, {1, 3}), bytes);
    alone = timed(a);
    together = timed(collectives::concurrently({a, b}));
  });
  const double n = 2;
  const auto ring = [&](double beta) {
    return 2 * (n - 1) * CROSS_LEAF + 2 * (n - 1) / n * bytes / beta;
  };
  CHECK(alone == exactly(ring(NODE_BW)));
  CHECK(together == exactly(ring(NODE_BW / 2)));
}

TEST_CASE("flows in the background: done later, waited for until a deadline, cancelled",
          "[collective][background]") {
  const double bytes = 1e8;
  double deadline_reached = 0.0;
  bool done_at_deadline = true;
  bool waited = false;
  double end = 0.0;
  double clock_after_wait = 0.0;
  bool run_before_deadline = true;
  double clock_after_run = 0.0;
  double after_cancel = 0.0;
  bool empty_done = false;
  simulate(config(1, 4, 8), [&](const ClusterPlatform& p) {
    // A checkpoint: every accelerator writes `bytes` to the file system, sharing its write link.
    std::vector<Flow> writes;
    for (sg4::Host* acc : p.accelerators) writes.push_back({acc, p.file_system, bytes, 0.0});
    FlowSet checkpoint(writes);
    const double half = (TO_FS + 4 * bytes / FS_WRITE) / 2;
    done_at_deadline = checkpoint.wait_until(half) || checkpoint.done();
    deadline_reached = sg4::Engine::get_clock();
    waited = checkpoint.wait_until();
    end = checkpoint.end_time();
    clock_after_wait = sg4::Engine::get_clock();

    // A collective stopped by a failure at a known time, then the same links alone.
    const double start = sg4::Engine::get_clock();
    const Collective ring = collectives::ring_all_reduce(p.accelerators, 4e8);
    run_before_deadline = collectives::run(ring, start + 1e-3);
    clock_after_run = sg4::Engine::get_clock() - start;
    after_cancel = timed(ring);

    FlowSet none(std::vector<Flow>{});
    empty_done = none.done() && none.wait_until(sg4::Engine::get_clock()) &&
                 none.end_time() == sg4::Engine::get_clock();
  });
  const double checkpoint_time = TO_FS + 4 * bytes / FS_WRITE;
  CHECK_FALSE(done_at_deadline);
  CHECK(deadline_reached == exactly(checkpoint_time / 2));
  CHECK(waited);
  CHECK(end == exactly(checkpoint_time));
  CHECK(clock_after_wait == exactly(checkpoint_time));
  CHECK_FALSE(run_before_deadline);
  CHECK(clock_after_run == exactly(1e-3));
  // The cancelled flows left the links: the ring again takes its own time.
  CHECK(after_cancel == exactly(2 * 3 * SAME_NODE + 2 * 3.0 / 4 * 4e8 / INTRA_BW));
  // An empty set has ended when it starts, whatever the deadline.
  CHECK(empty_done);
}

TEST_CASE("flow shapes: the same links up to their names, and the same time",
          "[collective][shape]") {
  // 4 nodes of 2 under leaves of 2. Node 0's writes and node 3's cross the same kinds of links
  // (an accelerator link, the node's NIC, the file system's write link); node 3's ring to node 2
  // stays under its leaf as node 0's to node 1 does, while node 1's to node 2 crosses a spine.
  std::vector<bool> same;
  double write0 = 0.0;
  double write3 = 0.0;
  simulate(config(4, 2, 2), [&](const ClusterPlatform& p) {
    const auto writes = [&](int node) {
      std::vector<Flow> flows;
      for (int g = 0; g < 2; ++g) flows.push_back({p.accelerator(node, g), p.file_system, 1e8});
      return flows;
    };
    const auto ring = [&](int a, int b) {
      return collectives::ring_all_reduce({p.accelerator(a, 0), p.accelerator(b, 0)}, 1e8)
          .phases.front()
          .flows;
    };
    std::vector<Flow> bigger = writes(0);
    bigger.back().bytes *= 2;
    std::vector<Flow> later = writes(0);
    later.back().extra_latency = 1e-6;
    using failsim::sim::shape_of;
    same = {shape_of(writes(0)) == shape_of(writes(3)),
            shape_of(ring(0, 1)) == shape_of(ring(3, 2)),
            shape_of(ring(0, 1)) == shape_of(ring(1, 2)),
            shape_of(writes(0)) == shape_of(bigger),
            shape_of(writes(0)) == shape_of(later),
            shape_of(writes(0)) == shape_of(collectives::ring_all_reduce(
                                                {p.accelerator(0, 0), p.accelerator(0, 1)}, 1e8)
                                                .phases.front()
                                                .flows)};
    FlowSet a(writes(0));
    a.wait_until();
    write0 = a.end_time() - 0.0;
    const double start = sg4::Engine::get_clock();
    FlowSet b(writes(3));
    b.wait_until();
    write3 = b.end_time() - start;
  });
  CHECK(same == std::vector<bool>{true, true, false, false, false, false});
  CHECK(write0 == exactly(TO_FS + 2 * 1e8 / FS_WRITE));
  CHECK(write3 == exactly(write0));
}

TEST_CASE("representatives: one independent group of each shape, in the time of all",
          "[collective][symmetry]") {
  // 4 nodes of 2 under leaves of 2, one spine, non-blocking uplinks (2 x 20e9). Two rings over
  // the nodes in order, one per local index (a hierarchical all-reduce's rings): node a's two
  // flows to node a + 1 share its NIC and node a + 1's, at a load equal to the NICs' bandwidth,
  // so each pair is a group; a non-blocking uplink carries one pair at a time and joins nothing.
  // The pairs 0->1 and 2->3 stay under their leaf, 1->2 and 3->0 cross the spine: two shapes.
  using failsim::sim::representatives;
  std::vector<std::size_t> kept;
  double all = 0.0, some = 0.0, writes = 0.0, writes_kept = 0.0;
  std::size_t writes_size = 0;
  double mixed = 0.0, mixed_kept = 0.0;
  std::size_t mixed_size = 0;
  simulate(config(4, 2, 2), [&](const ClusterPlatform& p) {
    std::vector<Flow> rings;
    for (int g = 0; g < 2; ++g) {
      std::vector<sg4::Host*> ring;
      for (int n = 0; n < 4; ++n) ring.push_back(p.accelerator(n, g));
      const Collective c = collectives::ring_all_reduce(ring, 4e8);
      for (const Flow& f : c.phases.front().flows) rings.push_back(f);
    }
    const std::vector<Flow> reps = representatives(rings);
    for (const Flow& r : reps) {
      for (std::size_t i = 0; i < rings.size(); ++i) {
        if (rings[i].from == r.from && rings[i].to == r.to) kept.push_back(i);
      }
    }
    all = timed(one_phase(rings));
    some = timed(one_phase(reps));
    // Every accelerator writing to the file system: all share its write link, one group.
    std::vector<Flow> to_fs;
    for (sg4::Host* acc : p.accelerators) to_fs.push_back({acc, p.file_system, 1e8});
    writes_size = representatives(to_fs).size();
    writes = timed(one_phase(to_fs));
    writes_kept = timed(one_phase(representatives(to_fs)));
    // Irregular: the rings, plus node 1's accelerators sending to node 0 (node 1's NIC now
    // carries four flows, node 0's too: pairs 1->2 and 3->0 join them) and a write from node 3
    // (beside its pair to node 0, more than its NIC). The pair 2->3 is still a group of its own,
    // of 0->1's shape.
    std::vector<Flow> irregular = rings;
    irregular.push_back({p.accelerator(1, 0), p.accelerator(0, 1), 3e8});
    irregular.push_back({p.accelerator(1, 1), p.accelerator(0, 0), 1e8, 2e-6});
    irregular.push_back({p.accelerator(3, 1), p.file_system, 2e8});
    const std::vector<Flow> irregular_kept = representatives(irregular);
    mixed_size = irregular_kept.size();
    mixed = timed(one_phase(irregular));
    mixed_kept = timed(one_phase(irregular_kept));
  });
  // Ring g's flow from node a is flow 4g + a: the pairs 0->1 (flows 0, 4) and 1->2 (1, 5).
  CHECK(kept == std::vector<std::size_t>{0, 1, 4, 5});
  const double cross = 2 * 3 * CROSS_LEAF + 2 * 3.0 / 4 * 4e8 / (NODE_BW / 2);
  CHECK(all == exactly(cross));
  CHECK(some == exactly(all));
  CHECK(writes_size == 8);
  CHECK(writes_kept == exactly(writes));
  CHECK(mixed_size == 9);
  CHECK(mixed_kept == exactly(mixed));
}

TEST_CASE("representatives: flows that may share a blocking uplink are one group",
          "[collective][symmetry]") {
  // The two rings of "two rings sharing an uplink": 0->2 and 1->3 cross leaf 0's uplink, as
  // fast as one node's NICs, and may need more: they are a group, and so are 2->0 and 3->1
  // (leaf 1's): one shape, whose flows take the halved bandwidth.
  std::size_t kept = 0;
  double all = 0.0, some = 0.0;
  ClusterPlatformConfig c = config(4, 1, 2);
  c.topology.uplink_bandwidth = NODE_BW;
  simulate(c, [&](const ClusterPlatform& p) {
    const Collective a = collectives::ring_all_reduce(hosts(p, {0, 2}), 4e8);
    const Collective b = collectives::ring_all_reduce(hosts(p, {1, 3}), 4e8);
    const std::vector<Flow> flows = collectives::concurrently({a, b}).phases.front().flows;
    const std::vector<Flow> reps = failsim::sim::representatives(flows);
    kept = reps.size();
    all = timed(one_phase(flows));
    some = timed(one_phase(reps));
  });
  CHECK(kept == 2);
  CHECK(all == exactly(2 * CROSS_LEAF + 4e8 / (NODE_BW / 2)));
  CHECK(some == exactly(all));
}

TEST_CASE("representatives after spare swaps: groups formed again where the swap touched",
          "[collective][symmetry]") {
  // 32 nodes of 2 under leaves of 4, and 4 spares (nodes 32-35, leaf 8). A step-like phase: a
  // ring over the nodes per local index, and sends from each even node to the next. Plan nodes
  // move to spares and back, one at a time (a few flows change: FlowGroups::update forms again
  // only the groups they touch); after each move the groups' representatives are those formed
  // from scratch, and the representatives take the time of all the flows.
  using failsim::sim::FlowGroups;
  using failsim::sim::representatives;
  const auto ends = [](const std::vector<Flow>& flows) {
    std::vector<std::pair<sg4::Host*, sg4::Host*>> out;
    for (const Flow& f : flows) out.emplace_back(f.from, f.to);
    return out;
  };
  std::vector<bool> same;
  std::vector<std::size_t> kept;
  double all = 0.0, some = 0.0;
  simulate(config(36, 2, 4), [&](const ClusterPlatform& p) {
    std::vector<int> node(32);
    for (int n = 0; n < 32; ++n) node[static_cast<std::size_t>(n)] = n;
    const auto phase = [&] {
      std::vector<Flow> flows;
      const auto acc = [&](int n, int g) {
        return p.accelerator(node[static_cast<std::size_t>(n)], g);
      };
      for (int g = 0; g < 2; ++g) {
        for (int n = 0; n < 32; ++n) flows.push_back({acc(n, g), acc((n + 1) % 32, g), 3e8, 1e-6});
      }
      for (int n = 0; n < 32; n += 2) {
        for (int g = 0; g < 2; ++g) flows.push_back({acc(n, g), acc(n + 1, g), 1e8});
      }
      return flows;
    };
    FlowGroups groups(phase());
    for (const auto& [plan_node, platform_node] :
         {std::pair{5, 32}, std::pair{17, 33}, std::pair{5, 5}, std::pair{9, 32},
          std::pair{30, 34}}) {
      node[static_cast<std::size_t>(plan_node)] = platform_node;
      const std::vector<Flow> flows = phase();
      groups.update(flows);
      same.push_back(ends(groups.representatives()) == ends(representatives(flows)));
      kept.push_back(groups.representatives().size());
    }
    all = timed(one_phase(phase()));
    some = timed(one_phase(groups.representatives()));
  });
  CHECK(same == std::vector<bool>(5, true));
  for (std::size_t k : kept) CHECK(k < 96 / 2);
  CHECK(some == exactly(all));
}

TEST_CASE("a step network after spare swaps: the flows of one built on the new assignment",
          "[collective][symmetry][spares]") {
  // 8 plan nodes of 2 accelerators (dp 4 x tp 2 x pp 2) and 4 spares (nodes 8-11), leaves of 4.
  // Plan nodes move to spares and back, one at a time: a swap builds again only the groups of
  // the moved node's ranks and writes their flows over the old ones (groups_at_once.hpp), and
  // forms again only the flow groups they touch. After each swap every part's flows and
  // representatives, and the checkpoint's writes and reads (kept since before the first swap,
  // their moved ranks' flows written in place), are those of a step network built from scratch on
  // the same assignment, for ring and hierarchical data-parallel all-reduces. A third network
  // is given every swap but asked for its flows only after the last (its groups built once for
  // all six, StepNetwork::assign), and has the same flows as the one asked after each.
  using failsim::sim::Assignment;
  using failsim::sim::DataParallelAlgorithm;
  using failsim::sim::StepFlows;
  using failsim::sim::StepNetwork;
  using failsim::sim::StepPart;
  failsim::sim::Scenario s = failsim::testing::seven_b();
  auto& c = s.collective;
  c.platform.nodes = 8;
  c.platform.node.accelerators = 2;
  c.platform.node.device_memory = 1e15;
  c.layout.dp = 4;
  c.layout.tp = 2;
  c.layout.pp = 2;
  c.layout.micro_batches = 2;
  const failsim::sim::CollectivePlan plan =
      failsim::sim::plan_collective(s, std::nullopt, "swaps.json");
  const auto flows_of = [](StepNetwork& n, StepFlows which) {
    std::vector<std::vector<Flow>> out;
    for (StepPart part :
         {StepPart::TENSOR_PARALLEL, StepPart::PIPELINE_SEND, StepPart::DATA_PARALLEL}) {
      for (const auto& phase : n.collective(part, which).phases) out.push_back(phase.flows);
    }
    return out;
  };
  std::vector<bool> same;
  std::size_t flows = 0;
  simulate(config(12, 2, 4), [&](const ClusterPlatform& p) {
    for (DataParallelAlgorithm algorithm :
         {DataParallelAlgorithm::RING, DataParallelAlgorithm::HIERARCHICAL}) {
      StepNetwork swapped(plan, p, algorithm);
      StepNetwork deferred(plan, p, algorithm);
      flows = swapped.flows_per_step();
      const failsim::sim::TrackedFlows& writes = swapped.checkpoint_writes();
      const failsim::sim::TrackedFlows& reads = swapped.checkpoint_reads();
      Assignment a = Assignment::full(plan);
      for (const auto& [plan_node, platform_node] :
           {std::pair{5, 8}, std::pair{2, 9}, std::pair{5, 5}, std::pair{0, 10}, std::pair{7, 8},
            std::pair{2, 11}}) {
        a.node[static_cast<std::size_t>(plan_node)] = platform_node;
        swapped.assign(a);
        deferred.assign(a);
        // From scratch: a network moves to another set of replicas by building every group.
        StepNetwork fresh(plan, p, algorithm);
        Assignment without_first = a;
        without_first.active[0] = false;
        fresh.assign(without_first);
        fresh.assign(a);
        same.push_back(flows_of(swapped, StepFlows::EVERY) == flows_of(fresh, StepFlows::EVERY) &&
                       flows_of(swapped, StepFlows::REPRESENTATIVES) ==
                           flows_of(fresh, StepFlows::REPRESENTATIVES) &&
                       &swapped.checkpoint_writes() == &writes &&
                       writes.flows() == fresh.checkpoint_writes().flows() &&
                       reads.flows() == fresh.checkpoint_reads().flows());
      }
      same.push_back(flows_of(deferred, StepFlows::EVERY) == flows_of(swapped, StepFlows::EVERY) &&
                     flows_of(deferred, StepFlows::REPRESENTATIVES) ==
                         flows_of(swapped, StepFlows::REPRESENTATIVES));
    }
  });
  CHECK(flows > 0);
  CHECK(same == std::vector<bool>(14, true));
}

TEST_CASE("transfers taken by renaming: the same time exactly when the same shape",
          "[collective][shape]") {
  // 20 nodes of 2 under leaves of 4. A checkpoint's write from 16 plan nodes (each accelerator
  // to the file system) is measured once; then, in each trial, one plan node moves to a spare
  // (nodes 16-19) and, one time in three, another to any node, maybe one another plan node is on
  // (its NIC then carries 4 flows: another shape). Each new write is taken as measured when, and
  // only when, its flows have the measured one's shape (MeasuredTimes decides it by renaming the
  // moved nodes' links when few flows changed since the last write, else by the shapes).
  using failsim::sim::Assignment;
  using failsim::sim::MeasuredTimes;
  using failsim::sim::shape_of;
  std::vector<bool> taken, same_shape;
  simulate(config(20, 2, 4), [&](const ClusterPlatform& p) {
    std::vector<int> node(16);
    for (int n = 0; n < 16; ++n) node[static_cast<std::size_t>(n)] = n;
    const auto writes = [&] {
      std::vector<Flow> out;
      for (int n : node) {
        for (int g = 0; g < 2; ++g) out.push_back({p.accelerator(n, g), p.file_system, 1e8});
      }
      return out;
    };
    Assignment a;
    a.node = node;
    MeasuredTimes measured;
    const std::vector<Flow> first = writes();
    const auto shape = std::make_shared<const failsim::sim::FlowShape>(shape_of(first));
    measured.add_transfer("write", a, 1.25, shape, first);
    std::uint64_t state = 12345;
    const auto draw = [&](int n) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(n));
    };
    for (int trial = 0; trial < 60; ++trial) {
      // From the plan's nodes, one moved to a node no plan node is on (a spare), and one time in
      // three another moved to any node.
      for (int n = 0; n < 16; ++n) node[static_cast<std::size_t>(n)] = n;
      node[static_cast<std::size_t>(draw(16))] = 16 + draw(4);
      if (draw(3) == 0) node[static_cast<std::size_t>(draw(16))] = draw(20);
      a.node = node;
      const std::vector<Flow> now = writes();
      const MeasuredTimes::Transfer t = measured.transfer("write", a, now);
      taken.push_back(t.seconds.has_value() && *t.seconds == 1.25);
      same_shape.push_back(shape_of(now) == *shape);
    }
  });
  CHECK(taken == same_shape);
  CHECK(std::count(same_shape.begin(), same_shape.end(), true) > 5);
  CHECK(std::count(same_shape.begin(), same_shape.end(), false) > 5);
}

TEST_CASE("transfers kept in place: the decisions of the same flows given whole",
          "[collective][shape]") {
  // As above on 128 plan nodes and 4 spares, the write's flows kept in a TrackedFlows whose moved
  // nodes' flows are written in place: one MeasuredTimes compares them with the last write's at
  // the flows written since, the other is given them whole. Every write is taken, or not,
  // alike, and written_since names every flow that differs from the last write's (or nothing,
  // when more than an eighth were written since).
  using failsim::sim::Assignment;
  using failsim::sim::MeasuredTimes;
  using failsim::sim::TrackedFlows;
  constexpr int PLAN_NODES = 128;
  std::vector<bool> alike, written_right;
  std::size_t taken = 0, known = 0;
  simulate(config(PLAN_NODES + 4, 2, 4), [&](const ClusterPlatform& p) {
    std::vector<int> node(PLAN_NODES);
    for (int n = 0; n < PLAN_NODES; ++n) node[static_cast<std::size_t>(n)] = n;
    const auto write_of = [&](int plan_node, int g) {
      return Flow{p.accelerator(node[static_cast<std::size_t>(plan_node)], g), p.file_system, 1e8};
    };
    std::vector<Flow> whole;
    for (int n = 0; n < PLAN_NODES; ++n) {
      for (int g = 0; g < 2; ++g) whole.push_back(write_of(n, g));
    }
    TrackedFlows kept;
    kept.reset(whole);
    const auto move = [&](int n, int to) {
      node[static_cast<std::size_t>(n)] = to;
      for (int g = 0; g < 2; ++g) {
        whole[static_cast<std::size_t>(2 * n + g)] = write_of(n, g);
        kept.write(static_cast<std::size_t>(2 * n + g), write_of(n, g));
      }
    };
    Assignment a;
    a.node = node;
    MeasuredTimes by_tracking, by_comparing;
    const auto shape = std::make_shared<const failsim::sim::FlowShape>(shape_of(whole));
    by_tracking.add_transfer("write", a, 1.25, shape, kept.flows(), &kept);
    by_comparing.add_transfer("write", a, 1.25, shape, whole);
    std::vector<Flow> last = whole;
    std::uint64_t last_version = kept.version();
    std::uint64_t state = 777;
    const auto draw = [&](int n) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(n));
    };
    for (int trial = 0; trial < 60; ++trial) {
      // The moved plan nodes back, then one to a spare and, one time in three, another to any
      // node; every third trial takes no transfer, so that the writes since the last one add up.
      for (int n = 0; n < PLAN_NODES; ++n) {
        if (node[static_cast<std::size_t>(n)] != n) move(n, n);
      }
      move(draw(PLAN_NODES), PLAN_NODES + draw(4));
      if (draw(3) == 0) move(draw(PLAN_NODES), draw(PLAN_NODES + 4));
      if (trial % 3 == 2) continue;
      a.node = node;
      std::vector<std::uint32_t> differ;
      for (std::size_t i = 0; i < whole.size(); ++i) {
        if (!(whole[i] == last[i])) differ.push_back(static_cast<std::uint32_t>(i));
      }
      const std::optional<std::vector<std::uint32_t>> written = kept.written_since(last_version);
      // A superset of those that differ (a flow moved and back is written twice, differs not).
      written_right.push_back(kept.flows() == whole &&
                              (!written || std::includes(written->begin(), written->end(),
                                                         differ.begin(), differ.end())));
      known += written ? 1 : 0;
      const MeasuredTimes::Transfer t = by_tracking.transfer("write", a, kept);
      const MeasuredTimes::Transfer u = by_comparing.transfer("write", a, whole);
      alike.push_back(t.seconds == u.seconds);
      taken += t.seconds ? 1 : 0;
      last = whole;
      last_version = kept.version();
    }
  });
  CHECK(alike == std::vector<bool>(40, true));
  CHECK(written_right == std::vector<bool>(40, true));
  CHECK(known > 30);
  CHECK(taken > 5);
  CHECK(taken < 40);
}

TEST_CASE("a ring all-reduce over 1,024 ranks (128 nodes x 8) starts 1,024 flows",
          "[collective][ring][scale]") {
  const double bytes = 1024e6;
  double took = 0.0;
  std::size_t flows = 0;
  simulate(config(128, 8, 8), [&](const ClusterPlatform& p) {
    const Collective ring = collectives::ring_all_reduce(p.accelerators, bytes);
    flows = ring.flow_count();
    took = timed(ring);
  });
  const double n = 1024;
  const double per_rank = 2 * (n - 1) / n * bytes;
  CHECK(flows == 1024);
  CHECK(took == exactly(CROSS_LEAF + per_rank / NODE_BW + (2 * (n - 1) - 1) * CROSS_LEAF));
}

TEST_CASE("the cluster network model: an 8 x 400 Gb/s node gets its NICs' bandwidth at 12 us",
          "[collective][model]") {
  // SimGrid's default TCP-gamma would bound this flow to 4 MiB / (2 x 12 us) = 175 GB/s.
  ClusterPlatformConfig c = config(2, 1, 2);
  c.node.intra_bandwidth = 900e9;
  c.node.nics = 8;
  c.node.nic_bandwidth = 50e9;
  const double bytes = 4e9;
  double took = 0.0;
  simulate(c, [&](const ClusterPlatform& p) {
    took = timed(collectives::send(p.accelerator(0, 0), p.accelerator(1, 0), bytes));
  });
  CHECK(took == exactly(SAME_LEAF + bytes / 400e9));
}

TEST_CASE("bad sizes are refused: the platform's and the collectives'", "[collective][errors]") {
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine engine("test_collectives");
  failsim::sim::use_cluster_network_model(engine);
  ClusterPlatformConfig bad = config(0, 2, 2);
  CHECK_THROWS_WITH(failsim::sim::build_cluster_platform(engine, bad),
                    "cluster platform: nodes must be >= 1, found 0");
  bad = config(2, 2, 2);
  bad.node.nic_bandwidth = 0.0;
  CHECK_THROWS_WITH(failsim::sim::build_cluster_platform(engine, bad),
                    "cluster platform: nic_bandwidth must be > 0, found 0");
  bad = config(2, 2, 2);
  bad.topology.switch_latency = -1e-6;
  CHECK_THROWS_AS(failsim::sim::build_cluster_platform(engine, bad), std::invalid_argument);
  // Nothing was built by the refusals: a good platform still builds.
  const ClusterPlatform p = failsim::sim::build_cluster_platform(engine, config(2, 2, 2));
  CHECK(p.accelerators.size() == 4);
  CHECK_THROWS_WITH(collectives::ring_all_reduce({}, 1.0), "ring all-reduce: no rank");
  CHECK_THROWS_WITH(collectives::ring_reduce_scatter(hosts(p, {0, 1}), -1.0),
                    "ring reduce-scatter: bytes -1 < 0");
  CHECK_THROWS_WITH(collectives::hierarchical_all_reduce({hosts(p, {0, 1}), hosts(p, {2})}, 1.0),
                    "hierarchical all-reduce: nodes of 2 and 1 ranks");
  // A ring of one rank moves nothing.
  CHECK(collectives::ring_all_reduce(hosts(p, {0}), 1.0).flow_count() == 0);
}
