// The resolve step (sim/scenario/resolve.hpp): what a scenario means for its job, worked out by
// hand on small cases, and the catalogue of scenarios that parse but cannot run. Each of those
// is refused by resolve() with one message, and `failsim validate` and `failsim run` refuse it
// with the same message and exit status 2, the run before simulating or writing anything; so
// do they every scenario of the parser's catalogue (tests/bad_scenarios.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bad_scenarios.hpp"
#include "cli_harness.hpp"
#include "input_error_of.hpp"
#include "models/fortunes.hpp"
#include "sim/scenario/collective/work.hpp"
#include "sim/scenario/resolve.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using failsim::sim::parse_scenario;
using failsim::sim::parse_scenario_text;
using failsim::sim::resolve;
using failsim::testing::BadScenario;
using failsim::testing::catalogue;
using failsim::testing::error_of;
using failsim::testing::expand;
using failsim::testing::MINIMAL;
using failsim::testing::MINIMAL_COLLECTIVE;
using failsim::testing::replace_all;
using failsim::testing::run_cli;
using failsim::testing::scenario_text;
using failsim::testing::Stage;
using failsim::testing::TempDir;
using failsim::testing::write_text;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Unrunnable {
  std::string what;
  std::string patch;  ///< merged into MINIMAL (RFC 7386); @EMPTY@ is an empty directory
  std::string json_path;
  std::vector<std::string> message_parts;
};

std::vector<Unrunnable> unrunnable() {
  return {
      {"batch larger than a worker's share of the data",
       R"({"optimizer": {"batch_size": 501}})",
       "/optimizer/batch_size",
       {"expected at most the smallest worker shard (1000 training samples / 2 workers = 500), "
        "found 501"}},
      {"fewer training samples than workers",
       R"({"data": {"train_size": 1}})",
       "/data/train_size",
       {"expected at least one training sample per worker (2 workers), found 1"}},
      {"fewer Fashion-MNIST training samples than workers",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null,
                    "train_limit": 1}})",
       "/data/train_limit",
       {"expected at least one training sample per worker (2 workers), found 1"}},
      {"test subset larger than the test set",
       R"({"evaluation": {"test_subset": 201}})",
       "/evaluation/test_subset",
       {"expected at most the 200 test samples of the data set (0 = all), found 201"}},
      {"test subset larger than the whole Fashion-MNIST test set (no limit written)",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null},
           "evaluation": {"test_subset": 10001}})",
       "/evaluation/test_subset",
       {"expected at most the 10000 test samples of the data set (0 = all), found 10001"}},
      {"a data directory without the IDX files",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null,
                    "dir": "@EMPTY@"}})",
       "/data/dir",
       {"expected a directory of Fashion-MNIST IDX files that load, found ",
        "train-images-idx3-ubyte.gz: cannot open IDX file"}},
      // Softmax on 32 inputs and 10 classes: 330 parameters.
      {"more shards than parameters",
       R"({"cluster": {"servers": {"shards": 331}}})",
       "/cluster/servers/shards",
       {"expected at most the model's 330 parameters, found 331"}},
      // 1,320 bytes on 1 Mbps without latency: 1320 / (0.97 x 125,000) = 10.9 ms.
      {"request timeout shorter than twice a parameter message",
       R"({"cluster": {"network": {"bandwidth": "1Mbps", "latency": 0}},
           "failures": {"request_timeout": "20ms"}})",
       "/failures/request_timeout",
       {"expected more than twice the time one parameter message takes on the network "
        "(0.010886",
        "for 1320 bytes), found 0.02"}},
      // Sizes against this machine's memory (issue 21, item 6): each estimate is petabytes or
      // more, beyond any machine, so the cases do not depend on where the test runs.
      // 2^31 - 1 samples of 10^6 floats: 7.6 PiB of data, and a batch of all of them as scratch.
      {"a batch of 2^31 - 1 samples of a million features",
       R"({"data": {"dim": 1000000, "train_size": 2147483647},
           "cluster": {"workers": {"count": 1}},
           "optimizer": {"batch_size": 2147483647}})",
       "/optimizer/batch_size",
       {"expected a job that fits in this machine's ", "found 2147483647"}},
      // Softmax on 2^31 - 1 inputs and as many classes: 4.6e18 parameters.
      {"dim and num_classes near 2^31",
       R"({"data": {"dim": 2147483647, "num_classes": 2147483647}})",
       "/data/dim",
       {"expected a job that fits in this machine's ", "4611686016279904256 parameters x 10 copies",
        "found 2147483647"}},
      {"two billion Fashion-MNIST-sized samples",
       R"({"data": {"dim": 784, "train_size": 2147483647}})",
       "/data/train_size",
       {"expected a job that fits in this machine's ", "found 2147483647"}},
      // Work: 2 s / 1 ps = 2e12 evaluations; 1e30 s of two 1 Gf workers at 41,600 flops a batch.
      {"an evaluation every picosecond",
       R"({"evaluation": {"interval": "1ps"}})",
       "/evaluation/interval",
       {"expected at most 1000000 scheduled evaluations in the run (1e+13 at this interval), "
        "found 1e-12"}},
      {"an evaluation every picosecond of a run stopped by its updates",
       R"({"evaluation": {"interval": "1ps"}, "stop": {"time": null, "updates": 1000000}})",
       "/evaluation/interval",
       {"expected at most 1000000 scheduled evaluations in the run"}},
      {"a stop time of 1e30 s",
       R"({"stop": {"time": 1e30}})",
       "/stop/time",
       {"expected a run of at most 1000000000 gradients (the workers can compute 4.81e+34 "
        "before this stop",
        "found 1e+30"}},
      {"speeds so high that simulated time stops advancing",
       R"({"cluster": {"workers": {"speed": 1e300}, "network": {"latency": 0}},
           "stop": {"time": "1us"}})",
       "/stop/time",
       {"expected a run of at most 1000000000 gradients", "found 1e-06"}},
      {"a stop after 2^62 updates",
       R"({"stop": {"time": null, "updates": 4611686018427387904}})",
       "/stop/updates",
       {"expected a run of at most 1000000000 gradients", "found 4611686018427387904"}},
      {"a worker lifetime of 1 ns: an event storm",
       R"({"failures": {"stochastic": [{"target": "worker",
             "lifetime": {"distribution": "exponential", "mean": "1ns"},
             "repair": {"distribution": "exponential", "mean": "1ns"}}]}})",
       "/failures/stochastic/0/lifetime",
       {"expected at most 1000000 random failures before the stop (1e+10 expected with "
        "these lifetimes and repairs), found a mean lifetime of 1e-09 s"}},
  };
}

json patched(const Unrunnable& c, const std::string& empty_dir) {
  json doc = json::parse(MINIMAL);
  std::string patch = c.patch;
  const std::string mark = "@EMPTY@";
  if (const auto at = patch.find(mark); at != std::string::npos)
    patch.replace(at, mark.size(), empty_dir);
  doc.merge_patch(json::parse(patch));
  return doc;
}

}  // namespace

TEST_CASE("resolve: the job of a small scenario, by hand", "[resolve]") {
  json doc = json::parse(MINIMAL);
  doc["cluster"]["servers"]["shards"] = 2;
  doc["timing"] = {{"flops_per_sample", 1e6}};
  const auto job = resolve(parse_scenario(doc, "base.json"), "base.json");
  CHECK(job.train.samples == 1000);
  CHECK(job.test.samples == 200);
  CHECK(job.train.width == 32);
  CHECK(job.train.num_classes == 10);
  // Softmax regression: a 10 x 32 weight matrix (rows of 32) and 10 biases. The balanced cut at
  // 165 is 5 floats from the tensor boundary at 160 (within 10% of 165): the cut is there.
  CHECK(job.num_params == 330);
  REQUIRE(job.shards.size() == 2);
  CHECK(job.shards[0].range == failsim::models::ShardRange{0, 160});
  CHECK(job.shards[1].range == failsim::models::ShardRange{160, 170});
  CHECK(job.time.param_bytes == 1320.0);
  CHECK(job.time.gradient_flops == 1e6 * 32);  // the default batch of 32
  CHECK(job.time.update_flops == 2.0 * 330);
  // Each shard's costs are its fraction of the time model's: the job's shards are these
  // (sim/ps/job.cpp takes them, and share_shards for every later generation).
  CHECK(job.shards[0].bytes == 1320.0 * (160.0 / 330.0));
  CHECK(job.shards[1].bytes == 1320.0 * (170.0 / 330.0));
  CHECK(job.shards[0].update_flops == 660.0 * (160.0 / 330.0));
  CHECK(job.shards[1].update_flops == 660.0 * (170.0 / 330.0));
  doc["cluster"]["servers"]["shards"] = 1;
  const auto one = resolve(parse_scenario(doc, "base.json"), "base.json");
  REQUIRE(one.shards.size() == 1);
  CHECK(one.shards[0].bytes == one.time.param_bytes);  // exactly, not a rounded fraction
  CHECK(one.shards[0].update_flops == one.time.update_flops);
}

TEST_CASE(
    "a collective run's set-up: linear in ranks, accelerators, nodes and streams, and in the "
    "ranks for the first step, refused beyond the hour or 16 GiB before the plan",
    "[resolve][work]") {
  namespace sim = failsim::sim;
  json doc = json::parse(MINIMAL_COLLECTIVE);
  doc.merge_patch(json::parse(R"({"data": null, "model": null, "workload": {"math": "none"}})"));
  const auto setup = [&](int nodes, int per_node) {
    doc["platform"]["nodes"] = nodes;
    doc["platform"]["node"] = {{"preset", "h100-8x"}, {"accelerators", per_node}};
    return sim::estimate_collective_setup(parse_scenario(doc, "s.json"));
  };
  // Twice the nodes of as many accelerators: twice the ranks' part and the platform's, which is
  // linear in the accelerators and the nodes.
  const sim::CollectiveSetup small = setup(100, 64), large = setup(200, 64);
  CHECK(large.ranks == Approx(2.0 * small.ranks));
  CHECK(large.platform == Approx(2.0 * small.platform));
  CHECK(small.platform == Approx(100 * 64 * sim::PLATFORM_SECONDS_PER_ACCELERATOR +
                                 100 * sim::PLATFORM_SECONDS_PER_NODE));
  CHECK(small.schedules == 0.0);
  // The first step's flows: twice as long for twice the ranks; one set (the data-parallel
  // ring; no checkpoint), six for the Llama-3 layout (tensor-parallel rings, pipeline sends, a
  // hierarchical all-reduce's three, a checkpoint's write).
  CHECK(small.first_step == Approx(6400.0 * sim::FIRST_STEP_SECONDS_PER_FLOW));
  CHECK(sim::first_step_flow_sets(parse_scenario(
            json::parse(failsim::testing::read_text(
                FAILSIM_SOURCE_DIR "/scenarios/cluster/validation/llama3-405b.json")),
            FAILSIM_SOURCE_DIR "/scenarios/cluster/validation/llama3-405b.json")) == 6.0);
  CHECK(large.first_step == Approx(2.0 * small.first_step));
  CHECK(small.total() == Approx(small.ranks + small.platform + small.schedules + small.first_step));
  CHECK(small.bytes ==
        Approx(6400.0 * (sim::SETUP_BYTES_PER_RANK + sim::SETUP_BYTES_PER_ACCELERATOR) +
               100.0 * sim::SETUP_BYTES_PER_NODE));
  // Spares are platform, not ranks.
  doc["platform"]["spares"] = 100;
  const sim::CollectiveSetup spared = setup(100, 64);
  CHECK(spared.ranks == small.ranks);
  CHECK(spared.platform == Approx(sim::collective_platform_seconds(200, 200 * 64)));
  CHECK(spared.first_step == small.first_step);
  CHECK(spared.bytes == Approx(small.bytes + 6400.0 * sim::SETUP_BYTES_PER_ACCELERATOR +
                               100.0 * sim::SETUP_BYTES_PER_NODE));
  // 2 nodes and 4,000 spare nodes of 2,048 accelerators: 8 million accelerators, 33 GB of
  // platform for 4,096 ranks, refused by memory though its time is within the hour.
  doc["platform"]["spares"] = 4000;
  const auto spare_heavy = setup(2, 2048);
  REQUIRE(spare_heavy.total() < sim::MAX_COLLECTIVE_WALL_SECONDS);
  REQUIRE(spare_heavy.bytes > sim::MAX_COLLECTIVE_SETUP_BYTES);
  const auto m = error_of([&] { resolve(parse_scenario(doc, "s.json"), "s.json"); });
  CHECK(m.json_path() == "/platform/spares");
  CHECK_THAT(m.what(), Catch::Contains("expected a set-up of at most 16 GiB of memory") &&
                           Catch::Contains("found 31.4 GiB: 4,096 ranks on 2 nodes of 2,048 "
                                           "accelerators and 4,000 spares"));
  doc["platform"].erase("spares");
  // 512 nodes of 512 accelerators: 262,144 ranks, whose first step takes 40 s and memory 6.3
  // GiB: within both limits. 1,024 nodes of as many: 1,048,576 ranks, over 16 GiB.
  const auto quarter = setup(512, 512);
  CHECK(quarter.total() < sim::MAX_COLLECTIVE_WALL_SECONDS);
  CHECK(quarter.bytes < sim::MAX_COLLECTIVE_SETUP_BYTES);
  CHECK(setup(1024, 1024).bytes > sim::MAX_COLLECTIVE_SETUP_BYTES);
  // 4,096 nodes of 2,441 accelerators (9,998,336 ranks, within the rank cap): half an hour, and
  // 238 GiB. The plan is never built: the refusal comes first, whatever the layout says.
  const auto huge = setup(4096, 2441);
  REQUIRE(huge.total() < sim::MAX_COLLECTIVE_WALL_SECONDS);
  REQUIRE(huge.bytes > sim::MAX_COLLECTIVE_SETUP_BYTES);
  const auto e = error_of([&] { resolve(parse_scenario(doc, "s.json"), "s.json"); });
  CHECK(e.json_path() == "/platform/nodes");
  CHECK_THAT(e.what(), Catch::Contains("expected a set-up of at most 16 GiB of memory") &&
                           Catch::Contains("GiB: 9,998,336 ranks on 4,096 nodes of 2,441 "
                                           "accelerators"));
  // The same with tensor and pipeline parallelism and a hierarchical all-reduce: five sets of
  // flows in the first step (the tensor-parallel rings, the sends, the all-reduce's three), over
  // the hour; the time is said first.
  doc["layout"]["tp"] = 2;
  doc["layout"]["pp"] = 2;
  doc["layout"]["dp_algorithm"] = "hierarchical";
  const auto five_sets = setup(4096, 2441);
  REQUIRE(five_sets.total() > sim::MAX_COLLECTIVE_WALL_SECONDS);
  CHECK(five_sets.first_step == Approx(5.0 * huge.first_step));
  const auto t = error_of([&] { resolve(parse_scenario(doc, "s.json"), "s.json"); });
  CHECK(t.json_path() == "/platform/nodes");
  CHECK_THAT(t.what(), Catch::Contains("expected a set-up of at most 3600 s of wall time up to "
                                       "the end of the first step") &&
                           Catch::Contains(" s: 9,998,336 ranks on 4,096 nodes of 2,441 "
                                           "accelerators (the plan and the step network"));
  doc["layout"] = json::parse(MINIMAL_COLLECTIVE)["layout"];
  // The dry run's estimate holds the set-up.
  const sim::CollectiveSetup two = setup(2, 8);
  const auto fits = resolve(parse_scenario(doc, "s.json"), "s.json");
  CHECK(fits.collective_work.setup_seconds == Approx(two.total()));
}

TEST_CASE("a collective run's work, by hand", "[resolve][work]") {
  // MINIMAL_COLLECTIVE, time only: 2 nodes of 8 accelerators, a stop of 1 h.
  json doc = json::parse(MINIMAL_COLLECTIVE);
  doc.merge_patch(json::parse(R"({"data": null, "model": null, "workload": {"math": "none"},
      "stop": {"time": "1h"},
      "failures": {"stochastic": [{"target": "node",
        "lifetime": {"distribution": "exponential", "mean": "50s"},
        "repair": {"distribution": "fixed", "value": "10s"}}],
        "events": [{"target": "node", "index": 1, "at": "10s", "down_for": "1s"}],
        "stragglers": [{"target": "node", "index": 0, "from": "1s", "to": "2s", "slowdown": 2}],
        "stochastic_stragglers": [{"target": "accelerator",
          "every": {"distribution": "fixed", "value": "80s"},
          "duration": {"distribution": "fixed", "value": "10s"}, "slowdown": 2}]},
      "recovery": {"checkpoint": {"every_steps": 10}}})"));
  const auto s = parse_scenario(doc, "w.json");
  const auto job = resolve(s, "w.json");
  const failsim::sim::CollectivePlan& plan = *job.collective;
  const failsim::sim::CollectiveWork& w = job.collective_work;
  CHECK(w.horizon_known);
  CHECK(w.horizon == 3600.0);
  // Steps: the stop time over the least length of a step (its compute), and the one under way.
  CHECK(w.steps == std::floor(3600.0 / plan.compute_seconds) + 1.0);
  // 2 nodes x 3600 / (50 + 10), and the scheduled event; as many restarts.
  CHECK(w.failures == Approx(2.0 * 3600.0 / 60.0 + 1.0));
  CHECK(w.failures_per_restart == 1.0);  // the stop time bounds the failures, restarts or not
  CHECK(w.restarts == w.failures);
  // 16 accelerators x 3600 / (80 + 10), and the scheduled spell.
  CHECK(w.spells == Approx(16.0 * 3600.0 / 90.0 + 1.0));
  CHECK(w.checkpoints == std::floor(w.steps / 10.0));
  CHECK(w.event_rows == Approx(w.failures + w.restarts + 2.0 * w.checkpoints));
  // The scheduled event and the spell, copied into result.json's scenario.
  CHECK(w.listed_events == 2.0);
  // The set-up: 16 ranks on 2 nodes of 8, 2 + 16 random streams and 2 scheduled entries, and
  // the first step's two sets of 16 flows (the data-parallel ring, a checkpoint's write).
  namespace sim = failsim::sim;
  CHECK(w.setup_seconds ==
        Approx(16.0 * sim::SETUP_SECONDS_PER_RANK + 16.0 * sim::PLATFORM_SECONDS_PER_ACCELERATOR +
               2.0 * sim::PLATFORM_SECONDS_PER_NODE + 20.0 * sim::SETUP_SECONDS_PER_STREAM +
               2.0 * 16.0 * sim::FIRST_STEP_SECONDS_PER_FLOW));
  CHECK(w.setup_bytes ==
        Approx(16.0 * (sim::SETUP_BYTES_PER_RANK + sim::SETUP_BYTES_PER_ACCELERATOR) +
               2.0 * sim::SETUP_BYTES_PER_NODE));
  CHECK(w.wall_seconds() ==
        Approx(w.setup_seconds + w.steps / failsim::sim::COLLECTIVE_STEPS_PER_WALL_SECOND +
               2.0 * w.failures / failsim::sim::COLLECTIVE_FAILURES_PER_WALL_SECOND +
               w.spells / failsim::sim::COLLECTIVE_SPELLS_PER_WALL_SECOND +
               w.checkpoints / failsim::sim::COLLECTIVE_CHECKPOINTS_PER_WALL_SECOND));
  CHECK(w.max_event_rows ==
        Approx(
            (failsim::sim::DEFAULT_MAX_RESULT_BYTES - 2.0 * failsim::sim::LISTED_EVENT_JSON_BYTES) /
            (failsim::sim::EVENT_JSON_BYTES + failsim::sim::EVENT_CSV_BYTES)));

  // Without a stop time the horizon is the least time the stop's steps take: a lower bound.
  // And the run lasts until restarts get through: a restart needs R = 60 + 30 + 5 + 0.005 x 16
  // ranks = 95.08 s without a failure of the 2 nodes (each 1 / 50 s), so each failure costs
  // e^(0.04 x 95.08) = 44.9 failures before one does.
  doc["stop"] = {{"version", 100}};
  const auto by_version = resolve(parse_scenario(doc, "w.json"), "w.json").collective_work;
  CHECK_FALSE(by_version.horizon_known);
  CHECK(by_version.steps == 100.0);
  CHECK(by_version.horizon == Approx(100.0 * plan.compute_seconds));
  CHECK(by_version.failures_per_restart == Approx(std::exp(2.0 / 50.0 * 95.08)));
  CHECK(by_version.failures ==
        Approx((2.0 * by_version.horizon / 60.0 + 1.0) * by_version.failures_per_restart));
  CHECK(by_version.restarts == by_version.failures);
  CHECK(by_version.checkpoints == 10.0);
  // The smaller of updates and version bounds the steps.
  doc["stop"] = {{"version", 100}, {"updates", 40}};
  CHECK(resolve(parse_scenario(doc, "w.json"), "w.json").collective_work.steps == 40.0);
}

TEST_CASE("output.max_size raises the limit of a collective run's result", "[resolve][work]") {
  // 16 accelerators failing every 20 ms for an hour: 2.88e6 failures and as many restarts, about
  // 1.8 GiB of events, within the wall limit; refused at the default 1 GiB, not at 4 GiB.
  json doc = json::parse(MINIMAL_COLLECTIVE);
  doc.merge_patch(json::parse(R"({"data": null, "model": null, "workload": {"math": "none"},
      "stop": {"time": "1h"},
      "failures": {"stochastic": [{"target": "accelerator",
        "lifetime": {"distribution": "exponential", "mean": "10ms"},
        "repair": {"distribution": "fixed", "value": "10ms"}}]}})"));
  const auto refused = error_of([&] { resolve(parse_scenario(doc, "big.json"), "big.json"); });
  CHECK(refused.json_path() == "/output/max_size");
  doc["output"] = {{"max_size", "4GiB"}};
  const auto job = resolve(parse_scenario(doc, "big.json"), "big.json");
  CHECK(job.collective_work.result_bytes(parse_scenario(doc, "big.json").output) ==
        Approx(5.76e6 * (failsim::sim::EVENT_JSON_BYTES + failsim::sim::EVENT_CSV_BYTES)));
  CHECK(job.collective_work.max_event_rows ==
        Approx(4.0 * 1024 * 1024 * 1024 /
               (failsim::sim::EVENT_JSON_BYTES + failsim::sim::EVENT_CSV_BYTES)));
  // Without events.csv, only result.json's events count.
  failsim::sim::OutputConfig no_csv;
  no_csv.events = false;
  CHECK(job.collective_work.result_bytes(no_csv) ==
        Approx(5.76e6 * failsim::sim::EVENT_JSON_BYTES));
}

TEST_CASE("listed failure events and spells count in a collective result's size",
          "[resolve][work]") {
  // result.json copies failures.events and failures.stragglers into its scenario section: 3
  // events and 2 spells at LISTED_EVENT_JSON_BYTES each, beside the events' own 330 bytes.
  json doc = json::parse(MINIMAL_COLLECTIVE);
  doc.merge_patch(json::parse(R"({"data": null, "model": null, "workload": {"math": "none"},
      "failures": {"events": [{"target": "node", "index": 0, "at": "1s", "down_for": "1s"},
                              {"target": "node", "index": 1, "at": "2s", "down_for": "1s"},
                              {"target": "node", "index": 0, "at": "3s", "down_for": "1s"}],
        "stragglers": [{"target": "node", "index": 0, "from": "1s", "to": "2s", "slowdown": 2},
                       {"target": "node", "index": 1, "from": "1s", "to": "2s", "slowdown": 2}]},
      "output": {"max_size": "1MB"}})"));
  const auto s = parse_scenario(doc, "l.json");
  const failsim::sim::CollectiveWork w = resolve(s, "l.json").collective_work;
  CHECK(w.listed_events == 5.0);
  const double row = failsim::sim::EVENT_JSON_BYTES + failsim::sim::EVENT_CSV_BYTES;
  CHECK(w.result_bytes(s.output) ==
        Approx(w.event_rows * row + 5.0 * failsim::sim::LISTED_EVENT_JSON_BYTES));
  // What they leave of output.max_size is what the job's events may fill while it runs.
  CHECK(w.max_event_rows == Approx((1e6 - 5.0 * failsim::sim::LISTED_EVENT_JSON_BYTES) / row));
}

TEST_CASE("resolve: Fashion-MNIST from its headers, limits applied", "[resolve]") {
  json doc = json::parse(MINIMAL);
  doc["data"] = {{"kind", "fashion-mnist"}, {"test_limit", 500}};
  const auto job = resolve(parse_scenario(doc, "f.json"), "f.json");
  CHECK(job.train.samples == 60000);
  CHECK(job.test.samples == 500);
  CHECK(job.train.height == 28);
  CHECK(job.train.width == 28);
  CHECK(job.num_params == 28 * 28 * 10 + 10);
}

TEST_CASE("resolve: the fortunes in windows, and the transformer's size and scratch, by hand",
          "[resolve]") {
  if (!fs::exists(failsim::models::FORTUNES_DIR)) {
    FAILSIM_SKIP("the Debian package fortunes is not installed");
  }
  json doc = json::parse(MINIMAL);
  doc["data"] = {{"kind", "text"}, {"test_limit", 100}};
  doc["model"] = {
      {"kind", "transformer"}, {"layers", 2}, {"hidden", 64}, {"heads", 4}, {"sequence", 32}};
  const auto job = resolve(parse_scenario(doc, "t.json"), "t.json");
  // (2,319,785 training bytes - 1) / 32; the first 100 validation windows.
  CHECK(job.train.samples == 72493);
  CHECK(job.test.samples == 100);
  CHECK(job.train.width == 33);
  CHECK(job.train.num_classes == 256);
  CHECK(job.train.tokens);
  // wte 256 x 64 + wpe 32 x 64 + 2 blocks of (4 x 64 + 3 x 64 x 64 + 3 x 64 + 64 x 64 + 64 +
  // 256 x 64 + 256 + 64 x 256 + 64) + ln_f 2 x 64; lm_head is wte (tied).
  CHECK(job.num_params == 16384 + 2048 + 2 * 49984 + 128);
  // Each math thread's scratch: its batch (32 windows) and its evaluator's chunk (256), each window
  // T = 32 positions of (2L + 1)(2D + 2) + L(4D + 2F) + V + 6D + F + 2 floats and L H T^2
  // attention weights, with D = 64, F = 256, L = 2, H = 4, V = 256.
  const double window =
      32.0 * (5 * 130 + 2 * (256 + 512) + 256 + 6 * 64 + 256 + 2) + 2.0 * 4 * 32 * 32;
  const double threads = std::max(1u, std::thread::hardware_concurrency());
  CHECK(job.memory.scratch_bytes == threads * 4.0 * (32 + 256) * window);
}

TEST_CASE("the catalogue of scenarios that parse but cannot run: resolve refuses each",
          "[resolve]") {
  TempDir dir;
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  for (const Unrunnable& c : unrunnable()) {
    INFO(c.what);
    const json doc = patched(c, empty);
    const auto scenario = parse_scenario(doc, "bad.json");  // the scenario itself is valid
    const failsim::input::InputError e = error_of([&] { resolve(scenario, "bad.json"); });
    CHECK(e.file() == "bad.json");
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
  }
}

TEST_CASE("validate refuses what run refuses, with the same message, and run writes nothing",
          "[resolve][cli]") {
  TempDir dir;
  const std::string empty = dir.file("empty");
  fs::create_directories(empty);
  for (const Unrunnable& c : unrunnable()) {
    INFO(c.what);
    const std::string file = dir.file("bad.json");
    write_text(file, patched(c, empty).dump(2));
    const auto validated = run_cli("validate '" + file + "'", dir);
    CHECK(validated.status == 2);
    CHECK_THAT(validated.err, Catch::Contains(file + ": " + c.json_path + ": "));
    for (const std::string& part : c.message_parts)
      CHECK_THAT(validated.err, Catch::Contains(part));
    const std::string out = dir.file("out");
    const auto ran = run_cli("run '" + file + "' -q -o '" + out + "'", dir);
    CHECK(ran.status == 2);
    for (const std::string& part : c.message_parts) CHECK_THAT(ran.err, Catch::Contains(part));
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("resolve refuses each case of the catalogue that parses", "[resolve]") {
  int checked = 0;
  for (const BadScenario& c : catalogue()) {
    if (c.stage != Stage::RESOLVE) continue;
    INFO(c.what);
    const auto scenario = parse_scenario_text(scenario_text(c, FAILSIM_SOURCE_DIR), "bad.json");
    const failsim::input::InputError e = error_of([&] { resolve(scenario, "bad.json"); });
    CHECK(e.file() == "bad.json");
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
    ++checked;
  }
  CHECK(checked >= 15);
}

TEST_CASE("validate and run refuse every scenario of the parser's catalogue with one message",
          "[resolve][cli]") {
  TempDir dir;
  const std::vector<BadScenario>& cases = catalogue();
  std::vector<std::string> files;
  std::string all;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    files.push_back(dir.file("bad-" + std::to_string(i) + ".json"));
    all += " '" + files.back() + "'";
    write_text(files.back(), scenario_text(cases[i], FAILSIM_SOURCE_DIR));
  }
  // One validate for every file (one line each, in order), then one run per file.
  const auto validated = run_cli("validate" + all, dir);
  CHECK(validated.status == 2);
  std::istringstream lines(validated.err);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BadScenario& c = cases[i];
    INFO(c.what);
    std::string line;
    REQUIRE(std::getline(lines, line));
    // The file the message names: the scenario, or a file it reads (a node preset).
    const std::string named =
        std::string(c.file) == "bad.json" ? files[i] : expand(c.file, FAILSIM_SOURCE_DIR);
    CHECK_THAT(line, Catch::StartsWith(named));
    if (!c.whole_text) {  // whole texts give positions in their own layout, not in dump(2)'s
      for (const std::string& part : c.message_parts) {
        CHECK_THAT(line, Catch::Contains(replace_all(part, "bad.json", files[i])));
      }
    }
    const std::string out = dir.file("out");
    const auto ran = run_cli("run '" + files[i] + "' -q -o '" + out + "'", dir);
    CHECK(ran.status == 2);
    CHECK(ran.err == "failsim run: " + line + "\n");
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("a 1F1B bubble above 50% draws a warning on stderr, at 50% or less none",
          "[resolve][collective]") {
  // dp 2 x pp 8 on the base's 16 accelerators; global_batch_size sequences / (2 x 2) =
  // micro-batches m; the bubble is (pp - 1) / (m + pp - 1).
  const auto scenario = [](int global_batch_size) {
    json doc = json::parse(MINIMAL_COLLECTIVE);
    doc.merge_patch(json::parse(R"({"layout": {"dp": 2, "pp": 8, "micro_batch_size": 2},
        "workload": {"transformer": {"global_batch_tokens": null}}})"));
    doc["workload"]["transformer"]["global_batch_size"] = global_batch_size;
    return doc;
  };
  failsim::sim::print_warnings(false);  // this process checks the list; the binary prints it
  // 24 sequences: m = 6, 7 / 13 = 53.8%; 28: m = 7, 7 / 14 = 50% exactly; 64: m = 16, 7 / 23.
  const auto job = resolve(parse_scenario(scenario(24), "b.json"), "b.json");
  REQUIRE(job.warnings.size() == 1);
  CHECK(job.warnings[0] ==
        "b.json: /layout/micro_batches: the pipeline bubble idles 53.8% of a step's compute, "
        "more than 50% (1F1B: (pp - 1) / (micro_batches + pp - 1) = 7 / (6 + 7)); 7 or more "
        "micro-batches keep it at 50% or less (with Megatron-LM's names: micro-batches = "
        "global_batch_size / (micro_batch_size x dp))");
  CHECK(resolve(parse_scenario(scenario(28), "b.json"), "b.json").warnings.empty());
  CHECK(resolve(parse_scenario(scenario(64), "b.json"), "b.json").warnings.empty());

  // The binary says it on stderr, and the file is still valid; at 50% it says nothing.
  TempDir dir;
  const std::string bad = dir.file("bubble.json"), fine = dir.file("fine.json");
  write_text(bad, scenario(24).dump(2));
  write_text(fine, scenario(28).dump(2));
  const auto warned = run_cli("validate '" + bad + "'", dir);
  CHECK(warned.status == 0);
  CHECK(warned.err == "failsim: warning: " + bad +
                          ": /layout/micro_batches: the pipeline bubble idles 53.8% of a step's "
                          "compute, more than 50% (1F1B: (pp - 1) / (micro_batches + pp - 1) = "
                          "7 / (6 + 7)); 7 or more micro-batches keep it at 50% or less (with "
                          "Megatron-LM's names: micro-batches = global_batch_size / "
                          "(micro_batch_size x dp))\n");
  const auto quiet = run_cli("validate '" + fine + "'", dir);
  CHECK(quiet.status == 0);
  CHECK(quiet.err.empty());
}
