// The collective protocol's simulation, worked out by hand (docs/cluster.md): a step's time from
// the time model, checkpoint-restart's rollback and lost time cause by cause, heartbeat
// detection, a straggler's step, a snapshot checkpoint, and the real math of a run with failures
// against a failure-free run. Each run is a child process (tests/sim_harness.hpp); the scenario
// and its numbers are tests/collective_fixture.hpp's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "collective_fixture.hpp"
#include "sim/collective/job/failure_schedule.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/scenario/collective/work.hpp"
#include "sim_harness.hpp"
#include "temp_dir.hpp"

using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::run_isolated;
using nlohmann::json;
using namespace failsim::sim;
using namespace failsim::testing::collective;

TEST_CASE("A failure-free collective run: steps of the time model, checkpoints, ETTR",
          "[collective]") {
  const IsolatedRun run = run_isolated(build("clean", json::object()).dump());
  const json& summary = run.result["summary"];
  const json& c = summary["collective"];
  // 10 steps and the checkpoints after steps 5 and 10.
  CHECK(summary["end_time"].get<double>() == near(10 * STEP + 2 * WRITE));
  CHECK(c["step"]["nominal_seconds"].get<double>() == near(STEP));
  CHECK(c["step"]["data_parallel_seconds"].get<double>() == near(T_DP));
  CHECK(c["step"]["tensor_parallel_seconds"].get<double>() == 0.0);
  CHECK(c["steps"]["completed"] == 10);
  CHECK(c["steps"]["kept"] == 10);
  CHECK(c["checkpoints"] == 2);
  CHECK(time_of(run)["productive"].get<double>() == near(10 * STEP));
  CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(2 * WRITE));
  CHECK(sum_of_causes(run) == near(summary["end_time"].get<double>()));
  CHECK(c["ettr"].get<double>() == near(10 * STEP / (10 * STEP + 2 * WRITE)));
  // The transformer posed as: 4 sequences of 1 token a step (the real math's 4 x 10 samples are
  // not what the time model counts).
  CHECK(c["samples"]["kept"].get<double>() == 40.0);
  CHECK(c["tokens"]["kept"].get<double>() == 40.0);
}

TEST_CASE("The data-parallel all-reduce hides behind the last backward pass with overlap",
          "[collective]") {
  // The window is 2/3 of a micro-batch (4 ms) and the all-reduce takes 3 ms: hidden.
  const IsolatedRun hidden = run_isolated(
      build("overlap", {{"layout", {{"overlap", true}}}, {"stop", {{"version", 3}}}}).dump());
  CHECK(hidden.result["summary"]["collective"]["step"]["nominal_seconds"].get<double>() ==
        near(T_MB));
  // A tenth of the bandwidth: 30 ms, of which 4 ms hide.
  const IsolatedRun slow = run_isolated(
      build(
          "overlap-slow",
          {{"layout", {{"overlap", true}}},
           {"platform", {{"node", {{"intra_bandwidth", "100MBps"}, {"nic_bandwidth", "100MBps"}}}}},
           {"stop", {{"version", 3}}}})
          .dump());
  CHECK(slow.result["summary"]["collective"]["step"]["nominal_seconds"].get<double>() ==
        near(T_MB + 10 * T_DP - 2.0 / 3.0 * T_MB));
}

TEST_CASE("Checkpoint-restart: a node failure's rollback and lost time, cause by cause",
          "[collective]") {
  // Checkpoint after step 5 (durable at 5 STEP + WRITE); steps 6 and 7; node 1 fails halfway
  // through step 8, is noticed 0.5 s later (watchdog), is back 1 s after it failed; restart
  // 0.3 s, load; steps 6..10 again and the checkpoint after step 10.
  const double failure = 7 * STEP + WRITE + STEP / 2;
  const IsolatedRun run = run_isolated(
      build("ckpt",
            {{"failures",
              {{"detection", {{"kind", "watchdog"}, {"timeout", "500ms"}}},
               {"events",
                {{{"target", "node"}, {"index", 1}, {"at", failure}, {"down_for", "1s"}}}}}}})
          .dump());
  const json& summary = run.result["summary"];
  const json& c = summary["collective"];
  const double resumed = failure + 1.0 + 0.3 + LOAD;
  CHECK(summary["end_time"].get<double>() == near(resumed + 5 * STEP + WRITE));
  CHECK(time_of(run)["productive"].get<double>() == near(10 * STEP));
  CHECK(time_of(run)["lost_work"].get<double>() == near(2.5 * STEP));
  CHECK(time_of(run)["detection"].get<double>() == near(0.5));
  CHECK(time_of(run)["repair_wait"].get<double>() == near(0.5));
  CHECK(time_of(run)["restart"].get<double>() == near(0.3));
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(LOAD));
  CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(2 * WRITE));
  CHECK(sum_of_causes(run) == near(summary["end_time"].get<double>()));
  CHECK(c["steps"]["completed"] == 12);
  CHECK(c["steps"]["rolled_back"] == 2);
  CHECK(c["steps"]["kept"] == 10);
  CHECK(c["failures"] == 1);
  CHECK(c["restarts"] == 1);
  const auto detected = events_of(run, "detected");
  REQUIRE(detected.size() == 1);
  CHECK(detected[0]["time"].get<double>() == near(failure + 0.5));
  const auto loaded = events_of(run, "checkpoint_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0]["time"].get<double>() == near(resumed));
  CHECK(loaded[0]["details"]["version"] == 5);
}

TEST_CASE("Checkpoint-restart reaches the failure-free run's parameters at every version",
          "[collective]") {
  // The checkpoint holds the parameters, the optimizer's state (SGD's velocity; AdamW's moments
  // and its count of steps, which sets its bias corrections and its schedule) and the data
  // streams: the replayed steps draw the same batches, so version 10 is the same whether or not
  // a failure rolled back. AdamW's warm-up and decay both fall within the 10 steps.
  const json momentum = {{"optimizer", optimizer_section(GENERATE(0, 1))}};
  json with_failure = build("math-failure", momentum);
  with_failure.merge_patch(
      {{"failures",
        {{"detection", {{"timeout", "100ms"}}},
         {"events",
          {{{"target", "rack"}, {"index", 0}, {"at", 7.5 * STEP + WRITE}, {"down_for", 0}}}}}}});
  const IsolatedRun failed = run_isolated(with_failure.dump());
  const IsolatedRun clean = run_isolated(build("math-clean", momentum).dump());
  REQUIRE(failed.result["summary"]["collective"]["steps"]["rolled_back"] == 2);
  REQUIRE(failed.final_params.size() == clean.final_params.size());
  CHECK(failed.final_params == clean.final_params);
  // And a different seed trains differently (the comparison can fail).
  json other_seed = build("math-other", momentum);
  other_seed["seed"] = 4;
  const IsolatedRun other = run_isolated(other_seed.dump());
  CHECK(other.final_params != clean.final_params);
}

TEST_CASE("Evaluations every N steps, at the steps' ends; a target accuracy met there stops",
          "[collective]") {
  // evaluation.every_updates 3 without a time schedule: after steps 3, 6 and 9 (the checkpoint
  // after step 5 delays step 6 by its write), on the parameters the step made.
  json every = build("every-3", {{"evaluation", {{"interval", 0}, {"every_updates", 3}}}});
  const IsolatedRun run = run_isolated(every.dump());
  std::istringstream rows(run.timeseries);
  std::string row;
  std::getline(rows, row);
  std::vector<double> times, accuracies;
  std::vector<long> versions;
  while (std::getline(rows, row)) {
    std::istringstream cells(row);
    std::string cell;
    std::getline(cells, cell, ',');
    times.push_back(std::stod(cell));
    std::getline(cells, cell, ',');
    versions.push_back(std::stol(cell));
    std::getline(cells, cell, ',');
    accuracies.push_back(std::stod(cell));
  }
  CHECK(versions == std::vector<long>{3, 6, 9});
  REQUIRE(times.size() == 3);
  CHECK(times[0] == near(3 * STEP));
  CHECK(times[1] == near(6 * STEP + WRITE));
  CHECK(times[2] == near(9 * STEP + WRITE));
  // The accuracy of version 6 as a target (version 3's is lower): the run stops after step 6.
  REQUIRE(accuracies[0] < accuracies[1]);
  every["stop"] = {{"version", 10}, {"target_accuracy", accuracies[1]}};
  const IsolatedRun target = run_isolated(every.dump());
  CHECK(target.result["summary"]["stop_reason"] == "target_accuracy");
  CHECK(target.result["summary"]["collective"]["steps"]["kept"] == 6);
  CHECK(target.result["summary"]["end_time"].get<double>() == near(6 * STEP + WRITE));
}

TEST_CASE("Heartbeat detection: misses beats after the failed rank's last one", "[collective]") {
  // Beats every 40 ms from 0; a failure at 0.1 s: the last beat was at 0.08 s, noticed after
  // 3 missed beats at 0.08 + 3 x 0.04 = 0.2 s.
  const IsolatedRun run = run_isolated(
      build("heartbeat",
            {{"failures",
              {{"detection", {{"kind", "heartbeat"}, {"interval", "40ms"}, {"misses", 3}}},
               {"events",
                {{{"target", "accelerator"}, {"index", 3}, {"at", 0.1}, {"down_for", 0}}}}}}})
          .dump());
  const auto detected = events_of(run, "detected");
  REQUIRE(detected.size() == 1);
  CHECK(detected[0]["time"].get<double>() == near(0.2));
  CHECK(time_of(run)["detection"].get<double>() == near(0.1));
}

TEST_CASE("A straggler slows the steps that start while it is active", "[collective]") {
  // Node 0 runs 3 times slower from 0 to 25 ms: steps 1 (at 0) and 2 (at 21 ms) start while it
  // is slow and compute at a third of the speed (the all-reduce does not change); step 3 starts
  // at 42 ms, at the nominal pace again.
  const IsolatedRun run = run_isolated(
      build(
          "straggler",
          {{"recovery", {{"checkpoint", {{"every_steps", 0}}}}},
           {"stop", {{"version", 4}}},
           {"failures",
            {{"stragglers",
              {{{"target", "node"}, {"index", 0}, {"from", 0}, {"to", 0.025}, {"slowdown", 3}}}}}}})
          .dump());
  const double slow = 3 * T_MB + T_DP;
  CHECK(run.result["summary"]["end_time"].get<double>() == near(2 * slow + 2 * STEP));
  CHECK(time_of(run)["stragglers"].get<double>() == near(2 * (slow - STEP)));
  CHECK(time_of(run)["productive"].get<double>() == near(4 * STEP));
}

TEST_CASE("A snapshot checkpoint stalls for the copy to host, then writes in the background",
          "[collective]") {
  // Rank 0's 14e6 bytes at 1 GB/s to host: 14 ms of stall. The write (14 ms) then leaves
  // through node 0's NIC, which step 6's all-reduce flow from rank 1 (node 0) to rank 2 (node 1)
  // crosses too: they share it, and step 6 is slower than nominal (interference).
  const IsolatedRun run = run_isolated(
      build(
          "snapshot",
          {{"recovery", {{"checkpoint", {{"mode", "snapshot"}, {"host_copy_bandwidth", "1GBps"}}}}},
           {"stop", {{"version", 7}}}})
          .dump());
  const json& c = run.result["summary"]["collective"];
  CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(WRITE));
  CHECK(c["checkpoints"] == 1);
  CHECK(time_of(run)["interference"].get<double>() > 0.0);
  CHECK(sum_of_causes(run) == near(run.result["summary"]["end_time"].get<double>()));
  const auto written = events_of(run, "checkpoint_written");
  REQUIRE(written.size() == 1);
  CHECK(written[0]["details"]["version"] == 5);
}

TEST_CASE("A time-only run and a math run of the same scenario have the same times",
          "[collective]") {
  json time_only = build("time-only", {{"workload", {{"math", "none"}}}});
  for (const char* key : {"data", "model", "optimizer", "evaluation"}) time_only.erase(key);
  const json failure = {
      {"failures",
       {{"detection", {{"timeout", "100ms"}}},
        {"events", {{{"target", "switch"}, {"index", 0}, {"at", 0.05}, {"down_for", "200ms"}}}}}}};
  time_only.merge_patch(failure);
  const IsolatedRun a = run_isolated(time_only.dump());
  const IsolatedRun b = run_isolated(build("math", failure).dump());
  CHECK(a.result["summary"]["end_time"] == b.result["summary"]["end_time"]);
  CHECK(time_of(a) == time_of(b));
  CHECK(a.result["summary"]["collective"]["math"] == "none");
  CHECK(b.result["summary"]["collective"]["math"] == "real");
}

TEST_CASE("Simulating every step's flows gives the same results as reusing the idle step's",
          "[collective]") {
  // A snapshot checkpoint writes in the background (those steps are simulated either way), a
  // failure, a straggler: every other step reuses the first step's times unless asked.
  const json patch = {
      {"recovery", {{"checkpoint", {{"mode", "snapshot"}, {"host_copy_bandwidth", "1GBps"}}}}},
      {"failures",
       {{"detection", {{"timeout", "100ms"}}},
        {"events", {{{"target", "node"}, {"index", 0}, {"at", 0.1}, {"down_for", "50ms"}}}},
        {"stragglers",
         {{{"target", "accelerator"},
           {"index", 2},
           {"from", 0.02},
           {"to", 0.05},
           {"slowdown", 2}}}}}}};
  const std::string text = build("every-step", patch).dump();
  const IsolatedRun cached = run_isolated(text);
  const IsolatedRun every = run_isolated(text, {}, true);
  check_same_results(cached, every);
}

TEST_CASE("Quiet steps taken at once give the same results as every step simulated",
          "[collective][fast-path]") {
  // Long quiet stretches (checkpoints every 40 steps) cut by random node failures, random slow
  // spells, evaluations and a stop at a version: the default run takes the quiet steps in
  // batches (docs/cluster.md, "Cost proportional to events"), --simulate-every-step simulates
  // each; events, time series, summary and parameters must be identical, to the bit.
  const json patch = {{"stop", {{"version", 600}}},
                      {"evaluation", {{"interval", "50ms"}}},
                      {"recovery", {{"checkpoint", {{"every_steps", 40}}}}},
                      {"failures",
                       {{"detection", {{"timeout", "20ms"}}},
                        {"stochastic",
                         {{{"target", "node"},
                           {"lifetime", {{"distribution", "exponential"}, {"mean", "1s"}}},
                           {"repair", {{"distribution", "fixed"}, {"value", "30ms"}}}}}},
                        {"stochastic_stragglers",
                         {{{"target", "accelerator"},
                           {"every", {{"distribution", "exponential"}, {"mean", "300ms"}}},
                           {"duration", {{"distribution", "fixed"}, {"value", "40ms"}}},
                           {"slowdown", 1.5}}}}}}};
  const std::string text = build("fast-path", patch).dump();
  const IsolatedRun quiet = run_isolated(text);
  const IsolatedRun every = run_isolated(text, {}, true);
  REQUIRE(quiet.result["summary"]["collective"]["failures"].get<int>() > 0);
  REQUIRE(quiet.result["summary"]["collective"]["time"]["stragglers"].get<double>() > 0);
  check_same_results(quiet, every);
}

TEST_CASE("A pipeline's step: (m + pp - 1) slots of a micro-batch and its sends both ways",
          "[collective]") {
  // One node of 2 accelerators, pp 2 (dp = tp = 1), m = 2 micro-batches of one 1-token sequence
  // each (T = 2), h = 1000, L = 2: F = (6e6 + 12 x 2 x 1000 x 1) x 2 = 12,048,000 flops,
  // t_mb = F / (2 ranks x 2) / 1e9 = 3.012 ms. A stage sends b s h p = 1000 x 2 = 2,000 bytes
  // over two 1 GB/s links without latency: 2 us each way. No data-parallel collective.
  // Step: (2 + 2 - 1) x (3.012 ms + 2 x 2 us) = 9.048 ms, a third of its compute the bubble.
  const json patch = {
      {"platform", {{"nodes", 1}, {"topology", {{"nodes_per_leaf", 1}}}}},
      {"layout", {{"dp", 1}, {"pp", 2}, {"micro_batches", 2}}},
      {"workload",
       {{"transformer",
         {{"layers", 2}, {"hidden", 1000}, {"sequence", 1}, {"global_batch_tokens", 2}}}}},
      {"optimizer", {{"batch_size", 10}}},
      {"stop", {{"version", 3}}},
      {"recovery", {{"checkpoint", {{"every_steps", 0}}}}}};
  const IsolatedRun run = run_isolated(build("pipeline", patch).dump());
  const json& step = run.result["summary"]["collective"]["step"];
  CHECK(step["pipeline_send_seconds"].get<double>() == near(2e-6));
  CHECK(step["bubble_fraction"].get<double>() == near(1.0 / 3.0));
  CHECK(step["compute_seconds"].get<double>() == near(3 * 3.012e-3));
  CHECK(step["nominal_seconds"].get<double>() == near(3 * (3.012e-3 + 4e-6)));
  CHECK(run.result["summary"]["end_time"].get<double>() == near(9 * (3.012e-3 + 4e-6)));
}

TEST_CASE("Random stragglers: fixed slow spells, worked out step by step", "[collective]") {
  // Every node is 2 times slower for 10 ms, 30 ms after the end of its previous slow spell: the
  // spells are [30, 40) ms, [70, 80) ms, [110, 120) ms... A step that starts inside one
  // computes at half speed: 2 T_MB + T_DP instead of STEP.
  const IsolatedRun run = run_isolated(
      build("random-stragglers", {{"recovery", {{"checkpoint", {{"every_steps", 0}}}}},
                                  {"failures",
                                   {{"stochastic_stragglers",
                                     {{{"target", "node"},
                                       {"every", {{"distribution", "fixed"}, {"value", "30ms"}}},
                                       {"duration", {{"distribution", "fixed"}, {"value", "10ms"}}},
                                       {"slowdown", 2}}}}}}})
          .dump());
  double t = 0.0;
  int slowed = 0;
  for (int step = 0; step < 10; ++step) {
    const double phase = std::fmod(t, 0.04);
    const bool slow = phase >= 0.03 - 1e-12;
    slowed += slow;
    t += slow ? 2 * T_MB + T_DP : STEP;
  }
  REQUIRE(slowed > 0);
  CHECK(run.result["summary"]["end_time"].get<double>() == near(t));
  CHECK(time_of(run)["stragglers"].get<double>() == near(slowed * T_MB));
}

TEST_CASE("A node lost for good with no stop time ends the run where nothing can happen any more",
          "[collective]") {
  // Checkpoint-restart needs every node: with node 1 gone for good at 5 ms and a stop at a
  // version the job cannot reach, the run ends once the failure is noticed (watchdog, 100 ms).
  const IsolatedRun run = run_isolated(
      build("lost",
            {{"stop", {{"version", 100}}},
             {"failures",
              {{"detection", {{"timeout", "100ms"}}},
               {"events",
                {{{"target", "node"}, {"index", 1}, {"at", 0.005}, {"down_for", "forever"}}}}}}})
          .dump());
  const json& summary = run.result["summary"];
  CHECK(summary["stop_reason"] == "nodes_lost");
  CHECK(summary["end_time"].get<double>() == near(0.105));
  CHECK(events_of(run, "host_lost").size() == 1);
  CHECK(sum_of_causes(run) == near(0.105));
}

TEST_CASE("A job that never restarts stops at the work limit", "[collective][work]") {
  // Both nodes fail 290 ms after each return (fixed lifetimes, 1 ms repairs) and a restart takes
  // 300 ms (100 ms each of scheduler, start and set-up): from the first failure at 0.29 s on,
  // every restart is cut short, and the stop at version 100 cannot come. The resolve step does
  // not foresee it: it takes the lifetimes as exponential (lambda = 2 / 0.29 s, R = 0.3 s: 7.9
  // failures a restart, 33 over the stop's 100 steps of at least 6 ms). The job counts the
  // events it holds as it runs and stops once they pass output.max_size (100 kB: 303 events of
  // 330 bytes). By 0.3 s it holds 10 (start, 4 checkpoints, 2 failures, detected, rolled_back,
  // restart); every 0.291 s after, 2 failures and a restart: 304 after the 98th such cycle, so
  // the next failures' moment, 0.29 + 99 x 0.291 s, is the stop.
  const IsolatedRun run = run_isolated(
      build("never", {{"output", {{"max_size", "100kB"}}},
                      {"stop", {{"version", 100}}},
                      {"failures",
                       {{"detection", {{"kind", "watchdog"}, {"timeout", "10ms"}}},
                        {"stochastic",
                         {{{"target", "node"},
                           {"lifetime", {{"distribution", "fixed"}, {"value", "290ms"}}},
                           {"repair", {{"distribution", "fixed"}, {"value", "1ms"}}}}}}}}})
          .dump());
  const json& summary = run.result["summary"];
  CHECK(summary["stop_reason"] == "work limit");
  // No restart got through: the job never trained again after the first failure.
  CHECK(events_of(run, "training_resumed").empty());
  CHECK(summary["collective"]["failures"] == 2 + 2 * 98);
  CHECK(summary["collective"]["restarts"] == 1 + 98);
  CHECK(summary["end_time"].get<double>() == near(0.29 + 99 * 0.291));
  // The events it held (every kind) just beyond the limit, then the stop's own.
  CHECK(100e3 / (EVENT_JSON_BYTES + EVENT_CSV_BYTES) == Approx(303.03).epsilon(1e-4));
  CHECK(run.result["events"].size() == 304 + 1);
  const auto stops = events_of(run, "stop");
  REQUIRE(stops.size() == 1);
  CHECK(stops[0]["details"]["reason"] == "work limit");
  CHECK(run.result["events"].back()["type"] == "stop");
}

TEST_CASE("A replayed trace's faults fail their nodes and name their causes", "[collective]") {
  // Node x of the trace fails at day 0.5 (GPU) for 0.1 day and at day 1 (power supply); at
  // 1e-6 simulated seconds per trace second a day is 0.0864 s.
  failsim::testing::TempDir dir;
  const std::string trace = dir.file("trace.json");
  const auto fault = [](double day, const char* type, const char* kind) {
    return json{{"node_id", "x"},
                {"event_time", day},
                {"event_type", type},
                {"fault_type", {{"Level", "Hardware Failure"}, {"Class", kind}, {"Desc", "d"}}}};
  };
  std::ofstream(trace) << json::array({fault(0.5, "fault_start", "GPU"),
                                       fault(0.6, "fault_end", "GPU"),
                                       fault(1.0, "fault_start", "Power Supply"),
                                       fault(1.1, "fault_end", "Power Supply")})
                              .dump();
  json s = build("trace", {{"failures",
                            {{"detection", {{"timeout", "10ms"}}},
                             {"trace", {{"file", trace}, {"time_scale", 1e-6}}}}}});
  const IsolatedRun run = run_isolated(s.dump());
  const auto failures = events_of(run, "failure");
  REQUIRE(failures.size() == 2);
  const double day = 86400.0 * 1e-6;
  CHECK(failures[0]["time"].get<double>() == near(0.5 * day));
  CHECK(failures[0]["details"]["cause"] == "Hardware Failure / GPU / d");
  CHECK(failures[0]["details"]["nodes"] == json::array({0}));
  CHECK(failures[0]["details"]["down_for"].get<double>() == near(0.1 * day));
  CHECK(failures[1]["time"].get<double>() == near(1.0 * day));
  CHECK(failures[1]["details"]["cause"] == "Hardware Failure / Power Supply / d");
}

TEST_CASE("A CSV failure log replays as the trace does", "[collective]") {
  // The trace above as a user's log: ISO times from an origin, a cause per line, ends.
  failsim::testing::TempDir dir;
  const std::string log = dir.file("failures.csv");
  std::ofstream(log) << "when,host,why,back\n"
                        "2024-03-02T00:00:00Z,x,Power Supply,2024-03-02T02:24:00Z\n"
                        "2024-03-01T12:00:00Z,x,GPU,2024-03-01T14:24:00Z\n";
  json s = build(
      "trace",
      {{"failures",
        {{"detection", {{"timeout", "10ms"}}},
         {"trace",
          {{"file", log},
           {"format", "csv"},
           {"columns", {{"time", "when"}, {"node", "host"}, {"cause", "why"}, {"end", "back"}}},
           {"origin", "2024-03-01T00:00:00Z"},
           {"time_scale", 1e-6}}}}}});
  const IsolatedRun run = run_isolated(s.dump());
  const auto failures = events_of(run, "failure");
  REQUIRE(failures.size() == 2);
  const double day = 86400.0 * 1e-6;
  CHECK(failures[0]["time"].get<double>() == near(0.5 * day));
  CHECK(failures[0]["details"]["cause"] == "GPU");
  CHECK(failures[0]["details"]["nodes"] == json::array({0}));
  CHECK(failures[0]["details"]["down_for"].get<double>() == near(0.1 * day));
  CHECK(failures[1]["time"].get<double>() == near(1.0 * day));
  CHECK(failures[1]["details"]["cause"] == "Power Supply");
}

TEST_CASE("A trace's random mapping is a permutation drawn from the seed", "[collective]") {
  ClusterTraceConfig trace;
  trace.mapping = TraceMapping::RANDOM;
  const std::vector<int> one = failsim::sim::trace_nodes(trace, 100, 1);
  std::vector<int> sorted = one;
  std::sort(sorted.begin(), sorted.end());
  for (int n = 0; n < 100; ++n) CHECK(sorted[static_cast<std::size_t>(n)] == n);
  CHECK(one != failsim::sim::trace_nodes(trace, 100, 2));
  CHECK(one == failsim::sim::trace_nodes(trace, 100, 1));
  trace.mapping = TraceMapping::BY_ORDER;
  CHECK(failsim::sim::trace_nodes(trace, 3, 1) == std::vector<int>{0, 1, 2});
}

TEST_CASE("A rate table's failures draw their causes by count", "[collective]") {
  // One accelerator process with causes A (3) and B (1, host memory lost): over 20,000 failures
  // A's share is 3/4 within 4 standard deviations, sqrt(3/16 / 20000) = 0.0031 each.
  ClusterPlatformConfig platform;
  platform.nodes = 1;
  ClusterFailureConfig failures;
  ClusterRatesConfig rates;
  ClusterStochasticFailures p;
  p.target = ClusterTarget::ACCELERATOR;
  p.lifetime = {DistributionKind::EXPONENTIAL, 1.0, 1.0};
  p.repair = {DistributionKind::FIXED, 0.0, 1.0};
  p.causes = {{"A", 3.0, false}, {"B", 1.0, true}};
  rates.processes = {p};
  failures.rates = rates;
  failsim::sim::FailureSchedule schedule(failures, platform, 11);
  int a = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const failsim::sim::Outage o = schedule.take();
    CHECK(o.host_memory_lost == (o.cause == "B"));
    a += o.cause == "A" ? 1 : 0;
  }
  CHECK(static_cast<double>(a) / n == Approx(0.75).margin(4 * 0.0031));
}

TEST_CASE("Flows started from endpoint actors give the same results as sendto flows",
          "[collective][endpoints]") {
  // Every flow set of the run started from endpoint actors (threshold 1) or with sendto comms
  // (never from endpoints): the same surf actions in the same order at the same time
  // (sim/collective/network/flows.hpp), so the run must be identical to the bit. Background
  // checkpoint writes (snapshot) overlap steps and are cancelled by a failure; the failed node's
  // ranks move to a spare; hierarchical all-reduces; a straggler. The threshold is set here, before
  // the fork, so each child inherits it.
  const json patch = {
      {"platform", {{"nodes", 4}, {"spares", 1}}},
      {"layout", {{"dp", 8}, {"dp_algorithm", "hierarchical"}}},
      {"workload", {{"transformer", {{"global_batch_tokens", 8}}}}},
      {"recovery", {{"checkpoint", {{"mode", "snapshot"}, {"host_copy_bandwidth", "1GBps"}}}}},
      {"stop", {{"version", 40}}},
      {"failures",
       {{"detection", {{"timeout", "20ms"}}},
        {"events", {{{"target", "node"}, {"index", 1}, {"at", 0.05}, {"down_for", "1s"}}}},
        {"stragglers",
         {{{"target", "accelerator"},
           {"index", 2},
           {"from", 0.02},
           {"to", 0.04},
           {"slowdown", 2}}}}}}};
  const std::string text = build("endpoints", patch).dump();
  const std::size_t before = endpoint_threshold();
  set_endpoint_threshold(1);
  const IsolatedRun endpoints = run_isolated(text);
  set_endpoint_threshold(std::numeric_limits<std::size_t>::max());
  const IsolatedRun sendto = run_isolated(text);
  set_endpoint_threshold(before);
  REQUIRE(endpoints.result["summary"]["collective"]["spares"]["swaps"].get<int>() == 1);
  CHECK(endpoints.events == sendto.events);
  CHECK(endpoints.timeseries == sendto.timeseries);
  CHECK(endpoints.result["summary"] == sendto.result["summary"]);
  CHECK(endpoints.final_params == sendto.final_params);
}
