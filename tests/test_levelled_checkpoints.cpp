// In-memory checkpoints and lazy multi-level checkpoints (docs/cluster.md), worked out by hand:
// the lazy copy's stall, which version a recovery loads from which level under each failure
// kind, sample accounting, reproducibility. Each run is a child process (tests/sim_harness.hpp).
//
// Two platforms. ONE: a node of one accelerator of 1 Gflop/s, dp 1: a step is its compute and
// nothing else, T = (6e6 + 12) x 4 / 1e9 s, so the copy's window is exactly known. TWO: 2 nodes
// x 2 accelerators, dp 4, accelerator links of 100 GB/s and NICs of 10 GB/s (no latency), a
// file system of 1 GB/s each way: a step is 6.000012 ms of compute and a 0.3 ms all-reduce;
// background copies slow a few steps by less than that, so failures are placed mid-step with a
// wide margin and the versions and recovery times below are exact.
//
// ZeRO 0: every rank's state (what it copies to host memory and reads back) is 14 x 1e6 bytes;
// a node keeps 28e6. Only rank 0 writes to the file system (14e6 bytes).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "collective_fixture.hpp"
#include "reproducible.hpp"
#include "sim_harness.hpp"

using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::run_isolated;
using failsim::testing::TempDir;
using failsim::testing::collective::build;
using failsim::testing::collective::check_same_results;
using failsim::testing::collective::near;
using failsim::testing::collective::optimizer_section;
using failsim::testing::collective::sum_of_causes;
using failsim::testing::collective::time_of;
using nlohmann::json;

namespace {

constexpr double STATE = 14e6;  // bytes of one rank's state
constexpr double T_ONE = (6e6 + 12.0) * 4.0 / 1e9;

/// TWO: the collective tests' scenario (collective_scenario.hpp) with faster links, a rack of
/// both nodes, a watchdog of 100 ms, 20 steps and no checkpoint-restart settings; then `patch`.
json scenario(const std::string& name, const json& patch) {
  json s = build(name, {{"platform",
                         {{"node", {{"intra_bandwidth", "100GBps"}, {"nic_bandwidth", "10GBps"}}},
                          {"domains", {{"nodes_per_rack", 2}}}}},
                        {"evaluation", {{"interval", "50ms"}}},
                        {"stop", {{"version", 20}}},
                        {"failures", {{"detection", {{"kind", "watchdog"}, {"timeout", "100ms"}}}}},
                        {"recovery", {{"checkpoint", nullptr}}}});
  s.merge_patch(patch);
  return s;
}

/// The ONE platform: a node of one accelerator, dp 1.
json one_accelerator(const std::string& name, const json& patch) {
  json s = scenario(name, {{"platform",
                            {{"node", {{"accelerators", 1}}},
                             {"nodes", 1},
                             {"topology", {{"nodes_per_leaf", 1}}},
                             {"domains", {{"nodes_per_rack", 1}}}}},
                           {"layout", {{"dp", 1}}}});
  s.merge_patch(patch);
  return s;
}

json failure(const std::string& target, int index, double at, const json& down_for) {
  return {
      {"failures",
       {{"events", {{{"target", target}, {"index", index}, {"at", at}, {"down_for", down_for}}}}}}};
}

json patched(json s, const json& patch) {
  s.merge_patch(patch);
  return s;
}

/// Steps and samples: completed - rolled back = kept; the causes sum to the end time.
void check_accounting(const IsolatedRun& run) {
  const json& c = run.result["summary"]["collective"];
  CHECK(c["steps"]["completed"].get<std::int64_t>() -
            c["steps"]["rolled_back"].get<std::int64_t>() ==
        c["steps"]["kept"].get<std::int64_t>());
  CHECK(c["samples"]["completed"].get<double>() - c["samples"]["rolled_back"].get<double>() ==
        near(c["samples"]["kept"].get<double>()));
  CHECK(sum_of_causes(run) == near(run.result["summary"]["end_time"].get<double>()));
}

/// The one checkpoint_loaded event: its version and where each node loaded from.
std::pair<std::int64_t, json> loaded(const IsolatedRun& run) {
  const auto events = events_of(run, "checkpoint_loaded");
  REQUIRE(events.size() == 1);
  return {events[0]["details"]["version"].get<std::int64_t>(), events[0]["details"]["from"]};
}

json in_memory(const json& section) {
  return {{"recovery", {{"strategy", "in-memory"}, {"in_memory", section}}}};
}

json multi_level(const json& section) {
  return {{"recovery", {{"strategy", "multi-level"}, {"multi_level", section}}}};
}

// In-memory on TWO, every 5 steps, the file system every 2nd (versions 10, 20); the host copy
// at 50 GB/s (0.28 ms, inside the next step). Steps take 6.300012 ms and a little more while
// copies are sent (less than 0.3 ms in all by then): 15 steps end at about 94.5 ms, the 16th
// not before 100.8 ms, so a failure at 100 ms falls in step 16. The latest in-memory checkpoint
// is version 15 (its partner copies, 2.8 ms, done by about 97.6 ms), the newest on the file
// system version 10.
const json IN_MEMORY =
    in_memory({{"every_steps", 5}, {"host_copy_bandwidth", "50GBps"}, {"file_system_every", 2}});
constexpr double FAILED = 0.1;
// Watchdog 100 ms; the nodes back 1 s after the failure; restart 0.3 s.
constexpr double RESTARTED = FAILED + 1.0 + 0.3;

}  // namespace

TEST_CASE("In-memory: a node's lost state comes from its partner's copy", "[in-memory]") {
  // Node 1 loses its host memory; its copy of version 15 is on node 0 (its partner: node 1 + 1
  // in a ring of 2). Node 0 loads from its own memory (14e6 / 50e9 = 0.28 ms); node 1's ranks
  // 2 and 3 get theirs as flows from node 0's accelerators 0 and 1, sharing node 0's and node
  // 1's NICs: 2 x 14e6 / 10e9 = 2.8 ms.
  const IsolatedRun run = run_isolated(
      patched(scenario("in-memory-partner", IN_MEMORY), failure("node", 1, FAILED, "1s")).dump());
  const auto [version, from] = loaded(run);
  CHECK(version == 15);
  CHECK(from == json{"host-memory", "partner-memory"});
  const double load = 2 * STATE / 10e9;
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(load));
  CHECK(events_of(run, "checkpoint_loaded")[0]["time"].get<double>() == near(RESTARTED + load));
  CHECK(time_of(run)["repair_wait"].get<double>() == near(0.9));
  CHECK(run.result["summary"]["collective"]["steps"]["rolled_back"] == 0);
  check_accounting(run);
}

TEST_CASE("In-memory: a spare that takes a failed node's place holds none of its copies",
          "[in-memory][spares]") {
  // As above, with a hot spare: it takes node 1's place at once (no repair wait), but the copies
  // of node 1's state are where they were made: its own (lost with its memory) and node 0's
  // partner copy. So the spare's ranks load version 15 from node 0, as node 1 would have; the
  // spare's empty host memory is no source (a sweep once loaded from it and moved the version
  // forward after an earlier rollback).
  json s = patched(scenario("in-memory-spare", IN_MEMORY), failure("node", 1, FAILED, "1s"));
  s["platform"]["spares"] = 1;
  const IsolatedRun run = run_isolated(s.dump());
  const auto [version, from] = loaded(run);
  CHECK(version == 15);
  CHECK(from == json{"host-memory", "partner-memory"});
  CHECK(time_of(run)["repair_wait"].get<double>() == 0.0);
  check_accounting(run);
}

TEST_CASE("In-memory: a node that kept its memory loads locally", "[in-memory]") {
  // An accelerator failure keeps node 1's host memory: every rank loads version 15 from its
  // own node at 50 GB/s, 0.28 ms.
  const IsolatedRun run = run_isolated(
      patched(scenario("in-memory-local", IN_MEMORY), failure("accelerator", 2, FAILED, "1s"))
          .dump());
  const auto [version, from] = loaded(run);
  CHECK(version == 15);
  CHECK(from == json{"host-memory", "host-memory"});
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(STATE / 50e9));
  check_accounting(run);
}

TEST_CASE("In-memory: a copy and its replica both lost fall back to the file system",
          "[in-memory]") {
  // A rack (both nodes) loses every host memory: version 15's copies are gone, and the newest
  // on the file system is version 10. Every rank reads 14e6 bytes through the file system's
  // read link of 1 GB/s: 4 x 14e6 / 1e9 = 56 ms. Steps 11 to 15 are rolled back.
  const IsolatedRun run = run_isolated(
      patched(scenario("in-memory-rack", IN_MEMORY), failure("rack", 0, FAILED, "1s")).dump());
  const auto [version, from] = loaded(run);
  CHECK(version == 10);
  CHECK(from == json{"file-system", "file-system"});
  const double load = 4 * STATE / 1e9;
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(load));
  CHECK(events_of(run, "checkpoint_loaded")[0]["time"].get<double>() == near(RESTARTED + load));
  CHECK(run.result["summary"]["collective"]["steps"]["rolled_back"] == 5);
  check_accounting(run);
  // The same placed on one node only ("same-node"): a node failure loses node 1's only copy.
  json same_node = scenario("in-memory-same-node", IN_MEMORY);
  same_node["recovery"]["in_memory"]["placement"] = "same-node";
  const IsolatedRun alone =
      run_isolated(patched(same_node, failure("node", 1, FAILED, "1s")).dump());
  CHECK(loaded(alone).first == 10);
  check_accounting(alone);
}

TEST_CASE("In-memory: no file-system copy and both copies lost restart from scratch",
          "[in-memory]") {
  json s = scenario("in-memory-scratch", IN_MEMORY);
  s["recovery"]["in_memory"]["file_system_every"] = 0;
  const IsolatedRun run = run_isolated(patched(s, failure("rack", 0, FAILED, "1s")).dump());
  CHECK(events_of(run, "checkpoint_loaded").empty());
  CHECK(run.result["summary"]["collective"]["steps"]["rolled_back"] == 15);
  CHECK(time_of(run)["checkpoint_load"].get<double>() == 0.0);
  check_accounting(run);
}

TEST_CASE("The lazy copy blocks exactly when it outlasts forward and backward", "[multi-level]") {
  // ONE: a step is T = 24.000048 ms of compute. The checkpoint of version 5 is copied while step
  // 6 runs; version 10's copy would overlap step 11, which the stop (version 10) never starts.
  // At 1 GB/s the copy takes 14 ms < T: hidden. At 0.5 GB/s it takes 28 ms: step 6's update
  // waits 28 ms - T.
  for (const auto& [bandwidth, copy] :
       {std::pair{"1GBps", STATE / 1e9}, {"0.5GBps", STATE / 0.5e9}}) {
    DYNAMIC_SECTION("host copy at " << bandwidth) {
      const IsolatedRun run = run_isolated(
          one_accelerator(
              std::string("lazy-") + bandwidth,
              patched(multi_level({{"every_steps", 5}, {"host_copy_bandwidth", bandwidth}}),
                      {{"stop", {{"version", 10}}}}))
              .dump());
      const double stall = std::max(0.0, copy - T_ONE);
      CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(stall));
      CHECK(time_of(run)["productive"].get<double>() == near(10 * T_ONE));
      CHECK(time_of(run)["interference"].get<double>() == 0.0);
      CHECK(run.result["summary"]["end_time"].get<double>() == near(10 * T_ONE + stall));
      check_accounting(run);
    }
  }
}

TEST_CASE("Multi-level: each failure kind loads from the level that survives it", "[multi-level]") {
  // TWO, every 5 steps, host copy at 50 GB/s (0.28 ms), local disks writing at 10 GB/s (a
  // node's 28e6 bytes: 2.8 ms) and reading at 1 GB/s. At 100 ms (in step 16, as above) version
  // 15 is in host memory and on the disks; its file-system write (14 ms) is still under way.
  const json levels = multi_level({{"every_steps", 5},
                                   {"host_copy_bandwidth", "50GBps"},
                                   {"disk_write_bandwidth", "10GBps"},
                                   {"disk_read_bandwidth", "1GBps"}});
  const double from_disk = 2 * STATE / 1e9;  // a node's 28e6 bytes from its disk
  SECTION("an accelerator: host memory everywhere") {
    const IsolatedRun run = run_isolated(
        patched(scenario("ml-accelerator", levels), failure("accelerator", 0, FAILED, "1s"))
            .dump());
    CHECK(loaded(run) == std::pair<std::int64_t, json>{15, {"host-memory", "host-memory"}});
    CHECK(time_of(run)["checkpoint_load"].get<double>() == near(STATE / 50e9));
    CHECK(time_of(run)["checkpoint_stall"].get<double>() == 0.0);
    check_accounting(run);
  }
  SECTION("a NIC, a switch: host memory kept") {
    for (const char* target : {"nic", "switch"}) {
      const IsolatedRun run = run_isolated(
          patched(scenario(std::string("ml-") + target, levels), failure(target, 0, FAILED, "1s"))
              .dump());
      CHECK(loaded(run) == std::pair<std::int64_t, json>{15, {"host-memory", "host-memory"}});
    }
  }
  SECTION("a node: its disk") {
    const IsolatedRun run =
        run_isolated(patched(scenario("ml-node", levels), failure("node", 1, FAILED, "1s")).dump());
    CHECK(loaded(run) == std::pair<std::int64_t, json>{15, {"host-memory", "local-disk"}});
    CHECK(time_of(run)["checkpoint_load"].get<double>() == near(from_disk));
    CHECK(events_of(run, "checkpoint_loaded")[0]["time"].get<double>() ==
          near(RESTARTED + from_disk));
    check_accounting(run);
  }
  SECTION("a rack, a power domain: the disks of every node") {
    for (const char* target : {"rack", "power"}) {
      const IsolatedRun run = run_isolated(
          patched(scenario(std::string("ml-") + target, levels), failure(target, 0, FAILED, "1s"))
              .dump());
      CHECK(loaded(run) == std::pair<std::int64_t, json>{15, {"local-disk", "local-disk"}});
      CHECK(time_of(run)["checkpoint_load"].get<double>() == near(from_disk));
    }
  }
  SECTION("a node during the disk flush: the file system for that node") {
    // Disks writing at 0.1 GB/s: a checkpoint's flush takes 280 ms, and each next checkpoint waits
    // for it. Version 5 is taken at about 31.5 ms, version 10 once its flush ends (311.5 ms),
    // version 15 at about 591.5 ms; its host copy and file-system write (14 ms) end by 606 ms,
    // its disk flush at 871 ms. Node 1 fails at 700 ms: its memory is lost and its disk holds
    // version 15 only partly, but the file system has it: node 1's ranks read 2 x 14e6 bytes
    // through the read link of 1 GB/s, 28 ms.
    json slow = scenario("ml-flush", levels);
    slow["recovery"]["multi_level"]["disk_write_bandwidth"] = "0.1GBps";
    slow["stop"]["version"] = 30;
    const IsolatedRun run = run_isolated(patched(slow, failure("node", 1, 0.7, "1s")).dump());
    CHECK(loaded(run) == std::pair<std::int64_t, json>{15, {"host-memory", "file-system"}});
    CHECK(time_of(run)["checkpoint_load"].get<double>() == near(2 * STATE / 1e9));
    CHECK(time_of(run)["checkpoint_stall"].get<double>() > 0.0);
    check_accounting(run);
  }
}

TEST_CASE("Levelled checkpoints without failures: accounting, durable checkpoints",
          "[in-memory][multi-level]") {
  for (const json& recovery : {IN_MEMORY, multi_level({{"every_steps", 5}})}) {
    const IsolatedRun run = run_isolated(scenario("clean", recovery).dump());
    const json& c = run.result["summary"]["collective"];
    CHECK(c["steps"]["kept"] == 20);
    CHECK(c["steps"]["rolled_back"] == 0);
    CHECK(c["failures"] == 0);
    // Versions 5, 10 and 15 complete; version 20's copy has just begun when the run stops.
    CHECK(c["checkpoints"] == 3);
    check_accounting(run);
  }
}

TEST_CASE(
    "Levelled checkpoints: the same scenario and seed give the same results on 1 and 2 "
    "threads",
    "[in-memory][multi-level]") {
  TempDir dir;
  const json optimizer = {{"optimizer", optimizer_section(GENERATE(0, 1))}};
  for (const json& recovery : {IN_MEMORY, multi_level({{"every_steps", 5}})}) {
    const std::string file = dir.file("scenario.json");
    failsim::testing::write_text(
        file,
        patched(patched(scenario("repro", recovery), failure("node", 1, FAILED, "1s")), optimizer)
            .dump());
    for (const char* threads : {"1", "2"}) {
      const auto ran = failsim::testing::run_cli(
          "run '" + file + "' -q --threads " + threads + " -o '" + dir.file(threads) + "'", dir);
      INFO(ran.err);
      REQUIRE(ran.status == 0);
    }
    for (const char* output : {"events.csv", "timeseries.csv"}) {
      CHECK(failsim::testing::read_text(dir.file("1") + "/" + output) ==
            failsim::testing::read_text(dir.file("2") + "/" + output));
    }
    const auto result = [&](const char* threads) {
      return failsim::testing::reproducible_part(
                 json::parse(failsim::testing::read_text(dir.file(threads) + "/result.json")))
          .dump();
    };
    CHECK(result("1") == result("2"));
  }
}

TEST_CASE(
    "In-memory: a rollback reaches the failure-free run's parameters, with SGD's velocity or "
    "AdamW's moments and steps",
    "[in-memory]") {
  // Every level holds the whole training state (parameters, the optimizer's state, the data
  // streams): the steps replayed after the load are the failure-free run's, to the bit. The rack
  // (both nodes) fails: the host memories are lost and the job rolls back to the file system's
  // version 10.
  const json optimizer = {{"optimizer", optimizer_section(GENERATE(0, 1))}};
  const IsolatedRun clean = run_isolated(patched(scenario("clean", IN_MEMORY), optimizer).dump());
  const IsolatedRun run = run_isolated(
      patched(patched(scenario("rolled", IN_MEMORY), failure("rack", 0, FAILED, "1s")), optimizer)
          .dump());
  REQUIRE(run.result["summary"]["collective"]["steps"]["rolled_back"] == 5);
  REQUIRE(run.final_params.size() == clean.final_params.size());
  CHECK(run.final_params == clean.final_params);
}

namespace {

/// The run of `s` twice, the default way (quiet steps taken at once, docs/cluster.md "Cost
/// proportional to events") and with every step simulated: events, time series, summary and
/// parameters must be identical, to the bit.
void check_same_every_step(const json& s) {
  const IsolatedRun quiet = run_isolated(s.dump());
  const IsolatedRun every = run_isolated(s.dump(), {}, true);
  check_same_results(quiet, every);
  check_accounting(quiet);
}

/// The sources of every checkpoint_loaded event of `run`, once each.
std::set<std::string> sources_loaded(const IsolatedRun& run) {
  std::set<std::string> out;
  for (const json& e : events_of(run, "checkpoint_loaded")) {
    for (const json& from : e["details"]["from"]) out.insert(from.get<std::string>());
  }
  return out;
}

/// TWO for 300 steps under random failures: nodes (their memory lost) about every 0.8 s each,
/// accelerators (memory kept) and racks (both nodes) more rarely, each back after 30 ms;
/// detection after 20 ms, restarts of 30 ms. A host copy at 2 GB/s takes 7 ms, longer than a step
/// (6.3 ms): the update after each checkpoint waits for it.
json random_failures(const std::string& name, const json& recovery) {
  const auto every = [](const char* target, const char* mean) {
    return json{{"target", target},
                {"lifetime", {{"distribution", "exponential"}, {"mean", mean}}},
                {"repair", {{"distribution", "fixed"}, {"value", "30ms"}}}};
  };
  json s = scenario(name, recovery);
  s.merge_patch(
      {{"stop", {{"version", 300}}},
       {"failures",
        {{"detection", {{"timeout", "20ms"}}},
         {"stochastic",
          {every("node", "800ms"), every("accelerator", "4s"), every("rack", "3s")}}}},
       {"recovery",
        {{"restart",
          {{"scheduler_delay", "10ms"}, {"process_start", "10ms"}, {"init_base", "10ms"}}}}}});
  return s;
}

/// A run of `s` by the binary with the job's verbose log (its batches of quiet steps and the
/// transfers it simulates): the log (stderr), result.json and events.csv.
struct LoggedRun {
  std::string log;
  json result;
  std::string events;
};
LoggedRun run_logged(const json& s) {
  TempDir dir;
  const std::string file = dir.file("scenario.json");
  failsim::testing::write_text(file, s.dump());
  const auto ran =
      failsim::testing::run_cli("run '" + file + "' -q --threads 1 -o '" + dir.file("out") +
                                    "' --log=collective_job.thresh:verbose",
                                dir);
  INFO(ran.err);
  REQUIRE(ran.status == 0);
  return {ran.err, json::parse(failsim::testing::read_text(dir.file("out") + "/result.json")),
          failsim::testing::read_text(dir.file("out") + "/events.csv")};
}

}  // namespace

TEST_CASE("In-memory: quiet steps taken at once give the same results as every step simulated",
          "[in-memory][fast-path]") {
  SECTION("partner copies, every 2nd checkpoint on the file system") {
    const json s = random_failures(
        "in-memory-fast-path",
        in_memory(
            {{"every_steps", 5}, {"host_copy_bandwidth", "2GBps"}, {"file_system_every", 2}}));
    const IsolatedRun run = run_isolated(s.dump());
    const json& c = run.result["summary"]["collective"];
    REQUIRE(c["restarts"].get<int>() >= 3);
    REQUIRE(time_of(run)["checkpoint_stall"].get<double>() > 0.0);
    REQUIRE(!events_of(run, "checkpoint_written", "partner-memory").empty());
    REQUIRE(!events_of(run, "checkpoint_written", "file-system").empty());
    // Loads from host memory, partner memory (a node lost) and the file system (a rack lost).
    REQUIRE(sources_loaded(run) ==
            std::set<std::string>{"host-memory", "partner-memory", "file-system"});
    check_same_every_step(s);
  }
  SECTION("copies on the same node, every 3rd on the file system") {
    // Two checkpoints in three put nothing on the network: the update after them must still
    // wait for the host copy (the step after a checkpoint is never in a batch).
    json s = random_failures("in-memory-same-node-fast-path",
                             in_memory({{"every_steps", 5},
                                        {"host_copy_bandwidth", "2GBps"},
                                        {"placement", "same-node"},
                                        {"file_system_every", 3}}));
    const IsolatedRun run = run_isolated(s.dump());
    REQUIRE(run.result["summary"]["collective"]["restarts"].get<int>() >= 3);
    REQUIRE(sources_loaded(run).count("file-system") == 1);
    check_same_every_step(s);
  }
}

TEST_CASE("Multi-level: quiet steps taken at once give the same results as every step simulated",
          "[multi-level][fast-path]") {
  // The disks write a node's 28e6 bytes in 28 ms (4 to 5 steps, no network: steps around the
  // flush are quiet), read them back at 1 GB/s; every checkpoint goes to the file system.
  const json s =
      random_failures("multi-level-fast-path", multi_level({{"every_steps", 5},
                                                            {"host_copy_bandwidth", "2GBps"},
                                                            {"disk_write_bandwidth", "1GBps"},
                                                            {"disk_read_bandwidth", "1GBps"}}));
  const IsolatedRun run = run_isolated(s.dump());
  REQUIRE(run.result["summary"]["collective"]["restarts"].get<int>() >= 3);
  REQUIRE(time_of(run)["checkpoint_stall"].get<double>() > 0.0);
  // Loads from host memory, the local disks (a node or a rack lost) and the file system (a node
  // lost during its disk's flush).
  REQUIRE(sources_loaded(run) == std::set<std::string>{"host-memory", "local-disk", "file-system"});
  check_same_every_step(s);
}

TEST_CASE("In-memory: background writes that go as before are replayed, not simulated",
          "[in-memory][fast-path]") {
  // TWO without failures, in-memory every 5 steps with partner copies, the file system every
  // 2nd: two kinds of episode (partner copies alone; with the file system's). Each is simulated
  // once with the steps that overlap it (background_replays.hpp), then replayed: twice the
  // checkpoints, no more flow sets; every step simulated gives the same results, to the bit.
  json s = scenario("in-memory-replay", IN_MEMORY);
  s["stop"]["version"] = 62;  // version 60's copies end within the next step
  const IsolatedRun twelve = run_isolated(s.dump());
  REQUIRE(events_of(twelve, "checkpoint_written", "partner-memory").size() == 12);
  REQUIRE(events_of(twelve, "checkpoint_written", "file-system").size() >= 5);
  s["stop"]["version"] = 122;
  const IsolatedRun twenty_four = run_isolated(s.dump());
  REQUIRE(events_of(twenty_four, "checkpoint_written", "partner-memory").size() == 24);
  CHECK(twenty_four.flow_sets == twelve.flow_sets);
  const IsolatedRun every = run_isolated(s.dump(), {}, true);
  CHECK(every.flow_sets > twenty_four.flow_sets + 24);
  check_same_every_step(s);
  // A replayed write ends when the simulated one did: each partner copy as long after its
  // snapshot as the one two checkpoints before (of the same kind of episode).
  const auto snapshots = events_of(twenty_four, "checkpoint_snapshot");
  const auto written = events_of(twenty_four, "checkpoint_written", "partner-memory");
  REQUIRE(snapshots.size() == written.size());
  const auto lasted = [&](std::size_t i) {
    return written[i]["time"].get<double>() - snapshots[i]["time"].get<double>();
  };
  for (std::size_t i = 2; i < written.size(); ++i) CHECK(lasted(i) == near(lasted(i - 2)));
}

TEST_CASE("Levelled checkpoints: the steps between two checkpoints are one batch",
          "[in-memory][fast-path]") {
  // ONE, in-memory on the same node every 5 steps, no file system: nothing on the network. The
  // first step is taken alone (its flows measured), steps 2 to 5 at once (one sleep of the
  // simulation); after each checkpoint the next step is taken alone (its update waits for the
  // copy: 28 ms > T), then 4 steps at once up to the next checkpoint; the stop at version 20.
  const LoggedRun run =
      run_logged(one_accelerator("batches", in_memory({{"every_steps", 5},
                                                       {"host_copy_bandwidth", "0.5GBps"},
                                                       {"placement", "same-node"},
                                                       {"file_system_every", 0}})));
  std::vector<int> batches;
  const std::string marker = " quiet steps at once";
  for (std::size_t at = run.log.find(marker); at != std::string::npos;
       at = run.log.find(marker, at + 1)) {
    const std::size_t begin = run.log.rfind(' ', at - 1) + 1;
    batches.push_back(std::stoi(run.log.substr(begin, at - begin)));
  }
  CHECK(batches == std::vector<int>{4, 4, 4, 4});
  CHECK(run.result["summary"]["collective"]["time"]["checkpoint_stall"].get<double>() ==
        near(3 * (STATE / 0.5e9 - T_ONE)));
}

TEST_CASE("In-memory: a load from the same sources under the same assignment is simulated once",
          "[in-memory][fast-path]") {
  // TWO, as "a node's lost state comes from its partner's copy", with node 1 failing again at
  // 1.55 s (after the restart at 1.4 s and about 23 more steps: the latest checkpoint is version
  // 35, its partner copy complete). Both loads take node 0's ranks from host memory and node 1's
  // from node 0 (2 flows): the second takes the first one's time (CollectiveJob::transfer).
  json s = scenario("in-memory-reload", IN_MEMORY);
  s["stop"]["version"] = 60;
  s["failures"]["events"] = {{{"target", "node"}, {"index", 1}, {"at", FAILED}, {"down_for", "1s"}},
                             {{"target", "node"}, {"index", 1}, {"at", 1.55}, {"down_for", "1s"}}};
  const LoggedRun run = run_logged(s);
  const json& result = run.result;
  REQUIRE(result["summary"]["collective"]["restarts"] == 2);
  const std::string simulated = "checkpoint load from hp of 2 flows simulated";
  const std::size_t first = run.log.find(simulated);
  CHECK(first != std::string::npos);
  CHECK(run.log.find(simulated, first + 1) == std::string::npos);
  const std::string& events = run.events;
  std::size_t loads = 0;
  for (std::size_t at = events.find("checkpoint_loaded"); at != std::string::npos;
       at = events.find("checkpoint_loaded", at + 1)) {
    // events.csv's `from` column: the per-node sources, separated by a space.
    CHECK(events.substr(at, events.find('\n', at) - at).find(",host-memory partner-memory,") !=
          std::string::npos);
    ++loads;
  }
  CHECK(loads == 2);
  CHECK(result["summary"]["collective"]["time"]["checkpoint_load"].get<double>() ==
        near(2 * (2 * STATE / 10e9)));
}
