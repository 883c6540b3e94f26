// Spare pool (docs/cluster.md, "Spare pool"), worked out by hand under checkpoint-restart: a
// restart takes a spare instead of waiting for a failed node's repair; with the pool empty it
// waits, for the failed node or for a node of the pool to come back, whichever is first (a
// repaired node returns to the pool); a spare failing while idle is only marked down; the
// pool's idle node-hours. Each run is a child process (tests/sim_harness.hpp); the pool's own
// bookkeeping (spare_pool.hpp) is also worked out engine-free.
//
// The platform of tests/tiny_cluster.hpp plus one spare: nodes 0 and 1 run the job (2
// accelerators of 1 Gflop/s each), node 2 is the spare; every link 1 GB/s without latency, all
// three under one leaf switch; dp 4, a checkpoint after every 5th step.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/collective/job/assignment_log.hpp"
#include "sim/collective/job/spare_pool.hpp"
#include "sim_harness.hpp"
#include "tiny_cluster.hpp"

using failsim::sim::Assignment;
using failsim::sim::ClusterTarget;
using failsim::sim::CollectiveCounts;
using failsim::sim::NodeStates;
using failsim::sim::Recorder;
using failsim::sim::Scenario;
using failsim::sim::SparePool;
using failsim::testing::check_same_results;
using failsim::testing::collective_of;
using failsim::testing::end_of;
using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::near;
using failsim::testing::node_event;
using failsim::testing::run_isolated;
using failsim::testing::seconds;
using failsim::testing::tiny::LOAD;
using failsim::testing::tiny::STEP;
using failsim::testing::tiny::WRITE;
using nlohmann::json;

namespace {

// tests/tiny_cluster.hpp's STEP, WRITE and LOAD: the ring all-reduce is the same whether ranks
// 2 and 3 run on node 1 or on the spare.
constexpr double DETECTION = 0.5;
constexpr double RESTART = 0.3;
// Node 1 fails halfway through step 8 (the checkpoint after step 5 took WRITE).
constexpr double FAILED_AT = 7 * STEP + WRITE + STEP / 2;
// Back at work after detection, restart and load, with a spare.
constexpr double RESUMED = FAILED_AT + DETECTION + RESTART + LOAD;

json build(const std::string& name, json events) {
  json s = failsim::testing::tiny_cluster(name, json::parse(R"({
        "platform": {"spares": 1, "topology": {"nodes_per_leaf": 4}},
        "failures": {"detection": {"kind": "watchdog", "timeout": "500ms"}}
      })"));
  s["failures"]["events"] = std::move(events);
  return s;
}

}  // namespace

TEST_CASE("A failed node's ranks move to a spare: the restart waits for no repair", "[spares]") {
  // Node 1 is down for 0.6 s; the spare takes its place at detection: no repair wait (0.1 s
  // without the spare).
  const IsolatedRun run = run_isolated(build("spare", {node_event(1, FAILED_AT, 0.6)}).dump());
  const json& c = collective_of(run);
  CHECK(end_of(run) == near(RESUMED + 5 * STEP + WRITE));
  CHECK(seconds(run, "repair_wait") == 0.0);
  CHECK(seconds(run, "detection") == near(DETECTION));
  CHECK(seconds(run, "restart") == near(RESTART));
  CHECK(seconds(run, "productive") == near(10 * STEP));
  CHECK(c["spares"]["nodes"] == 1);
  CHECK(c["spares"]["swaps"] == 1);
  const auto promoted = events_of(run, "promoted", "node-2");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["time"].get<double>() == near(FAILED_AT + DETECTION));
  CHECK(promoted[0]["details"]["replaces"] == "node-1");
  // The pool: the spare, idle until it took node 1's place; node 1 from its repair to the end.
  const double idle = (FAILED_AT + DETECTION) + (end_of(run) - (FAILED_AT + 0.6));
  REQUIRE(end_of(run) > FAILED_AT + 0.6);
  CHECK(c["spares"]["pool_node_hours"].get<double>() * 3600.0 == near(idle));
}

TEST_CASE("With the pool empty a restart waits for a repair; a repaired node joins the pool",
          "[spares]") {
  // Node 1 fails (10 s) and the spare takes its place; node 0 fails halfway through the
  // second step after the restart (rolled back to version 5 again).
  const double second = RESUMED + 1.5 * STEP;
  SECTION("node 1, repaired first, takes node 0's place") {
    const IsolatedRun run = run_isolated(
        build("pool", {node_event(1, FAILED_AT, 10.0), node_event(0, second, 10.0)}).dump());
    CHECK(seconds(run, "repair_wait") == near(FAILED_AT + 10.0 - (second + DETECTION)));
    CHECK(end_of(run) == near(FAILED_AT + 10.0 + RESTART + LOAD + 5 * STEP + WRITE));
    CHECK(seconds(run, "lost_work") == near(2.5 * STEP + 1.5 * STEP));
    const auto promoted = events_of(run, "promoted");
    REQUIRE(promoted.size() == 2);
    CHECK(promoted[1]["subject"] == "node-1");
    CHECK(promoted[1]["details"]["replaces"] == "node-0");
    CHECK(promoted[1]["time"].get<double>() == near(FAILED_AT + 10.0));
    CHECK(collective_of(run)["spares"]["swaps"] == 2);
  }
  SECTION("node 0, repaired before node 1, is waited for") {
    const IsolatedRun run = run_isolated(
        build("own-repair", {node_event(1, FAILED_AT, 10.0), node_event(0, second, 1.0)}).dump());
    CHECK(seconds(run, "repair_wait") == near(1.0 - DETECTION));
    CHECK(end_of(run) == near(second + 1.0 + RESTART + LOAD + 5 * STEP + WRITE));
    CHECK(events_of(run, "promoted").size() == 1);
  }
}

TEST_CASE("A spare failing while idle is only marked down", "[spares]") {
  // The spare fails at 1 ms for 100 s: nothing stops; node 1's failure then finds the pool
  // empty and waits for its repair, as without a spare.
  const IsolatedRun run = run_isolated(
      build("spare-down", {node_event(2, 0.001, 100.0), node_event(1, FAILED_AT, 1.0)}).dump());
  const json& c = collective_of(run);
  CHECK(c["failures"] == 2);
  CHECK(events_of(run, "detected").size() == 1);
  CHECK(seconds(run, "repair_wait") == near(1.0 - DETECTION));
  CHECK(end_of(run) == near(FAILED_AT + 1.0 + RESTART + LOAD + 5 * STEP + WRITE));
  CHECK(c["spares"]["swaps"] == 0);
  CHECK(c["steps"]["kept"] == 10);
  CHECK(c["samples"]["kept"].get<double>() == 40.0);
  // The pool's idle time: the spare before its failure only.
  CHECK(c["spares"]["pool_node_hours"].get<double>() * 3600.0 == near(0.001));
}

TEST_CASE("A swap simulates only the collective step's parts whose flows changed shape",
          "[spares][collective]") {
  // dp 2 x tp 2: replica 0 on node 0, replica 1 on node 1, the spare node 2. A step has two parts
  // with flows (no pipeline): the tensor-parallel all-reduces inside each node, and the
  // data-parallel rings between node 0 and node 1. Node 1 fails after the first checkpoint and
  // the spare takes its place. The run simulates the first step's two parts, the checkpoint
  // write and the load at the restart; the write after the swap is reused by shape (the same
  // writers, ranks 0 and 1 on node 0), and so is the swapped step's tensor-parallel part (the
  // spare's accelerator links for node 1's). Under one leaf the spare's routes to node 0 cross
  // the same kinds of links as node 1's (its NIC for node 1's): the data-parallel part is reused
  // too. Under another leaf they cross the spines: that part is simulated again.
  const auto spare_at = [](int nodes_per_leaf) {
    json s = failsim::testing::tiny_cluster("swap-reuse", json::parse(R"({
          "platform": {"spares": 1},
          "layout": {"dp": 2, "tp": 2},
          "workload": {"transformer": {"hidden": 2, "heads": 2}},
          "failures": {"detection": {"kind": "watchdog", "timeout": "500ms"}}
        })"));
    s["platform"]["topology"]["nodes_per_leaf"] = nodes_per_leaf;
    s["failures"]["events"] = json::array({node_event(1, 0.07, 100.0)});
    return s.dump();
  };
  constexpr std::size_t FIRST_STEP = 2, WRITTEN = 1, LOADED = 1;
  for (const auto& [nodes_per_leaf, simulated_again] : {std::pair{4, 0}, std::pair{2, 1}}) {
    CAPTURE(nodes_per_leaf);
    const IsolatedRun run = run_isolated(spare_at(nodes_per_leaf));
    REQUIRE(collective_of(run)["spares"]["swaps"] == 1);
    REQUIRE(events_of(run, "checkpoint_written").size() == 2);
    CHECK(run.flow_sets ==
          FIRST_STEP + WRITTEN + LOADED + static_cast<std::size_t>(simulated_again));
    // Every step simulated (the exactness check) gives the same results.
    const IsolatedRun every = run_isolated(spare_at(nodes_per_leaf), {}, true);
    CHECK(every.flow_sets > run.flow_sets + 10);
    check_same_results(run, every);
  }
}

TEST_CASE("The assignments of 300 swaps, kept as moves, come back whole", "[spares]") {
  // 100 plan nodes on 110 platform nodes; each swap moves one plan node to a free platform node
  // (a pseudo-random walk), some also change the streams or the replicas that run. Each
  // assignment kept (AssignmentLog: every 64th whole, the others as moves since the one before)
  // comes back as it was, and same() tells it from the others, its streams apart when asked.
  using failsim::sim::AssignmentLog;
  std::vector<Assignment> kept;
  AssignmentLog log;
  Assignment a;
  a.active = {true, true};
  a.streams = {0, 1};
  for (int n = 0; n < 100; ++n) a.node.push_back(n);
  std::vector<char> used(110, 0);
  for (int n = 0; n < 100; ++n) used[static_cast<std::size_t>(n)] = 1;
  unsigned x = 12345;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    const auto plan_node = static_cast<std::size_t>((x >> 8) % 100);
    int to = static_cast<int>((x >> 16) % 110);
    while (used[static_cast<std::size_t>(to)] != 0) to = (to + 1) % 110;
    used[static_cast<std::size_t>(a.node[plan_node])] = 0;
    used[static_cast<std::size_t>(to)] = 1;
    a.node[plan_node] = to;
    if (i % 50 == 7) a.streams = {1};
    if (i % 50 == 8) a.active = {true, false};
    if (i % 50 == 9) a.streams = {0, 1}, a.active = {true, true};
    CHECK(log.add(a) == kept.size());
    kept.push_back(a);
  }
  std::size_t whole = 0, matches = 0, without_streams = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    whole += log.at(i) == kept[i] ? 1 : 0;
    for (std::size_t j : {i, (i + 1) % kept.size(), (i + 63) % kept.size()}) {
      matches += log.same(i, kept[j], true) ? 1 : 0;
      Assignment other_streams = kept[j];
      other_streams.streams = {2, 3, 4};
      without_streams += log.same(i, other_streams, false) ? 1 : 0;
      CHECK_FALSE(log.same(i, other_streams, true));
    }
  }
  CHECK(whole == kept.size());
  CHECK(matches == kept.size());          // each is itself, and none of the others
  CHECK(without_streams == kept.size());  // the same with the streams ignored
}

TEST_CASE("The pool by hand: a spare up takes a down node's place, its idle node-seconds",
          "[spares]") {
  // Plan nodes 0 and 1, spare 2 (engine-free: NodeStates and SparePool take the time).
  // Node 1 fails at 1 s for 2 s, node 0 at 4 s for 1 s, node 2 at 4.5 s for good.
  Scenario s;
  s.collective.platform.nodes = 2;
  s.collective.platform.spares = 1;
  s.collective.failures.events = {{ClusterTarget::NODE, 1, 1.0, 2.0},
                                  {ClusterTarget::NODE, 0, 4.0, 1.0},
                                  {ClusterTarget::NODE, 2, 4.5, std::nullopt}};
  NodeStates nodes(s, 3);
  Recorder recorder;
  CollectiveCounts counts;
  SparePool pool(nodes, recorder, counts);
  Assignment a;
  a.node = {0, 1};
  pool.map(a, 0.0);
  const std::vector<char> in_use{1, 1, 1};
  const auto take = [&](double now) {
    while (nodes.take_due(now)) {
    }
  };

  take(0.5);
  CHECK(nodes.events_injected() == std::vector<bool>{false, false, false});
  CHECK(pool.back(0.5) == INFINITY);
  // At 1 s: node 1 down until 3 s (its host memory lost); the spare takes its ranks.
  take(1.0);
  CHECK_FALSE(nodes.up(1, 2.9));
  CHECK(nodes.up(1, 3.0));
  CHECK(nodes.host_memory_lost_at(1) == 1.0);
  CHECK(nodes.host_memory_lost_at(0) == -INFINITY);
  CHECK(pool.swap_in(a, in_use, 1.0) == 1);
  CHECK(a.node == std::vector<int>{0, 2});
  pool.map(a, 1.0);
  CHECK(pool.back(1.5) == 3.0);  // node 1, now in the pool
  // At 4 s: node 0 down; node 1 (repaired, in the pool) is the lowest-numbered node up.
  take(4.0);
  CHECK(pool.swap_in(a, in_use, 4.0) == 1);
  CHECK(a.node == std::vector<int>{1, 2});
  pool.map(a, 4.0);
  // At 4.5 s: node 2 down for good, and the pool's only node (0) down until 5 s: no swap.
  take(4.5);
  CHECK(nodes.back(2) == INFINITY);
  CHECK(pool.swap_in(a, in_use, 4.5) == 0);
  CHECK(a.node == std::vector<int>{1, 2});
  CHECK(pool.back(4.5) == 5.0);
  CHECK(nodes.events_injected() == std::vector<bool>{true, true, true});
  CHECK(counts.spare_swaps == 2);
  CHECK(recorder.events().size() == 2);
  // Idle by 6 s (up and mapped by no plan node): node 2 over [0, 1), node 1 over [3, 4), node 0
  // over [5, 6).
  CHECK(pool.node_seconds(6.0) == 3.0);
}
