// Per-step quorum (docs/cluster.md, "Per-step quorum"), worked out by hand: a dropped group, the
// smaller batch's step, the heal of a repaired group by a live peer's copy, its rejoin; the
// detection kinds; every group down; min_replicas; the real math against a ReplicaMath stepped
// by hand on the surviving streams; sample accounting; thread counts. Each run is a child
// process (tests/sim_harness.hpp).
//
// The platform of tests/tiny_cluster.hpp: 2 nodes x 2 accelerators of 1 Gflop/s, every link
// 1 GB/s each way without latency, both nodes under one leaf; dp 4, tp = pp = 1, a transformer
// posing as N = 1e6 parameters with one token per replica and step. Two replica groups of 2
// replicas: group 0 is node 0 (replicas 0 and 1), group 1 node 1 (replicas 2 and 3).
#include <catch2/catch.hpp>

#include <string>

#include "reproducible.hpp"
#include "sim_harness.hpp"
#include "tiny_cluster.hpp"

using failsim::testing::end_of;
using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::near;
using failsim::testing::node_event;
using failsim::testing::run_isolated;
using failsim::testing::seconds;
using failsim::testing::stepped_by_hand;
using failsim::testing::sum_of_causes;
using failsim::testing::tiny::T_MB;
using nlohmann::json;

namespace {

// A step of the 4-rank ring (tests/tiny_cluster.hpp); of the 2 ranks of node 0 alone, whose
// ring all-reduce sends 2 (2 - 1) / 2 x 2e6 = 2e6 bytes per rank.
constexpr double S4 = failsim::testing::tiny::STEP;
constexpr double S2 = T_MB + 2e-3;
// The quorum's latency, the lighthouse's heartbeat timeout, the process groups'
// reconfiguration, a group's process start (scheduler delay + start).
constexpr double Q = 0.010;
constexpr double H = 0.050;
constexpr double R = 0.020;
constexpr double START = 0.020;
// The heal of group 1: replica 0 sends its 14e6 bytes of state (checkpoint_bytes / (tp pp)) to
// replica 2, replica 1 to replica 3, both through node 0's NIC (1 GB/s), during a step of the
// 4-rank ring. On that NIC: the ring's flow 1 -> 2 and the two copies, 1/3 GB/s each (max-min);
// the ring's flows 0 -> 1 and 2 -> 3 share an accelerator link with a copy (2/3 GB/s), 3 -> 0
// is alone. The ring's 3e6 bytes through the NIC take 9 ms: the step's all-reduce lasts 9 ms
// (6 ms of interference); the copies have 11e6 bytes left, at 1/2 GB/s each: 22 ms more. The
// copy ends 31 ms after the step began (31e6 bytes through node 0's NIC at 1 GB/s).
constexpr double T_DP_HEAL = 9e-3;
constexpr double HEAL = 31e-3;
constexpr double HEAL_STEP = T_MB + T_DP_HEAL;

json build(const std::string& name, const json& patch) {
  json s = failsim::testing::tiny_cluster(name, json::parse(R"({
        "optimizer": {"momentum": 0.9},
        "stop": {"version": 8},
        "recovery": {"strategy": "quorum",
                     "quorum": {"group_replicas": 2, "latency": "10ms",
                                "heartbeat_timeout": "50ms", "reconfigure": "20ms"},
                     "checkpoint": {"every_steps": 0},
                     "restart": {"scheduler_delay": "10ms", "process_start": "10ms"}}
      })"));
  s.merge_patch(patch);
  return s;
}

/// The scheduled failures `events`, as a patch.
json failures(json events) { return {{"failures", {{"events", std::move(events)}}}}; }

// Steps 1..3 take a quorum and a step each; the fourth's quorum, then node 1 fails halfway
// through its step.
constexpr double FAILED_AT = 3 * (Q + S4) + Q + S4 / 2;

}  // namespace

TEST_CASE("Quorum without failures: a quorum before every step, every batch taken", "[quorum]") {
  const IsolatedRun run = run_isolated(build("clean", {{"stop", {{"version", 4}}}}).dump());
  const json& c = run.result["summary"]["collective"];
  CHECK(end_of(run) == near(4 * (Q + S4)));
  CHECK(seconds(run, "quorum") == near(4 * Q));
  CHECK(seconds(run, "productive") == near(4 * S4));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  CHECK(c["samples"]["kept"].get<double>() == 16.0);
  CHECK(c["samples"]["completed"].get<double>() == 16.0);
  CHECK(c["restarts"] == 0);
}

TEST_CASE("Quorum: a failed group is dropped, healed by a live peer's copy, and rejoins",
          "[quorum]") {
  // Node 1 fails at FAILED_AT for 50 ms: the step is lost (S4 / 2), the lighthouse drops group
  // 1 after H; step 4 again with group 0 alone: a quorum, the reconfiguration, a step of the
  // 2-rank ring. Group 1's processes are up at FAILED_AT + 50 ms + START = FAILED_AT + 70 ms,
  // before step 4 ends (FAILED_AT + H + Q + R + S2 = + 88 ms): it joins step 5's quorum (a
  // reconfiguration again) and receives the state during step 5, which takes group 0's two
  // batches only and whose update waits for the copy. Steps 6..8 run whole.
  const IsolatedRun run =
      run_isolated(build("drop-heal", failures({node_event(1, FAILED_AT, 0.05)})).dump());
  const json& c = run.result["summary"]["collective"];
  const double step4 = FAILED_AT + H + Q + R + S2;
  const double step5 = step4 + Q + R + HEAL;
  CHECK(end_of(run) == near(step5 + 3 * (Q + S4)));
  CHECK(seconds(run, "lost_work") == near(S4 / 2));
  CHECK(seconds(run, "detection") == near(H));
  CHECK(seconds(run, "repair_wait") == 0.0);
  CHECK(seconds(run, "restart") == near(2 * R));
  CHECK(seconds(run, "quorum") == near(9 * Q));
  // Step 5's nominal time is the whole ring's step; its copy's contention is interference.
  CHECK(seconds(run, "productive") == near(7 * S4 + S2));
  CHECK(seconds(run, "interference") == near(T_DP_HEAL - 3e-3));
  CHECK(seconds(run, "checkpoint_load") == near(HEAL - HEAL_STEP));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  // Nothing rolled back, no restart; steps 4 and 5 took 2 of the 4 batches.
  CHECK(c["steps"]["completed"] == 8);
  CHECK(c["steps"]["rolled_back"] == 0);
  CHECK(c["restarts"] == 0);
  CHECK(c["samples"]["kept"].get<double>() == 6 * 4 + 2 * 2);
  CHECK(c["samples"]["kept"].get<double>() < c["samples"]["per_step"].get<double>() * 8);
  const auto resized = events_of(run, "resized", "quorum");
  REQUIRE(resized.size() == 1);
  CHECK(resized[0]["time"].get<double>() == near(FAILED_AT + H));
  CHECK(resized[0]["details"]["dropped"] == json::array({1}));
  const auto joined = events_of(run, "replica_joined", "group-1");
  REQUIRE(joined.size() == 1);
  CHECK(joined[0]["time"].get<double>() == near(step5));
  CHECK(joined[0]["details"]["version"] == 4);

  SECTION("a failure of the dropped group's node only marks it down") {
    const IsolatedRun again = run_isolated(
        build("drop-heal-again",
              failures({node_event(1, FAILED_AT, 0.05), node_event(1, FAILED_AT + 0.06, 0.001)}))
            .dump());
    // Node 1 fails again at + 60 ms for 1 ms, while group 1 starts its processes: they start
    // again at + 61 ms + START = + 81 ms, still before step 4 ends.
    CHECK(again.result["summary"]["collective"]["failures"] == 2);
    // (to SimGrid's clock precision: the sleep the outage split ends 1e-9 s apart)
    CHECK(end_of(again) == Approx(end_of(run)).margin(1e-8));
    CHECK(events_of(again, "detected").size() == 1);
  }
}

TEST_CASE("Quorum: a step is one optimizer step over the surviving groups' batches", "[quorum]") {
  // SGD with momentum, or AdamW: a step without group 1 is one step (and one of AdamW's count)
  // on the mean gradient of group 0's batches; the healed group rejoins the one optimizer state.
  json scenario = build("math", failures({node_event(1, FAILED_AT, 0.05)}));
  scenario["optimizer"] = failsim::testing::collective::optimizer_section(GENERATE(0, 1));
  const IsolatedRun run = run_isolated(scenario.dump());
  const std::vector<int> all{0, 1, 2, 3};
  const std::vector<int> survivors{0, 1};
  // Steps 1..3 on every batch, 4 and 5 on group 0's (group 1 out, then healing), 6..8 on all.
  const std::vector<float> by_hand =
      stepped_by_hand(scenario, {all, all, all, survivors, survivors, all, all, all});
  REQUIRE(run.final_params.size() == by_hand.size());
  CHECK(run.final_params == by_hand);
  // The comparison can fail: every step on every batch is another result.
  CHECK(stepped_by_hand(scenario, std::vector<std::vector<int>>(8, all)) != by_hand);
}

TEST_CASE("Quorum: detection by the collective's timeout waits for failures.detection",
          "[quorum]") {
  json scenario = build("timeout", failures({node_event(1, FAILED_AT, 0.05)}));
  scenario["recovery"]["quorum"].erase("heartbeat_timeout");
  scenario["recovery"]["quorum"]["detection"] = "collective_timeout";
  scenario["failures"]["detection"] = {{"kind", "watchdog"}, {"timeout", "300ms"}};
  const IsolatedRun run = run_isolated(scenario.dump());
  // Noticed 300 ms after the failure: group 1's processes have been up since + 70 ms, so it
  // joins the very next quorum: step 4 is its heal step (group 0's batches only), 5..8 whole.
  const double step4 = FAILED_AT + 0.3 + Q + R + HEAL;
  CHECK(seconds(run, "detection") == near(0.3));
  CHECK(end_of(run) == near(step4 + 4 * (Q + S4)));
  CHECK(seconds(run, "restart") == near(R));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  CHECK(run.result["summary"]["collective"]["samples"]["kept"].get<double>() == 7 * 4 + 2);
}

TEST_CASE("Quorum: with every group down the job restarts from scratch", "[quorum]") {
  // Both nodes fail at FAILED_AT, node 0 for 50 ms, node 1 for 100 ms; noticed after H = 20
  // ms. Nobody holds the state: the job waits for group 0 (back at + 50 ms, processes up at +
  // 70 ms), rolls back to version 0 and starts again alone: step 1 with the reconfiguration,
  // step 2; group 1 is up at + 120 ms, before step 3 (r + 56 ms with r = + 70 ms): it heals
  // during step 3; steps 4..6 whole.
  json scenario =
      build("all-down", failures({node_event(0, FAILED_AT, 0.05), node_event(1, FAILED_AT, 0.1)}));
  scenario["recovery"]["quorum"]["heartbeat_timeout"] = "20ms";
  scenario["stop"]["version"] = 6;
  const IsolatedRun run = run_isolated(scenario.dump());
  const json& c = run.result["summary"]["collective"];
  const double restarted = FAILED_AT + 0.07;
  const double step2 = restarted + (Q + R + S2) + (Q + S2);
  // Group 1 is not up for step 2's quorum, it is for step 3's.
  CHECK(restarted + Q + R + S2 < FAILED_AT + 0.12);
  CHECK(step2 > FAILED_AT + 0.12);
  CHECK(end_of(run) == near(step2 + Q + R + HEAL + 3 * (Q + S4)));
  CHECK(seconds(run, "detection") == near(0.02));
  CHECK(seconds(run, "repair_wait") == near(0.03));
  CHECK(seconds(run, "restart") == near(START + 2 * R));
  CHECK(seconds(run, "lost_work") == near(3 * S4 + S4 / 2));
  CHECK(seconds(run, "quorum") == near(10 * Q));
  CHECK(seconds(run, "productive") == near(4 * S4 + 2 * S2));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  CHECK(c["restarts"] == 1);
  CHECK(c["steps"]["completed"] == 9);
  CHECK(c["steps"]["rolled_back"] == 3);
  CHECK(c["steps"]["kept"] == 6);
  // Steps 1, 2 and 3 (the heal step) take group 0's batches only.
  CHECK(c["samples"]["kept"].get<double>() == 3 * 4 + 3 * 2);
  CHECK(c["samples"]["rolled_back"].get<double>() == 12.0);
  const auto restart = events_of(run, "restart", "job");
  REQUIRE(restart.size() == 1);
  CHECK(restart[0]["time"].get<double>() == near(restarted));
}

TEST_CASE("Quorum: below min_replicas the live groups wait for a group to come back", "[quorum]") {
  // min_replicas 2: after group 1 is dropped (H = 20 ms), group 0 waits for node 1 (back at +
  // 50 ms) and group 1's processes (+ 70 ms); step 4 is then the heal step, steps 5..6 whole.
  json scenario = build("min-replicas", failures({node_event(1, FAILED_AT, 0.05)}));
  scenario["recovery"]["quorum"]["heartbeat_timeout"] = "20ms";
  scenario["recovery"]["quorum"]["min_replicas"] = 2;
  scenario["stop"]["version"] = 6;
  const IsolatedRun run = run_isolated(scenario.dump());
  const json& c = run.result["summary"]["collective"];
  CHECK(end_of(run) == near(FAILED_AT + 0.07 + Q + R + HEAL + 2 * (Q + S4)));
  CHECK(seconds(run, "repair_wait") == near(0.03));
  CHECK(seconds(run, "restart") == near(START + R));
  CHECK(seconds(run, "quorum") == near(7 * Q));
  CHECK(seconds(run, "productive") == near(6 * S4));
  CHECK(sum_of_causes(run) == near(end_of(run)));
  CHECK(c["samples"]["kept"].get<double>() == 5 * 4 + 2);
}

TEST_CASE("Quorum: one scenario and seed give the same result on 1 and 2 threads", "[quorum]") {
  json s = build("threads", failures({node_event(1, FAILED_AT, 0.05)}));
  s["optimizer"] = failsim::testing::collective::optimizer_section(GENERATE(0, 1));
  const std::string scenario = s.dump();
  const IsolatedRun one = run_isolated(scenario, {}, false, 1);
  const IsolatedRun two = run_isolated(scenario, {}, false, 2);
  CHECK(failsim::testing::reproducible_part(one.result) ==
        failsim::testing::reproducible_part(two.result));
  CHECK(one.final_params == two.final_params);
  CHECK(one.events == two.events);
}
