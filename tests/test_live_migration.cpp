// Live migration to a warm standby (docs/cluster.md, "Live migration to a warm standby"), worked
// out by hand: the downtime of a migration (detection + the peers' copy + the communicators'
// rebuild), a failed node already back restarting in place, a standby failing during the copy,
// the fall-backs to checkpoint-restart (no standby up, no live peer), the communicators rebuilt
// only for the groups with a moved rank, and the real math: the run's parameters are a
// failure-free run's, step for step. Each run is a child process (tests/sim_harness.hpp).
//
// The platform of tests/tiny_cluster.hpp plus one spare: nodes 0 and 1 run the job (2
// accelerators of 1 Gflop/s each), node 2 is the standby; every link 1 GB/s without latency, all
// three under one leaf switch; dp 4 (replicas 0 and 1 on node 0, 2 and 3 on node 1), a
// checkpoint after every 5th step.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim_harness.hpp"
#include "tiny_cluster.hpp"

using failsim::testing::check_same_results;
using failsim::testing::collective_of;
using failsim::testing::end_of;
using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::near;
using failsim::testing::node_event;
using failsim::testing::run_isolated;
using failsim::testing::seconds;
using failsim::testing::stepped_by_hand;
using failsim::testing::sum_of_causes;
using failsim::testing::tiny::LOAD;
using failsim::testing::tiny::STEP;
using failsim::testing::tiny::WRITE;
using nlohmann::json;

namespace {

constexpr double DETECTION = 0.5;
// The peers' copy: ranks 2 and 3 (replicas 2 and 3, node 1) take their state from replica 0's
// rank 0, the first live replica after theirs (replica 3 is on the failed node too): 14 bytes
// a parameter x 1e6 each, both out of rank 0's accelerator link and node 0's NIC at 1 GB/s.
constexpr double COPY = 2 * 14e6 / 1e9;
// The rebuilt communicators: the data-parallel group of ranks 2 and 3 (tp = pp = 1), every rank
// of the job: init_base + init_per_rank x 4.
constexpr double INIT_BASE = 0.1;
constexpr double INIT_PER_RANK = 0.01;
constexpr double REBUILD = INIT_BASE + 4 * INIT_PER_RANK;
// A job restart of the fall-back: scheduler, process start, the communicators of every rank.
constexpr double RESTART = 0.1 + 0.1 + REBUILD;
// Node 1 fails halfway through step 8 (the checkpoint after step 5 took WRITE).
constexpr double FAILED_AT = 7 * STEP + WRITE + STEP / 2;

json build(const std::string& name, json events, int spares = 1) {
  json s = failsim::testing::tiny_cluster(name, json::parse(R"({
        "platform": {"topology": {"nodes_per_leaf": 4}},
        "failures": {"detection": {"kind": "watchdog", "timeout": "500ms"}},
        "recovery": {"strategy": "live-migration", "restart": {"init_per_rank": "10ms"}}
      })"));
  s["platform"]["spares"] = spares;
  s["failures"]["events"] = std::move(events);
  return s;
}

}  // namespace

TEST_CASE("Live migration: downtime = detection + the peers' copy + the communicators' rebuild",
          "[live-migration]") {
  // Node 1 is down for 10 s: its ranks move to node 2 at detection, copy their state from rank 0
  // and the data-parallel communicator is rebuilt; steps 8 to 10 follow, then the checkpoint
  // after step 10. Nothing rolls back and nobody restarts.
  const IsolatedRun run = run_isolated(build("migrate", {node_event(1, FAILED_AT, 10.0)}).dump());
  const json& c = collective_of(run);
  const double resumed = FAILED_AT + DETECTION + COPY + REBUILD;
  CHECK(end_of(run) == near(resumed + 3 * STEP + WRITE));
  CHECK(seconds(run, "detection") == near(DETECTION));
  CHECK(seconds(run, "checkpoint_load") == near(COPY));
  CHECK(seconds(run, "restart") == near(REBUILD));
  CHECK(seconds(run, "repair_wait") == 0.0);
  CHECK(seconds(run, "lost_work") == near(STEP / 2));
  CHECK(seconds(run, "productive") == near(10 * STEP));
  CHECK(seconds(run, "checkpoint_stall") == near(2 * WRITE));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  CHECK(c["restarts"] == 0);
  CHECK(c["steps"]["rolled_back"] == 0);
  CHECK(c["steps"]["completed"] == 10);
  CHECK(c["spares"]["swaps"] == 1);
  const auto promoted = events_of(run, "promoted", "node-2");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["time"].get<double>() == near(FAILED_AT + DETECTION));
  CHECK(promoted[0]["details"]["replaces"] == "node-1");
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["subject"] == "node-2");
  CHECK(loaded[0]["time"].get<double>() == near(FAILED_AT + DETECTION + COPY));
  CHECK(loaded[0]["details"]["version"] == 7);
  CHECK(loaded[0]["details"]["from"] == "data-parallel-peer");
  CHECK(loaded[0]["details"]["bytes"].get<double>() == 28e6);
  CHECK(events_of(run, "restart").empty());
  CHECK(events_of(run, "rolled_back").empty());
}

TEST_CASE("Live migration: every step and copy simulated gives the same results",
          "[live-migration]") {
  // The copy is a transfer measured once per shape and the swapped step's parts are reused by
  // shape; simulating every step's flows (the exactness check) must not change a thing.
  const std::string s = build("every-step", {node_event(1, FAILED_AT, 10.0)}).dump();
  const IsolatedRun run = run_isolated(s);
  const IsolatedRun every = run_isolated(s, {}, true);
  CHECK(every.flow_sets > run.flow_sets);
  check_same_results(run, every);
}

TEST_CASE("Live migration: a fixed communicator initialisation replaces the restart's formula",
          "[live-migration]") {
  json s = build("fixed-init", {node_event(1, FAILED_AT, 10.0)});
  s["recovery"]["live_migration"] = {{"communicator_init", "250ms"}};
  const IsolatedRun run = run_isolated(s.dump());
  CHECK(seconds(run, "restart") == near(0.25));
  CHECK(end_of(run) == near(FAILED_AT + DETECTION + COPY + 0.25 + 3 * STEP + WRITE));
}

TEST_CASE("Live migration: a failed node back before the detection restarts its own processes",
          "[live-migration]") {
  // Node 1 is down for 200 ms, less than the detection: no standby is taken; its processes start
  // again there (process_start, no scheduler), then the same copy and rebuild.
  const IsolatedRun run = run_isolated(build("in-place", {node_event(1, FAILED_AT, 0.2)}).dump());
  const double start = 0.1;
  CHECK(end_of(run) == near(FAILED_AT + DETECTION + start + COPY + REBUILD + 3 * STEP + WRITE));
  CHECK(seconds(run, "restart") == near(start + REBUILD));
  CHECK(collective_of(run)["spares"]["swaps"] == 0);
  REQUIRE(events_of(run, "checkpoint_loaded").size() == 1);
  CHECK(events_of(run, "checkpoint_loaded")[0]["subject"] == "node-1");
}

TEST_CASE("Live migration: a standby failing during the copy is replaced by the next one",
          "[live-migration]") {
  // Two standbys (nodes 2 and 3). Node 1 fails as above; node 2, its standby, fails halfway
  // through the copy: the copy is cancelled and starts again onto node 3, with no new detection.
  const double second = FAILED_AT + DETECTION + COPY / 2;
  const IsolatedRun run = run_isolated(
      build("standby-fails", {node_event(1, FAILED_AT, 10.0), node_event(2, second, 10.0)}, 2)
          .dump());
  const json& c = collective_of(run);
  CHECK(end_of(run) == near(second + COPY + REBUILD + 3 * STEP + WRITE));
  CHECK(seconds(run, "checkpoint_load") == near(COPY / 2 + COPY));
  CHECK(seconds(run, "restart") == near(REBUILD));
  CHECK(seconds(run, "detection") == near(DETECTION));
  CHECK(c["failures"] == 2);
  CHECK(c["spares"]["swaps"] == 2);
  CHECK(c["restarts"] == 0);
  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 2);
  CHECK(promoted[1]["subject"] == "node-3");
  CHECK(promoted[1]["details"]["replaces"] == "node-2");
  CHECK(promoted[1]["time"].get<double>() == near(second));
  REQUIRE(events_of(run, "checkpoint_loaded").size() == 1);
  CHECK(events_of(run, "checkpoint_loaded")[0]["subject"] == "node-3");
}

TEST_CASE("Live migration falls back to checkpoint-restart without a standby or a live peer",
          "[live-migration]") {
  SECTION("the standby failed while idle: the restart waits for node 1's repair") {
    const IsolatedRun run = run_isolated(
        build("no-standby", {node_event(2, 0.001, 100.0), node_event(1, FAILED_AT, 1.0)}).dump());
    const json& c = collective_of(run);
    CHECK(end_of(run) == near(FAILED_AT + 1.0 + RESTART + LOAD + 5 * STEP + WRITE));
    CHECK(seconds(run, "repair_wait") == near(1.0 - DETECTION));
    CHECK(c["restarts"] == 1);
    CHECK(c["steps"]["rolled_back"] == 2);
    CHECK(events_of(run, "checkpoint_loaded")[0]["details"]["version"] == 5);
  }
  SECTION("both nodes failed: two standbys, but no replica kept its state") {
    const IsolatedRun run = run_isolated(
        build("no-peer", {node_event(0, FAILED_AT, 10.0), node_event(1, FAILED_AT, 10.0)}, 2)
            .dump());
    const json& c = collective_of(run);
    CHECK(end_of(run) == near(FAILED_AT + DETECTION + RESTART + LOAD + 5 * STEP + WRITE));
    CHECK(c["spares"]["swaps"] == 2);
    CHECK(c["restarts"] == 1);
    CHECK(c["steps"]["rolled_back"] == 2);
  }
}

TEST_CASE("Live migration rebuilds only the communicators of the groups with a moved rank",
          "[live-migration]") {
  // 4 nodes of 2 accelerators, dp 2 x pp 2 x tp 2: replica 0's stage 0 on node 0 (ranks 0, 1),
  // stage 1 on node 1 (ranks 2, 3); replica 1 on nodes 2 and 3. Node 1 fails: ranks 2 and 3 move.
  // Their groups: the tensor-parallel group {2, 3}, the pipelines {0, 2} and {1, 3}, the
  // data-parallel groups {2, 6} and {3, 7}: 6 of the 8 ranks initialise again.
  json s = build("groups", {node_event(1, 0.5, 100.0)});
  s["platform"]["nodes"] = 4;
  s["layout"] = {{"dp", 2}, {"pp", 2}, {"tp", 2}, {"overlap", false}};
  s["workload"]["transformer"]["layers"] = 2;
  s["workload"]["transformer"]["hidden"] = 2;
  s["workload"]["transformer"]["heads"] = 2;
  s["recovery"]["checkpoint"]["every_steps"] = 0;
  s["stop"] = {{"time", 2.0}};
  const IsolatedRun run = run_isolated(s.dump());
  CHECK(seconds(run, "restart") == near(INIT_BASE + 6 * INIT_PER_RANK));
  CHECK(collective_of(run)["spares"]["swaps"] == 1);
  CHECK(collective_of(run)["restarts"] == 0);
}

TEST_CASE("Live migration keeps the parameters of the synchronous run, step for step",
          "[live-migration][math]") {
  // The interrupted step (step 8) is lost before its update: no stream gave a batch to it, so the
  // redone step 8 takes the 8th batch of each of the 4 streams, as without the failure; every
  // replica, the moved ones too, holds version 7's parameters and optimizer state. So after 10
  // steps the parameters are those of 10 steps on streams {0, 1, 2, 3}, with the failure or not.
  const int optimizer = GENERATE(0, 1);
  CAPTURE(optimizer);
  json with = build("math", {node_event(1, FAILED_AT, 10.0)});
  with["optimizer"] = failsim::testing::collective::optimizer_section(optimizer);
  json without = with;
  without["failures"]["events"] = json::array();
  const IsolatedRun failed = run_isolated(with.dump());
  const IsolatedRun clean = run_isolated(without.dump());
  REQUIRE(collective_of(failed)["spares"]["swaps"] == 1);
  CHECK(collective_of(failed)["steps"]["completed"] == 10);
  // 10 steps of the 4 replicas' posed sequences (one each): the lost step is not among them.
  CHECK(collective_of(failed)["samples"]["completed"].get<double>() == 40.0);
  CHECK(collective_of(failed)["samples"]["rolled_back"].get<double>() == 0.0);
  CHECK(failed.final_params == clean.final_params);
  CHECK(failed.final_params ==
        stepped_by_hand(with, std::vector<std::vector<int>>(10, {0, 1, 2, 3})));
}
