// Resume on another layout (recovery.strategy "universal", docs/cluster.md), worked out by hand on
// the small collective scenario of tests/collective_fixture.hpp (2 nodes x 2 accelerators, dp 4,
// every link and the file system 1 GB/s, N = 1e6), here with ZeRO-1 so that the checkpoint is
// sharded over the replicas and a change of dp needs its conversion:
//
//   - c = 14 checkpoint bytes per parameter, p = 2 of them the weights: ZeRO-1 shards the other
//     12 over the replicas. A checkpoint writes 14e6 bytes in all through the file system's one
//     write link: WRITE (14 ms) on any number of replicas (the last flow alone still takes the
//     link whole).
//   - Node 1 (ranks 2 and 3: replicas 2 and 3) down: replicas 0 and 1 go on, on node 0.
//   - The conversion: node 0's two accelerators read the whole checkpoint (14e6 bytes) through
//     the read link, then write it again: CONVERT = 2 x 14 ms.
//   - The load on 2 replicas: each rank reads 12e6 / 2 + 2e6 = 8e6 bytes, 16e6 in all: 16 ms; on
//     4 replicas: 4 x (12e6 / 4 + 2e6) = 20e6 bytes: 20 ms.
//   - The step on 2 replicas keeping the global batch: each takes 2 batches (rounds = 2), two
//     micro-batches of compute, then a ring all-reduce of 2 ranks inside node 0: each sends
//     2 (2 - 1) / 2 x 2e6 bytes = 2 ms. Reducing the batch: one micro-batch.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "collective_fixture.hpp"
#include "reproducible.hpp"
#include "sim_harness.hpp"

using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::reproducible_part;
using failsim::testing::run_isolated;
using nlohmann::json;
using namespace failsim::testing::collective;

namespace {

constexpr double CONVERT = 2 * 14e6 / 1e9;
constexpr double LOAD_2 = 16e6 / 1e9;
constexpr double LOAD_4 = 20e6 / 1e9;
constexpr double T_DP_2 = 2e6 / 1e9;
constexpr double STEP_KEEP = 2 * T_MB + T_DP_2;
constexpr double STEP_REDUCE = T_MB + T_DP_2;
// The checkpoint after step 5, steps 6 and 7, and half of step 8.
constexpr double FAILURE = 7 * STEP + WRITE + STEP / 2;
constexpr double RESTART = 0.3;

/// The fixture with ZeRO-1, an optimizer with a state (optimizer_section(optimizer): SGD's
/// velocity or AdamW's moments and steps must survive the re-sharding too) and the design's
/// section; node 1 fails at FAILURE for `down_for`, noticed `detection` later.
json universal(const std::string& name, const json& section, const json& down_for, double detection,
               int optimizer = 0) {
  json s =
      build(name, {{"layout", {{"zero_stage", 1}}}, {"optimizer", optimizer_section(optimizer)}});
  s.merge_patch(
      {{"recovery", {{"strategy", "universal"}, {"universal", section}}},
       {"failures",
        {{"detection", {{"kind", "watchdog"}, {"timeout", detection}}},
         {"events",
          {{{"target", "node"}, {"index", 1}, {"at", FAILURE}, {"down_for", down_for}}}}}}});
  return s;
}

/// The same job without failures under checkpoint-restart.
json clean(const std::string& name, int version, int optimizer = 0) {
  return build(name, {{"layout", {{"zero_stage", 1}}},
                      {"optimizer", optimizer_section(optimizer)},
                      {"stop", {{"version", version}}}});
}

void check_accounting(const IsolatedRun& run) {
  const json& c = run.result["summary"]["collective"];
  CHECK(sum_of_causes(run) == near(run.result["summary"]["end_time"].get<double>()));
  CHECK(c["steps"]["completed"].get<double>() - c["steps"]["rolled_back"].get<double>() ==
        c["steps"]["kept"].get<double>());
  CHECK(c["samples"]["completed"].get<double>() - c["samples"]["rolled_back"].get<double>() ==
        near(c["samples"]["kept"].get<double>()));
}

}  // namespace

TEST_CASE("Shrinking and keeping the global batch: a plain resume's parameters, times by formula",
          "[universal]") {
  // Node 1 is lost for good; wait_limit 0: the job shrinks at once onto node 0. Rollback to
  // version 5, restart, conversion, load on 2 replicas, steps 6..10 at the accumulating pace,
  // the checkpoint after step 10. With SGD and momentum, and with AdamW.
  const int optimizer = GENERATE(0, 1);
  const IsolatedRun run =
      run_isolated(universal("keep", {{"grow", "never"}}, "forever", 0.5, optimizer).dump());
  const json& summary = run.result["summary"];
  const json& c = summary["collective"];
  const double resumed = FAILURE + 0.5 + RESTART + CONVERT + LOAD_2;
  CHECK(summary["end_time"].get<double>() == near(resumed + 5 * STEP_KEEP + WRITE));
  CHECK(time_of(run)["productive"].get<double>() == near(5 * STEP + 5 * STEP_KEEP));
  CHECK(time_of(run)["lost_work"].get<double>() == near(2.5 * STEP));
  CHECK(time_of(run)["detection"].get<double>() == near(0.5));
  CHECK(time_of(run)["repair_wait"].get<double>() == 0.0);
  CHECK(time_of(run)["restart"].get<double>() == near(RESTART));
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(CONVERT + LOAD_2));
  CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(2 * WRITE));
  CHECK(c["steps"]["kept"] == 10);
  CHECK(c["steps"]["rolled_back"] == 2);
  // The global batch is kept: 4 sequences a step.
  CHECK(c["samples"]["kept"].get<double>() == 40.0);
  check_accounting(run);
  const auto resize = events_of(run, "resize");
  REQUIRE(resize.size() == 1);
  CHECK(resize[0]["details"]["replicas"] == 2);
  CHECK(resize[0]["details"]["from_replicas"] == 4);
  const auto resized = events_of(run, "resized");
  REQUIRE(resized.size() == 1);
  CHECK(resized[0]["time"].get<double>() == near(resumed));
  CHECK(resized[0]["details"]["micro_batch_rounds"] == 2);
  CHECK(resized[0]["details"]["converted"] == true);

  // The same parameters as a failure-free run and as checkpoint-restart's plain resume on the
  // full layout: every step still takes one batch from each of the 4 streams, summed in stream
  // order whoever computes them, so the floats are the same to the bit.
  const IsolatedRun failure_free = run_isolated(clean("keep-clean", 10, optimizer).dump());
  json plain = universal("keep-plain", json::object(), "1s", 0.5, optimizer);
  plain["recovery"]["strategy"] = "checkpoint-restart";
  plain["recovery"].erase("universal");
  const IsolatedRun resumed_plain = run_isolated(plain.dump());
  REQUIRE(resumed_plain.result["summary"]["collective"]["steps"]["rolled_back"] == 2);
  REQUIRE(run.final_params.size() == failure_free.final_params.size());
  CHECK(run.final_params == failure_free.final_params);
  CHECK(run.final_params == resumed_plain.final_params);
}

TEST_CASE("Shrinking and reducing the global batch: the survivors' batches only", "[universal]") {
  const IsolatedRun run = run_isolated(
      universal("reduce", {{"grow", "never"}, {"batch", "reduce"}}, "forever", 0.5).dump());
  const json& summary = run.result["summary"];
  const double resumed = FAILURE + 0.5 + RESTART + CONVERT + LOAD_2;
  CHECK(summary["end_time"].get<double>() == near(resumed + 5 * STEP_REDUCE + WRITE));
  CHECK(time_of(run)["productive"].get<double>() == near(5 * STEP + 5 * STEP_REDUCE));
  // 5 steps of 4 sequences, then 5 of 2.
  CHECK(summary["collective"]["samples"]["kept"].get<double>() == 30.0);
  check_accounting(run);
  // Half the batches: other parameters than the failure-free run's.
  const IsolatedRun failure_free = run_isolated(clean("reduce-clean", 10).dump());
  CHECK(run.final_params != failure_free.final_params);
}

TEST_CASE("Growing back at the next checkpoint once the nodes are repaired", "[universal]") {
  // Node 1 is back 0.6 s after the failure, detected 0.2 s after it. The job resumes on node 0
  // at FAILURE + 0.544 s, and the checkpoint after step 10 comes 5 accumulating steps and a
  // write later (FAILURE + 0.628 s): node 1 is up, so a planned restart onto 4 replicas
  // follows, with the conversion of that checkpoint (written by 2 replicas) and the load on 4.
  const int optimizer = GENERATE(0, 1);
  const IsolatedRun run = run_isolated([&] {
    json s = universal("grow", json::object(), "600ms", 0.2, optimizer);
    s["stop"]["version"] = 20;
    return s.dump();
  }());
  const json& summary = run.result["summary"];
  const json& c = summary["collective"];
  const double shrunk = FAILURE + 0.2 + RESTART + CONVERT + LOAD_2;
  REQUIRE(shrunk + 5 * STEP_KEEP + WRITE > FAILURE + 0.6);
  const double grown = shrunk + 5 * STEP_KEEP + WRITE + RESTART + CONVERT + LOAD_4;
  CHECK(summary["end_time"].get<double>() == near(grown + 10 * STEP + 2 * WRITE));
  CHECK(time_of(run)["productive"].get<double>() == near(15 * STEP + 5 * STEP_KEEP));
  CHECK(time_of(run)["lost_work"].get<double>() == near(2.5 * STEP));
  CHECK(time_of(run)["restart"].get<double>() == near(2 * RESTART));
  CHECK(time_of(run)["checkpoint_load"].get<double>() == near(2 * CONVERT + LOAD_2 + LOAD_4));
  CHECK(time_of(run)["checkpoint_stall"].get<double>() == near(4 * WRITE));
  CHECK(time_of(run)["repair_wait"].get<double>() == 0.0);
  CHECK(c["restarts"] == 2);
  CHECK(c["steps"]["kept"] == 20);
  check_accounting(run);
  const auto resized = events_of(run, "resized");
  REQUIRE(resized.size() == 2);
  CHECK(resized[1]["time"].get<double>() == near(grown));
  CHECK(resized[1]["details"]["replicas"] == 4);
  CHECK(resized[1]["details"]["micro_batch_rounds"] == 1);
  // Grown back, the job runs the full step again, and its parameters are the failure-free run's.
  const IsolatedRun failure_free = run_isolated(clean("grow-clean", 20, optimizer).dump());
  CHECK(run.final_params == failure_free.final_params);
}

TEST_CASE("The loss curve by steps continues across the shrink and the grow, to the bit",
          "[universal]") {
  // docs/language-model.md, "Universal checkpoints: resuming on another layout": evaluated after
  // every step (evaluation.every_updates 1), the run that shrinks onto node 0 and grows back
  // measures at each version the failure-free run's loss and accuracy, digit for digit; steps 6
  // and 7, done before the failure and again after the rollback to 5, are measured twice, the
  // same both times.
  const int optimizer = GENERATE(0, 1);
  const json every_step = {{"interval", 0}, {"every_updates", 1}};
  json shrink = universal("curve", json::object(), "600ms", 0.2, optimizer);
  shrink["stop"]["version"] = 20;
  shrink["evaluation"] = every_step;
  json clean_run = clean("curve-clean", 20, optimizer);
  clean_run["evaluation"] = every_step;
  const IsolatedRun run = run_isolated(shrink.dump());
  const IsolatedRun failure_free = run_isolated(clean_run.dump());
  REQUIRE(events_of(run, "resized").size() == 2);
  // version -> the rest of its row after the time (accuracy, loss, perplexity, ...).
  const auto rows = [](const IsolatedRun& r) {
    std::istringstream lines(r.timeseries);
    std::string line;
    std::getline(lines, line);
    std::vector<std::pair<long, std::string>> out;
    while (std::getline(lines, line)) {
      const std::size_t version_end = line.find(',', line.find(',') + 1);
      out.emplace_back(std::stol(line.substr(line.find(',') + 1)), line.substr(version_end));
    }
    return out;
  };
  const auto curve = rows(run);
  const auto reference = rows(failure_free);
  REQUIRE(reference.size() == 20);
  std::map<long, std::string> expected(reference.begin(), reference.end());
  std::vector<long> versions;
  for (const auto& [version, rest] : curve) {
    versions.push_back(version);
    CHECK(rest == expected.at(version));
  }
  CHECK(versions == std::vector<long>{1,  2,  3,  4,  5,  6,  7,  6,  7,  8,  9,
                                      10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  // The shrunk steps take two batches each: other times, the same versions.
  CHECK(run.result["summary"]["end_time"].get<double>() >
        failure_free.result["summary"]["end_time"].get<double>() + 0.5);
}

TEST_CASE("wait_limit: a repair within it is waited for, a longer one is not", "[universal]") {
  // Node 1 is back 1 s after the failure, noticed 0.5 s after it: 0.5 s more to wait.
  SECTION("within the limit: checkpoint-restart's plain resume on the full layout") {
    const IsolatedRun run =
        run_isolated(universal("wait", {{"wait_limit", "2s"}}, "1s", 0.5).dump());
    const double resumed = FAILURE + 1.0 + RESTART + LOAD_4;
    CHECK(run.result["summary"]["end_time"].get<double>() == near(resumed + 5 * STEP + WRITE));
    CHECK(time_of(run)["repair_wait"].get<double>() == near(0.5));
    CHECK(time_of(run)["checkpoint_load"].get<double>() == near(LOAD_4));
    CHECK(events_of(run, "resize").empty());
    check_accounting(run);
  }
  SECTION("beyond it: 0.3 s of waiting, then the shrink") {
    const IsolatedRun run = run_isolated(
        universal("wait-shrink", {{"wait_limit", "300ms"}, {"grow", "never"}}, "1s", 0.5).dump());
    const double resumed = FAILURE + 0.8 + RESTART + CONVERT + LOAD_2;
    CHECK(run.result["summary"]["end_time"].get<double>() == near(resumed + 5 * STEP_KEEP + WRITE));
    CHECK(time_of(run)["repair_wait"].get<double>() == near(0.3));
    CHECK(events_of(run, "resize").size() == 1);
    check_accounting(run);
  }
  SECTION("min_replicas above the survivors: it waits for the repair, whatever the limit") {
    const IsolatedRun run = run_isolated(universal("min", {{"min_replicas", 3}}, "1s", 0.5).dump());
    CHECK(time_of(run)["repair_wait"].get<double>() == near(0.5));
    CHECK(time_of(run)["checkpoint_load"].get<double>() == near(LOAD_4));
    CHECK(events_of(run, "resize").empty());
    check_accounting(run);
  }
}

TEST_CASE("Without failures the design is checkpoint-restart", "[universal]") {
  json s = clean("no-failure", 10);
  s["recovery"]["strategy"] = "universal";
  const IsolatedRun run = run_isolated(s.dump());
  const IsolatedRun base = run_isolated(clean("no-failure-base", 10).dump());
  CHECK(run.result["summary"]["end_time"] == base.result["summary"]["end_time"]);
  CHECK(time_of(run) == time_of(base));
  CHECK(run.final_params == base.final_params);
  check_accounting(run);
}

TEST_CASE("A shrink and a grow give byte-identical results on 1 and 2 threads", "[universal]") {
  json s = universal("threads", json::object(), "600ms", 0.2, GENERATE(0, 1));
  s["stop"]["version"] = 20;
  const IsolatedRun one = run_isolated(s.dump(), {}, false, 1);
  const IsolatedRun two = run_isolated(s.dump(), {}, false, 2);
  REQUIRE(events_of(one, "resized").size() == 2);
  CHECK(reproducible_part(one.result).dump() == reproducible_part(two.result).dump());
  CHECK(one.events == two.events);
  CHECK(one.timeseries == two.timeseries);
  CHECK(one.final_params == two.final_params);
}
