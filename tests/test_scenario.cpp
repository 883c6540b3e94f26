// The scenario format: the shipped examples parse to what they say, defaults and paths resolve,
// to_json() round-trips, a catalogue of bad scenarios each gets its exact message, and the
// parser, scenarios/schema.json and docs/scenario-format.md are checked against each other so
// none of them can drift silently.
#include <catch2/catch.hpp>

#include "bad_scenarios.hpp"
#include "file_text.hpp"
#include "input_error_of.hpp"
#include "temp_dir.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/ps/recovery/chain/settings.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/stateless/settings.hpp"
#include "sim/ps/recovery/stateless_chain/settings.hpp"
#include "sim/scenario/scenario.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace failsim::sim;
using namespace failsim::input;
using failsim::models::StaleRule;
using failsim::testing::BadScenario;
using failsim::testing::catalogue;
using failsim::testing::expand;
using failsim::testing::file_text;
using failsim::testing::MINIMAL;
using failsim::testing::scenario_text;
using failsim::testing::Stage;

namespace {

/// The single-level checkpoint settings (no levels).
CheckpointConfig single_level(int every_updates, double every_seconds, bool blocking) {
  CheckpointConfig c;
  c.every_updates = every_updates;
  c.every_seconds = every_seconds;
  c.blocking = blocking;
  return c;
}

const fs::path SOURCE_DIR = FAILSIM_SOURCE_DIR;
const fs::path EXAMPLES_DIR = SOURCE_DIR / "scenarios" / "examples";
const fs::path SCHEMA_FILE = SOURCE_DIR / "scenarios" / "schema.json";
const fs::path CLUSTER_DIR = SOURCE_DIR / "scenarios" / "cluster";
const fs::path COLLECTIVE_SCHEMA_FILE = SOURCE_DIR / "scenarios" / "collective.schema.json";
const fs::path DOCS_FILE = SOURCE_DIR / "docs" / "scenario-format.md";

json read_json(const fs::path& path) { return json::parse(file_text(path)); }

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// The JSON files of `dir` (not of its subfolders), sorted.
std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The parameter-server examples.
std::vector<fs::path> example_files() { return json_files(EXAMPLES_DIR); }

using failsim::testing::error_of;
using failsim::testing::TempDir;

std::string absolute_normal(const fs::path& p) {
  return fs::absolute(p).lexically_normal().string();
}

/// The smallest valid scenario; the catalogue below breaks it one way at a time.
}  // namespace

TEST_CASE("every example scenario parses, and is named after its file", "[scenario]") {
  const std::vector<fs::path> files = example_files();
  std::set<std::string> names;
  for (const fs::path& f : files) {
    INFO(f.string());
    const Scenario s = load_scenario(f.string());
    CHECK(s.name == f.stem().string());
    names.insert(s.name);
  }
  for (const char* required : {"quickstart", "cnn-4-async", "sync-mlp", "ssp-softmax",
                               "platform-lab", "server-kill-checkpoint", "stateless-kill",
                               "chain-kill", "stateless-chain-kill", "worker-failures"}) {
    CHECK(names.count(required) == 1);
  }
}

TEST_CASE("the CNN example is the study's setup with four async workers", "[scenario]") {
  const Scenario s = load_scenario((EXAMPLES_DIR / "cnn-4-async.json").string());
  CHECK(s.data.kind == DatasetKind::FASHION_MNIST);
  CHECK(s.data.dir == "/usr/share/datasets/fashion-mnist");
  CHECK(s.data.train_limit == 0);
  CHECK(s.model.kind == ModelKind::CNN);
  CHECK(s.model.dropout == 0.25);
  CHECK(s.optimizer == OptimizerConfig{OptimizerKind::SGD, 0.01, 0.0, 0.0, 32});
  CHECK(s.cluster.kind == ClusterKind::STAR);
  CHECK(s.cluster.num_workers() == 4);
  CHECK(s.cluster.num_servers() == 1);
  CHECK(s.cluster.star.worker_speeds == std::vector<double>(4, 10e9));
  CHECK(s.cluster.star.server_speed == 10e9);
  CHECK(s.cluster.star.bandwidth == 1.25e9);
  CHECK(s.cluster.star.latency == 50e-6);
  CHECK(s.consistency.mode == ConsistencyMode::ASYNC);
  CHECK(s.evaluation == EvaluationConfig{5.0, 0, 2000, true});
  CHECK(s.stop.time == 100.0);
  CHECK(!s.stop.updates);
  CHECK(!s.stop.target_accuracy);
  CHECK(!s.timing.flops_per_sample);
  CHECK(!s.timing.param_bytes);
}

TEST_CASE("the other examples resolve units, lists and modes", "[scenario]") {
  SECTION("sync-mlp: heterogeneous speeds, mean of gradients, two stop criteria") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "sync-mlp.json").string());
    CHECK(s.model.hidden == std::vector<int>{128, 64});
    CHECK(s.cluster.star.worker_speeds == std::vector<double>{4e9, 4e9, 4e9, 1e9});
    CHECK(s.cluster.star.bandwidth == 1.25e8);
    CHECK(s.cluster.star.latency == 100e-6);
    CHECK(s.consistency == ConsistencyConfig{ConsistencyMode::SYNC, 0, GradientCombine::MEAN});
    CHECK(s.data.train_limit == 20000);
    CHECK(s.evaluation == EvaluationConfig{0.0, 50, 2000, true});
    CHECK(s.stop == StopConfig{std::nullopt, 1500, 0.85, std::nullopt});
    CHECK(s.optimizer.momentum == 0.9);
  }
  SECTION("ssp-softmax: bound and timing overrides") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "ssp-softmax.json").string());
    CHECK(s.consistency.mode == ConsistencyMode::SSP);
    CHECK(s.consistency.bound == 3);
    CHECK(s.timing.flops_per_sample == 3e8);
    CHECK(s.timing.param_bytes == 1e8);
    CHECK(s.data.synthetic == SyntheticData{10, 64, 20000, 2000, 2.5, 1.0});
    CHECK(s.cluster.star.bandwidth == 25e9 / 8);
    CHECK(s.stop == StopConfig{60.0, 20000, std::nullopt, std::nullopt});
  }
  SECTION("platform-lab: a SimGrid platform file beside the scenario and its hosts") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "platform-lab.json").string());
    CHECK(s.cluster.kind == ClusterKind::PLATFORM);
    CHECK(s.cluster.platform.file == absolute_normal(EXAMPLES_DIR / "lab-platform.xml"));
    CHECK(s.cluster.platform.server_hosts == std::vector<std::string>{"ps"});
    CHECK(s.cluster.platform.worker_hosts ==
          std::vector<std::string>{"fast-1", "fast-2", "slow-1"});
    CHECK(s.cluster.num_workers() == 3);
    CHECK(s.cluster.num_servers() == 1);
  }
}

TEST_CASE("the failure examples: one server kill per strategy, and failing workers", "[scenario]") {
  const FailureEvent kill_at_2s{FailureTarget::SERVER, 0, 2.0, std::nullopt, 0.0};
  SECTION("server-kill-checkpoint: checkpoints every 50 updates to the built-in storage host") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "server-kill-checkpoint.json").string());
    CHECK(s.recovery.strategy == "checkpoint");
    CHECK(s.recovery.get<CheckpointConfig>() == single_level(50, 0.0, true));
    CHECK(s.cluster.storage == StorageConfig{"", 500e6, 200e6});
    CHECK(s.cluster.num_servers() == 1);
    CHECK(s.failures.detection_timeout == 0.5);
    CHECK(s.failures.restart_delay == 1.0);
    CHECK(s.failures.request_timeout == 0.2);
    CHECK(s.failures.events == std::vector<FailureEvent>{kill_at_2s});
    CHECK(s.failures.stochastic.empty());
    CHECK(s.stop.time == 6.0);
  }
  SECTION("stateless-kill: the study's rule for pending gradients") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "stateless-kill.json").string());
    CHECK(s.recovery.strategy == "stateless");
    CHECK(s.recovery.get<StatelessConfig>() == StatelessConfig{StaleRule::PAPER, 50, 0.001, 0});
    CHECK(s.cluster.storage == StorageConfig{});
    CHECK(s.failures.events == std::vector<FailureEvent>{kill_at_2s});
  }
  SECTION("stateless-chain-kill: the chain's replicas and the stateless rule together") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "stateless-chain-kill.json").string());
    CHECK(s.recovery.strategy == "stateless_chain");
    CHECK(s.recovery.get<StatelessChainConfig>().chain.every_updates == 10);
    CHECK(s.recovery.get<StatelessChainConfig>().stateless ==
          StatelessConfig{StaleRule::PAPER, 50, 0.001, 0});
    CHECK(s.cluster.num_servers() == 3);
    CHECK(s.cluster.storage == StorageConfig{});
    CHECK(s.failures.events == std::vector<FailureEvent>{kill_at_2s});
  }
  SECTION("chain-kill: three replicas, state pushed every 10 updates") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "chain-kill.json").string());
    CHECK(s.recovery.strategy == "chain");
    CHECK(s.recovery.get<ChainConfig>().every_updates == 10);
    CHECK(s.cluster.num_servers() == 3);
    CHECK(s.failures.events == std::vector<FailureEvent>{kill_at_2s});
  }
  SECTION("worker-failures: a worker lost for good after an update, and random failures") {
    const Scenario s = load_scenario((EXAMPLES_DIR / "worker-failures.json").string());
    CHECK(s.recovery == RecoveryConfig{});
    CHECK(s.consistency.mode == ConsistencyMode::SYNC);
    CHECK(s.failures.detection_timeout == 0.2);
    CHECK(s.failures.restart_delay == 0.3);
    CHECK(s.failures.events ==
          std::vector<FailureEvent>{{FailureTarget::WORKER, 1, std::nullopt, 100, std::nullopt}});
    REQUIRE(s.failures.stochastic.size() == 1);
    CHECK(s.failures.stochastic[0] == StochasticFailures{FailureTarget::WORKER,
                                                         {DistributionKind::EXPONENTIAL, 3.0, 1.0},
                                                         {DistributionKind::FIXED, 0.5, 1.0}});
  }
}

TEST_CASE("the strategy table: every strategy has an example and writes exactly its sections",
          "[scenario]") {
  std::set<std::string_view> covered;
  for (const fs::path& f : example_files()) {
    INFO(f.string());
    const Scenario s = load_scenario(f.string());
    const RecoveryStrategy& strategy = s.recovery.kind();
    const json recovery = to_json(s)["recovery"];
    std::set<std::string> written;
    for (const auto& item : recovery.items()) {
      if (item.key() != "strategy") written.insert(item.key());
    }
    CHECK(written == std::set<std::string>(strategy.sections.begin(), strategy.sections.end()));
    covered.insert(strategy.name);
  }
  std::set<std::string_view> all;
  for (const RecoveryStrategy& strategy : recovery_strategies()) {
    INFO(strategy.name);
    all.insert(strategy.name);
    // A strategy with sections reads and writes them; one without has nothing to read.
    CHECK((strategy.read != nullptr) == !strategy.sections.empty());
    CHECK((strategy.write != nullptr) == !strategy.sections.empty());
  }
  CHECK(covered == all);
}

TEST_CASE("every optional field takes its documented default", "[scenario]") {
  const Scenario s = parse_scenario_text(MINIMAL, "dir/minimal.json");
  CHECK(s.name == "base");
  CHECK(s.description.empty());
  CHECK(s.seed == 1);
  CHECK(s.data.synthetic == SyntheticData{10, 32, 1000, 200, 3.0, 1.0});
  CHECK(s.optimizer == OptimizerConfig{OptimizerKind::SGD, 0.01, 0.0, 0.0, 32});
  CHECK(s.cluster.star.worker_speeds == std::vector<double>{1e9, 1e9});
  CHECK(s.cluster.star.servers == 1);
  CHECK(s.cluster.star.server_speed == 2e9);
  CHECK(s.cluster.star.bandwidth == 1.25e9);
  CHECK(s.cluster.star.latency == 50e-6);
  CHECK(s.consistency == ConsistencyConfig{ConsistencyMode::ASYNC, 0, GradientCombine::SUM});
  CHECK(s.timing == TimingConfig{});
  CHECK(s.evaluation == EvaluationConfig{1.0, 0, 0, true});
  CHECK(s.stop == StopConfig{10.0, std::nullopt, std::nullopt, std::nullopt});
  CHECK(s.output == OutputConfig{"results/base", true, true, false, std::nullopt});
  CHECK(s.failures == FailureConfig{5.0, 15.0, 1.0, {}, {}});
  CHECK(s.recovery.strategy == "none");
  CHECK(s.recovery == RecoveryConfig{});
  CHECK(s.cluster.storage == StorageConfig{"", 500e6, 200e6});

  SECTION("a failure event is a process crash unless down_for says otherwise") {
    json doc = json::parse(MINIMAL);
    doc["failures"] = json::parse(R"({"events": [{"target": "server", "at": "3s"}]})");
    const Scenario f = parse_scenario(doc, "m.json");
    CHECK_FALSE(f.failures.record_after_stop);
    CHECK(f.failures.events ==
          std::vector<FailureEvent>{{FailureTarget::SERVER, 0, 3.0, std::nullopt, 0.0}});
  }
  SECTION("checkpoint: every 100 updates, blocking, to a 500 MB/s read, 200 MB/s write disk") {
    json doc = json::parse(MINIMAL);
    doc["recovery"] = {{"strategy", "checkpoint"}};
    const Scenario c = parse_scenario(doc, "m.json");
    CHECK(c.recovery.get<CheckpointConfig>() == single_level(100, 0.0, true));
    CHECK(c.cluster.storage == StorageConfig{"", 500e6, 200e6});
  }
  SECTION("checkpoint: a written interval turns the other one off") {
    json doc = json::parse(MINIMAL);
    doc["recovery"] =
        json::parse(R"({"strategy": "checkpoint", "checkpoint": {"every_seconds": "30s"}})");
    CHECK(parse_scenario(doc, "m.json").recovery.get<CheckpointConfig>() ==
          single_level(0, 30.0, true));
    doc["recovery"]["checkpoint"] = {{"every_updates", 7}};
    CHECK(parse_scenario(doc, "m.json").recovery.get<CheckpointConfig>() ==
          single_level(7, 0.0, true));
  }
  SECTION("chain: state pushed every 100 updates") {
    json doc = json::parse(MINIMAL);
    doc["cluster"]["servers"]["count"] = 2;
    doc["recovery"] = {{"strategy", "chain"}};
    const Scenario c = parse_scenario(doc, "m.json");
    CHECK(c.recovery.get<ChainConfig>().every_updates == 100);
    CHECK(c.cluster.num_servers() == 2);
  }
  SECTION("stateless: the study's rule, 0.001 above 50 pending gradients") {
    json doc = json::parse(MINIMAL);
    doc["recovery"] = {{"strategy", "stateless"}};
    CHECK(parse_scenario(doc, "m.json").recovery.get<StatelessConfig>() ==
          StatelessConfig{StaleRule::PAPER, 50, 0.001, 0});
  }
  SECTION("sync combines by sum, as the study did") {
    json doc = json::parse(MINIMAL);
    doc["consistency"]["mode"] = "sync";
    CHECK(parse_scenario(doc, "m.json").consistency.combine == GradientCombine::SUM);
  }
  SECTION("fashion-mnist reads the Debian package's directory") {
    json doc = json::parse(MINIMAL);
    doc["data"] = {{"kind", "fashion-mnist"}};
    const Scenario f = parse_scenario(doc, "m.json");
    CHECK(f.data.dir == "/usr/share/datasets/fashion-mnist");
    CHECK(f.data.train_limit == 0);
    CHECK(f.data.test_limit == 0);
  }
  SECTION("a cnn drops out 25% by default") {
    json doc = json::parse(MINIMAL);
    doc["data"] = {{"kind", "fashion-mnist"}};
    doc["model"] = {{"kind", "cnn"}};
    CHECK(parse_scenario(doc, "m.json").model.dropout == 0.25);
  }
}

TEST_CASE("an AdamW optimizer takes its documented defaults and round-trips", "[scenario]") {
  json doc = json::parse(MINIMAL);
  doc["optimizer"] = {{"kind", "adamw"}};
  const Scenario s = parse_scenario(doc, "adamw.json");
  OptimizerConfig expected;
  expected.kind = OptimizerKind::ADAMW;
  expected.learning_rate = 6e-4;
  expected.weight_decay = 0.1;  // beta1 0.9, beta2 0.95, eps 1e-8, no warm-up or decay,
                                // min_lr_ratio 0.1, clip_norm 1, batch 32: the struct's
  CHECK(s.optimizer == expected);
  const json resolved = to_json(s);
  CHECK(resolved["optimizer"] == json::parse(R"({"kind": "adamw", "learning_rate": 0.0006,
      "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1, "warmup_steps": 0,
      "decay_steps": 0, "min_lr_ratio": 0.1, "clip_norm": 1.0, "batch_size": 32})"));
  CHECK(parse_scenario(resolved, "adamw.json") == s);
  doc["optimizer"] = {{"kind", "adamw"},
                      {"warmup_steps", 10},
                      {"decay_steps", 100},
                      {"beta2", 0.999},
                      {"clip_norm", 0}};
  const Scenario set = parse_scenario(doc, "adamw.json");
  CHECK(set.optimizer.warmup_steps == 10);
  CHECK(set.optimizer.decay_steps == 100);
  CHECK(set.optimizer.beta2 == 0.999);
  CHECK(set.optimizer.clip_norm == 0.0);
  CHECK(parse_scenario(to_json(set), "adamw.json") == set);
}

TEST_CASE("to_json writes every field, resolved, and parses back to an equal scenario",
          "[scenario]") {
  for (const fs::path& f : example_files()) {
    INFO(f.string());
    const Scenario s = load_scenario(f.string());
    const json resolved = to_json(s);
    CHECK(parse_scenario(resolved, f.string()) == s);
    // Through text, and from elsewhere: resolved paths are absolute, so the label's directory
    // no longer matters.
    const Scenario again = parse_scenario_text(resolved.dump(2), "/elsewhere/resolved.json");
    CHECK(again == s);
    CHECK(to_json(again) == resolved);
  }

  const json minimal = to_json(parse_scenario_text(MINIMAL, "minimal.json"));
  CHECK(minimal["seed"] == 1);
  CHECK(minimal["description"] == "");
  CHECK(minimal["optimizer"] == json::parse(R"({"learning_rate": 0.01, "momentum": 0.0,
                                                "weight_decay": 0.0, "batch_size": 32})"));
  CHECK(minimal["cluster"] == json::parse(R"({
      "workers": {"count": 2, "speed": 1e9},
      "servers": {"count": 1, "speed": 2e9},
      "network": {"bandwidth": 1.25e9, "latency": 5e-5}})"));
  CHECK(minimal["data"] == json::parse(R"({"kind": "synthetic", "num_classes": 10, "dim": 32,
      "train_size": 1000, "test_size": 200, "separation": 3.0, "noise_sigma": 1.0})"));
  CHECK(minimal["timing"] == json::parse(R"({"flops_per_sample": null, "param_bytes": null,
      "server_evaluation": null})"));
  CHECK(minimal["evaluation"] == json::parse(R"({"interval": 1.0, "every_updates": 0,
      "test_subset": 0, "final_full_test": true})"));
  CHECK(
      minimal["stop"] ==
      json::parse(R"({"time": 10.0, "updates": null, "target_accuracy": null, "version": null})"));
  CHECK(minimal["output"] ==
        json::parse(R"({"directory": "results/base", "timeseries": true, "events": true})"));
  CHECK(minimal["failures"] == json::parse(R"({"detection_timeout": 5.0, "restart_delay": 15.0,
      "request_timeout": 1.0, "events": [], "stochastic": [], "after_stop": "refuse"})"));
  CHECK(minimal["recovery"] == json::parse(R"({"strategy": "none"})"));
  CHECK_FALSE(minimal["cluster"].contains("storage"));
}

TEST_CASE("failures and recovery: every form resolves, is written back and round-trips",
          "[scenario]") {
  const auto round_trip = [](const json& patch) {
    json doc = json::parse(MINIMAL);
    doc.merge_patch(patch);
    const Scenario s = parse_scenario(doc, "rt.json");
    const json resolved = to_json(s);
    const Scenario again = parse_scenario_text(resolved.dump(2), "/elsewhere/rt.json");
    CHECK(again == s);
    CHECK(to_json(again) == resolved);
    return std::pair{s, resolved};
  };

  SECTION("chain: replica, server and worker events, Weibull, exponential and fixed laws") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "cluster": {"servers": {"count": 3}},
      "recovery": {"strategy": "chain", "chain": {"every_updates": 1}},
      "failures": {
        "detection_timeout": "2s", "restart_delay": 0, "request_timeout": "250ms",
        "events": [
          {"target": "replica", "index": 2, "at_update": 7, "down_for": "forever"},
          {"target": "server", "at": "1.5s", "down_for": "20s"},
          {"target": "worker", "index": 1, "at": 0}
        ],
        "stochastic": [
          {"target": "server", "lifetime": {"distribution": "weibull", "shape": 0.7, "scale": "2h"},
           "repair": {"distribution": "exponential", "mean": "10min"}},
          {"target": "worker", "lifetime": {"distribution": "fixed", "value": "1min"},
           "repair": {"distribution": "fixed", "value": 0}}
        ]
      }})"));
    CHECK(s.recovery.get<ChainConfig>().every_updates == 1);
    CHECK(s.failures.detection_timeout == 2.0);
    CHECK(s.failures.restart_delay == 0.0);
    CHECK(s.failures.request_timeout == 0.25);
    CHECK(s.failures.events ==
          std::vector<FailureEvent>{{FailureTarget::REPLICA, 2, std::nullopt, 7, std::nullopt},
                                    {FailureTarget::SERVER, 0, 1.5, std::nullopt, 20.0},
                                    {FailureTarget::WORKER, 1, 0.0, std::nullopt, 0.0}});
    CHECK(s.failures.stochastic ==
          std::vector<StochasticFailures>{{FailureTarget::SERVER,
                                           {DistributionKind::WEIBULL, 7200.0, 0.7},
                                           {DistributionKind::EXPONENTIAL, 600.0, 1.0}},
                                          {FailureTarget::WORKER,
                                           {DistributionKind::FIXED, 60.0, 1.0},
                                           {DistributionKind::FIXED, 0.0, 1.0}}});
    // "forever" is written as such (null is not a duration), and only the time that is set.
    CHECK(resolved["failures"]["events"] == json::parse(R"([
        {"target": "replica", "index": 2, "at_update": 7, "down_for": "forever"},
        {"target": "server", "at": 1.5, "down_for": 20.0},
        {"target": "worker", "index": 1, "at": 0.0, "down_for": 0.0}])"));
    CHECK(resolved["failures"]["stochastic"][0] == json::parse(R"({"target": "server",
        "lifetime": {"distribution": "weibull", "shape": 0.7, "scale": 7200.0},
        "repair": {"distribution": "exponential", "mean": 600.0}})"));
    CHECK(resolved["recovery"] == json::parse(R"({"strategy": "chain",
                                                  "chain": {"every_updates": 1}})"));
    CHECK_FALSE(resolved["cluster"].contains("storage"));
  }
  SECTION("stateless, drop_stale: the server fails for good, the storage disk is set") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "cluster": {"storage": {"disk_read": "1GBps", "disk_write": "800Mbps"}},
      "recovery": {"strategy": "stateless", "stateless": {"rule": "drop_stale", "drop_bound": 3}},
      "failures": {
        "events": [{"target": "server", "at": "2s", "down_for": "forever"}],
        "stochastic": [{"target": "worker",
                        "lifetime": {"distribution": "exponential", "mean": "1h"},
                        "repair": {"distribution": "fixed", "value": "5min"}}]
      }})"));
    CHECK(s.cluster.storage == StorageConfig{"", 1e9, 1e8});
    CHECK(s.recovery.get<StatelessConfig>() ==
          StatelessConfig{StaleRule::DROP_STALE, 50, 0.001, 3});
    CHECK(s.failures.events ==
          std::vector<FailureEvent>{{FailureTarget::SERVER, 0, 2.0, std::nullopt, std::nullopt}});
    CHECK(resolved["cluster"]["storage"] ==
          json::parse(R"({"disk_read": 1e9, "disk_write": 1e8})"));
    CHECK(resolved["recovery"] == json::parse(R"({"strategy": "stateless",
        "stateless": {"rule": "drop_stale", "drop_bound": 3}})"));
  }
  SECTION("stateless_chain: the chain's and the store's settings, both written back") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "cluster": {"servers": {"count": 2}},
      "recovery": {"strategy": "stateless_chain", "chain": {"every_updates": 5},
                   "stateless": {"rule": "mean"}}})"));
    CHECK(s.recovery.get<StatelessChainConfig>().chain.every_updates == 5);
    CHECK(s.recovery.get<StatelessChainConfig>().stateless.rule == StaleRule::MEAN);
    CHECK(resolved["recovery"] == json::parse(R"({"strategy": "stateless_chain",
        "chain": {"every_updates": 5}, "stateless": {"rule": "mean"}})"));
    CHECK(resolved["cluster"]["storage"] ==
          json::parse(R"({"disk_read": 500e6, "disk_write": 200e6})"));
  }
  SECTION("stateless, inverse staleness: no rule parameters") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "recovery": {"strategy": "stateless", "stateless": {"rule": "inverse_staleness"}}})"));
    CHECK(s.recovery.get<StatelessConfig>().rule == StaleRule::INVERSE_STALENESS);
    CHECK(resolved["recovery"]["stateless"] == json::parse(R"({"rule": "inverse_staleness"})"));
  }
  SECTION("stateless, paper: its threshold and low learning rate") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "recovery": {"strategy": "stateless",
                   "stateless": {"rule": "paper", "paper_threshold": 0, "paper_low_lr": 1e-4}}})"));
    CHECK(s.recovery.get<StatelessConfig>() == StatelessConfig{StaleRule::PAPER, 0, 1e-4, 0});
    CHECK(resolved["recovery"]["stateless"] ==
          json::parse(R"({"rule": "paper", "paper_threshold": 0, "paper_low_lr": 1e-4})"));
  }
  SECTION("checkpoint on time only, in the background") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "recovery": {"strategy": "checkpoint",
                   "checkpoint": {"every_seconds": "30s", "blocking": false}},
      "failures": {"events": [{"target": "server", "at_update": 25, "down_for": 0}]}})"));
    CHECK(s.recovery.get<CheckpointConfig>() == single_level(0, 30.0, false));
    CHECK(resolved["recovery"]["checkpoint"] ==
          json::parse(R"({"every_updates": 0, "every_seconds": 30.0, "blocking": false})"));
    CHECK(resolved["cluster"]["storage"] ==
          json::parse(R"({"disk_read": 5e8, "disk_write": 2e8})"));
  }
  SECTION("multi-level checkpoints: levels in their order, local-disk bandwidths, a spare host") {
    const auto [s, resolved] = round_trip(json::parse(R"({
      "cluster": {"servers": {"count": 2}},
      "recovery": {"strategy": "checkpoint",
                   "checkpoint": {"levels": [
                     {"kind": "remote", "every_seconds": "1min"},
                     {"kind": "memory", "every_updates": 5},
                     {"kind": "local-disk", "every_updates": 50, "disk_write": "500MBps"}]}}})"));
    const CheckpointConfig& c = s.recovery.get<CheckpointConfig>();
    REQUIRE(c.levels.size() == 3);
    CHECK(c.levels[0] ==
          CheckpointLevel{.kind = CheckpointLevelKind::REMOTE, .every_seconds = 60.0});
    CHECK(c.levels[1] == CheckpointLevel{.kind = CheckpointLevelKind::MEMORY, .every_updates = 5});
    CHECK(c.levels[2] == CheckpointLevel{.kind = CheckpointLevelKind::LOCAL_DISK,
                                         .every_updates = 50,
                                         .disk_write = 5e8});
    CHECK(c.memory_bandwidth == 10e9);
    CHECK(c.every_updates == 100);  // the single-level fields keep their defaults, unused
    CHECK(s.cluster.num_servers() == 2);
    CHECK(resolved["recovery"]["checkpoint"] == json::parse(R"({
      "levels": [{"kind": "remote", "every_updates": 0, "every_seconds": 60.0},
                 {"kind": "memory", "every_updates": 5, "every_seconds": 0.0},
                 {"kind": "local-disk", "every_updates": 50, "every_seconds": 0.0,
                  "disk_read": 2e9, "disk_write": 5e8}],
      "memory_bandwidth": 1e10})"));
  }
}

TEST_CASE("paths in a scenario resolve against the scenario file's directory", "[scenario]") {
  TempDir tmp;
  fs::create_directories(tmp.file("data/fm"));
  fs::create_directories(tmp.file("platforms"));
  fs::copy_file(EXAMPLES_DIR / "lab-platform.xml", tmp.file("platforms/lab.xml"));
  write_text(tmp.file("sub/run.json"), R"({
    "name": "paths",
    "data": { "kind": "fashion-mnist", "dir": "../data/fm" },
    "model": { "kind": "softmax" },
    "cluster": {
      "platform": "../platforms/lab.xml",
      "servers": { "hosts": ["ps"] },
      "workers": { "hosts": ["fast-1", "fast-1"] }
    },
    "consistency": { "mode": "async" },
    "stop": { "updates": 10 }
  })");
  const fs::path scenario_file = tmp.file("sub/run.json");
  for (const fs::path& label : {scenario_file, fs::relative(scenario_file)}) {
    INFO(label.string());
    const Scenario s = load_scenario(label.string());
    CHECK(s.data.dir == absolute_normal(tmp.file("data/fm")));
    CHECK(s.cluster.platform.file == absolute_normal(tmp.file("platforms/lab.xml")));
    CHECK(s.cluster.platform.worker_hosts == std::vector<std::string>{"fast-1", "fast-1"});
  }
}

TEST_CASE("files that cannot be read or are not JSON are errors with a position", "[scenario]") {
  TempDir tmp;
  const std::string missing = tmp.file("missing.json");
  CHECK(std::string(error_of([&] { load_scenario(missing); }).what()) ==
        missing + ": expected a readable scenario file, found no such file");
  CHECK(std::string(error_of([&] { load_scenario(tmp.path()); }).what()) ==
        tmp.path() + ": expected a readable scenario file, found a directory");

  const fs::path broken = tmp.file("broken.json");
  write_text(broken, "{\n  \"name\": \"x\",\n  \"seed\": 1,\n}\n");
  const failsim::input::InputError e = error_of([&] { load_scenario(broken.string()); });
  CHECK(e.file() == broken.string());
  CHECK(e.line() == 4);
  CHECK(e.column() == 1);
  CHECK(e.json_path().empty());
  CHECK(std::string(e.what()) ==
        broken.string() +
            ":4:1: expected valid JSON, found syntax error while parsing object key - unexpected "
            "'}'; expected string literal");
}

TEST_CASE("Megatron-LM's batch and step names convert to failsim's, by hand", "[scenario]") {
  // The collective base: dp 16, sequences of 2048 tokens, 65536 tokens = 32 sequences a step.
  const auto parsed = [](const char* patch) {
    json doc = json::parse(failsim::testing::MINIMAL_COLLECTIVE);
    doc.merge_patch(json::parse(patch));
    return parse_scenario(doc, "megatron.json");
  };
  // global_batch_size 64 sequences x 2048 = 131072 tokens; 64 = micro_batch_size 2 x m x dp 16:
  // m = 2. train_iters 300 is version 300.
  const Scenario s = parsed(R"({"layout": {"micro_batch_size": 2},
      "workload": {"transformer": {"global_batch_tokens": null, "global_batch_size": 64}},
      "stop": {"train_iters": 300}})");
  CHECK(s.collective.workload.transformer->global_batch_tokens == 131072.0);
  CHECK(s.collective.layout.micro_batches == 2);
  CHECK(s.stop.version == 300);
  // The base's 32 sequences with micro_batch_size 1: 32 / (1 x 16) = 2 micro-batches.
  CHECK(parsed(R"({"layout": {"micro_batch_size": 1}})").collective.layout.micro_batches == 2);
  // Both names alike are accepted: 1 x 2 x 16 = 32; 32 x 2048 = 65536 tokens; version 7 = 7.
  const Scenario both = parsed(R"({"layout": {"micro_batch_size": 1, "micro_batches": 2},
                 "workload": {"transformer": {"global_batch_tokens": 65536,
                                              "global_batch_size": 32}},
                 "stop": {"version": 7, "train_iters": 7}})");
  CHECK(both.collective.layout.micro_batches == 2);
  CHECK(both.collective.workload.transformer->global_batch_tokens == 65536.0);
  CHECK(both.stop.version == 7);
  // The resolved scenario says it in failsim's names only.
  const json out = to_json(s);
  CHECK_FALSE(out["layout"].contains("micro_batch_size"));
  CHECK(out["layout"]["micro_batches"] == 2);
  CHECK_FALSE(out["stop"].contains("train_iters"));
}

TEST_CASE("the catalogue of bad scenarios: each gets one clear message", "[scenario]") {
  std::set<std::string> texts;
  int resolved_later = 0;
  for (const BadScenario& c : catalogue()) {
    INFO(c.what);
    const std::string text = scenario_text(c, SOURCE_DIR.string());
    CHECK(texts.insert(text).second);  // every case is a different scenario
    if (c.stage == Stage::RESOLVE) {
      // The resolve step refuses it (tests/test_resolve.cpp): as a file, it is valid.
      CHECK_NOTHROW(parse_scenario_text(text, "bad.json"));
      ++resolved_later;
      continue;
    }
    const InputError e = error_of([&] { parse_scenario_text(text, "bad.json"); });
    CHECK(e.file() == expand(c.file, SOURCE_DIR.string()));
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
  }
  CHECK(catalogue().size() >= 160);
  CHECK(resolved_later >= 15);
}

namespace {

/// A scenario format as the schema tests see it: its JSON Schema, the examples that must cover
/// it, and what the tests expect to find in them.
struct Format {
  const char* name;
  fs::path schema_file;
  std::vector<fs::path> examples_dirs;
  std::size_t min_objects;              ///< objects of the schema at least
  std::set<std::string> enum_pointers;  ///< the enums the examples hold, where they hold them
};

const std::vector<Format>& formats() {
  static const std::vector<Format> all{
      {"parameter-server",
       SCHEMA_FILE,
       {EXAMPLES_DIR},
       23,
       {"/data/kind", "/model/kind", "/optimizer/kind", "/consistency/mode", "/consistency/combine",
        "/failures/events/0/target", "/failures/events/1/target", "/failures/events/2/target",
        "/failures/stochastic/0/target", "/failures/stochastic/0/lifetime/distribution",
        "/failures/stochastic/0/repair/distribution", "/recovery/strategy",
        "/recovery/stateless/rule", "/recovery/checkpoint/levels/0/kind",
        "/recovery/checkpoint/levels/1/kind", "/recovery/checkpoint/levels/2/kind"}},
      {"collective",
       COLLECTIVE_SCHEMA_FILE,
       {CLUSTER_DIR, CLUSTER_DIR / "operations"},
       24,
       {"/data/kind",
        "/model/kind",
        "/platform/topology/kind",
        "/layout/dp_algorithm",
        "/workload/math",
        "/workload/recompute",
        "/failures/detection/kind",
        "/failures/events/0/target",
        "/failures/events/1/target",
        "/failures/events/2/target",
        "/failures/stochastic/0/target",
        "/failures/stochastic/0/lifetime/distribution",
        "/failures/stochastic/0/repair/distribution",
        "/failures/stochastic/1/target",
        "/failures/stochastic/1/lifetime/distribution",
        "/failures/stochastic/1/repair/distribution",
        "/failures/stochastic/1/heterogeneity/spread/distribution",
        "/failures/stragglers/0/target",
        "/failures/stragglers/1/target",
        "/failures/stochastic_stragglers/0/target",
        "/failures/stochastic_stragglers/0/every/distribution",
        "/failures/stochastic_stragglers/0/duration/distribution",
        "/failures/after_stop",
        "/failures/trace/mapping",
        "/failures/trace/extra_nodes",
        "/failures/trace/format",
        "/failures/rates/repair/distribution",
        "/recovery/strategy",
        "/recovery/checkpoint/mode",
        "/recovery/in_memory/placement",
        "/recovery/universal/batch",
        "/recovery/universal/grow",
        "/recovery/quorum/detection"}},
  };
  return all;
}

/// A node of a schema and the file it lies in: "#/..." in it refers to that file.
struct SchemaNode {
  std::string file;
  const json* node;
};

/// The schema files of one folder, each loaded when a $ref first reaches it: "#/pointer" refers
/// to the node's own file, "other.json#/pointer" to a file of the same folder (as
/// collective.schema.json refers to schema.json for the shared sections and units).
class SchemaSet {
 public:
  explicit SchemaSet(const fs::path& root_file)
      : dir_(root_file.parent_path()), root_name_(root_file.filename().string()) {}

  SchemaNode root() const { return {root_name_, &document(root_name_)}; }

  /// `n` with its $refs followed, through files.
  SchemaNode resolve(SchemaNode n) const {
    while (n.node->contains("$ref")) {
      const std::string ref = (*n.node)["$ref"].get<std::string>();
      const std::size_t hash = ref.find('#');
      REQUIRE(hash != std::string::npos);
      if (hash > 0) n.file = ref.substr(0, hash);
      n.node = &document(n.file).at(json::json_pointer(ref.substr(hash + 1)));
    }
    return n;
  }

  /// The object branch of `n` (resolved) when it is an alternative (anyOf/oneOf) of an object
  /// and other things, as a node written out or a preset's name; else `n` resolved.
  SchemaNode object_of(SchemaNode n) const {
    n = resolve(n);
    for (const char* alternatives : {"anyOf", "oneOf"}) {
      if (n.node->contains("properties") || !n.node->contains(alternatives)) continue;
      for (const json& branch : (*n.node)[alternatives]) {
        const SchemaNode b = resolve({n.file, &branch});
        if (is_object(b)) return b;
      }
    }
    return n;
  }

  /// A schema node that describes an object with properties (not a partial one, such as an
  /// alternative's "properties": {"kind": {"const": ...}}).
  static bool is_object(const SchemaNode& n) {
    return n.node->contains("properties") && n.node->value("type", "") == "object";
  }

 private:
  const json& document(const std::string& name) const {
    auto it = files_.find(name);
    if (it == files_.end()) it = files_.emplace(name, read_json(dir_ / name)).first;
    return it->second;
  }

  fs::path dir_;
  std::string root_name_;
  mutable std::map<std::string, json> files_;  // std::map: nodes never move once loaded
};

/// An object of an example and the schema node describing it.
struct ObjectNode {
  std::string pointer;
  SchemaNode schema;
  const json* value;
};

/// Walks `value` and the schema together; every key of every object must be a property of its
/// schema node. Collects the objects (with their schema nodes) visited.
void walk(const SchemaSet& schemas, SchemaNode schema_node, const json& value,
          const std::string& pointer, std::vector<ObjectNode>& out) {
  const SchemaNode s =
      value.is_object() ? schemas.object_of(schema_node) : schemas.resolve(schema_node);
  const json& node = *s.node;
  if (value.is_object() && node.contains("properties")) {
    out.push_back({pointer, s, &value});
    for (const auto& item : value.items()) {
      INFO(pointer + "/" + item.key());
      REQUIRE(node["properties"].contains(item.key()));
      walk(schemas, {s.file, &node["properties"][item.key()]}, item.value(),
           pointer + "/" + item.key(), out);
    }
  } else if (value.is_array() && node.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      walk(schemas, {s.file, &node["items"]}, value[i], pointer + "/" + std::to_string(i), out);
    }
  }
}

/// Every schema node describing an object (reached through properties, items, and the object
/// alternatives of anyOf and oneOf).
void schema_objects(const SchemaSet& schemas, SchemaNode n, std::set<const json*>& out) {
  const SchemaNode s = schemas.object_of(n);
  const json& node = *s.node;
  if (node.contains("properties")) {
    if (!out.insert(&node).second) return;
    for (const auto& item : node["properties"].items())
      schema_objects(schemas, {s.file, &item.value()}, out);
  }
  if (node.contains("items")) schema_objects(schemas, {s.file, &node["items"]}, out);
}

std::set<std::string> property_names(const json& schema_node) {
  std::set<std::string> names;
  for (const auto& item : schema_node["properties"].items()) names.insert(item.key());
  return names;
}

/// The words of a comma-separated list, unquoted: `a, b` and `"a", "b"` give {a, b}.
std::set<std::string> split_list(const std::string& list) {
  std::set<std::string> words;
  std::stringstream in(list);
  for (std::string word; std::getline(in, word, ',');) {
    word.erase(std::remove(word.begin(), word.end(), '"'), word.end());
    word.erase(0, word.find_first_not_of(' '));
    words.insert(word);
  }
  return words;
}

/// The keys listed by an unknown-key error: `a known key (a, b, c)`.
std::set<std::string> known_keys(const std::string& expected) {
  const std::size_t from = expected.find('(');
  const std::size_t to = expected.rfind(')');
  if (from == std::string::npos || to == std::string::npos || to <= from) return {};
  return split_list(expected.substr(from + 1, to - from - 1));
}

/// The spellings listed by a wrong-choice error: `one of "a", "b"`.
std::set<std::string> choices(const std::string& expected) {
  const std::string prefix = "one of ";
  if (expected.rfind(prefix, 0) != 0) return {};
  return split_list(expected.substr(prefix.size()));
}

/// Each example of `format` with the objects the walk found in it.
struct WalkedExample {
  fs::path file;
  json value;
  std::vector<ObjectNode> objects;
};

std::vector<WalkedExample> walked_examples(const SchemaSet& schemas, const Format& format) {
  std::vector<WalkedExample> out;
  for (const fs::path& dir : format.examples_dirs) {
    for (const fs::path& f : json_files(dir)) out.push_back({f, read_json(f), {}});
  }
  // Walked once every example is in place: an ObjectNode points into its example's value, and
  // the root's is the value itself, which a growing vector would move.
  for (WalkedExample& w : out) {
    INFO(w.file.string());
    walk(schemas, schemas.root(), w.value, "", w.objects);
  }
  return out;
}

}  // namespace

TEST_CASE("the schema knows every key of every example, and the examples cover the schema",
          "[scenario][schema]") {
  for (const Format& format : formats()) {
    INFO(format.name);
    const SchemaSet schemas(format.schema_file);
    std::set<const json*> covered;
    for (const WalkedExample& w : walked_examples(schemas, format)) {
      for (const ObjectNode& n : w.objects) covered.insert(n.schema.node);
    }
    std::set<const json*> all;
    schema_objects(schemas, schemas.root(), all);
    CHECK(all.size() >= format.min_objects);
    for (const json* node : all) {
      INFO("no example holds the object of properties " << json(property_names(*node)).dump());
      CHECK(covered.count(node) == 1);
    }
  }
}

TEST_CASE("the schema has an $id that is a name, and docs say how an editor finds it",
          "[scenario][schema]") {
  // A urn: the project owns no web address to serve the schema from, and a file URI would be
  // one checkout's path (docs/scenario-format.md).
  const json schema = read_json(SCHEMA_FILE);
  REQUIRE(schema.contains("$id"));
  CHECK(schema.at("$id").get<std::string>() == "urn:failsim:scenario");
  const std::string docs = file_text(DOCS_FILE);
  CHECK(docs.find("`urn:failsim:scenario`") != std::string::npos);
  CHECK(docs.find("\"json.schemas\"") != std::string::npos);

  // A scenario outside the repository pointing at the schema by an absolute file URI, as the
  // docs show: failsim ignores "$schema" whatever it says.
  TempDir dir;
  json doc = read_json(EXAMPLES_DIR / "quickstart.json");
  doc["$schema"] = "file://" + fs::canonical(SCHEMA_FILE).string();
  const std::string file = dir.file("study/my-run.json");
  fs::create_directories(dir.file("study"));
  std::ofstream(file) << doc.dump(2);
  CHECK(load_scenario(file).name == "quickstart");
}

TEST_CASE("the parser knows exactly the schema's keys at every object", "[scenario][schema]") {
  // A key the parser does not know is an error that lists the keys it knows: compare them with
  // the schema's properties at every object of every example.
  for (const Format& format : formats()) {
    const SchemaSet schemas(format.schema_file);
    for (const WalkedExample& w : walked_examples(schemas, format)) {
      for (const ObjectNode& n : w.objects) {
        INFO(w.file.string() + " at '" + n.pointer + "'");
        json doc = w.value;
        doc[json::json_pointer(n.pointer)]["zz_not_a_key"] = 1;
        const InputError e = error_of([&] { parse_scenario(doc, w.file.string()); });
        CHECK(e.json_path() == n.pointer + "/zz_not_a_key");
        CHECK(known_keys(e.expected()) == property_names(*n.schema.node));
      }
    }
  }
}

TEST_CASE("the schema's required keys are required by the parser", "[scenario][schema]") {
  for (const Format& format : formats()) {
    const SchemaSet schemas(format.schema_file);
    int checked = 0;
    for (const WalkedExample& w : walked_examples(schemas, format)) {
      for (const ObjectNode& n : w.objects) {
        if (!n.schema.node->contains("required")) continue;
        for (const json& key : (*n.schema.node)["required"]) {
          const std::string k = key.get<std::string>();
          INFO(w.file.string() + " without '" + n.pointer + "/" + k + "'");
          json doc = w.value;
          REQUIRE(doc[json::json_pointer(n.pointer)].erase(k) == 1);
          const InputError e = error_of([&] { parse_scenario(doc, w.file.string()); });
          CHECK(e.json_path() == n.pointer + "/" + k);
          CHECK_THAT(e.what(), Catch::EndsWith("(required), found nothing"));
          ++checked;
        }
      }
    }
    INFO(format.name);
    CHECK(checked >= 10);
  }
}

TEST_CASE("the parser accepts exactly the schema's enum spellings", "[scenario][schema]") {
  for (const Format& format : formats()) {
    INFO(format.name);
    const SchemaSet schemas(format.schema_file);
    std::set<std::string> checked;
    for (const WalkedExample& w : walked_examples(schemas, format)) {
      for (const ObjectNode& n : w.objects) {
        for (const auto& item : n.value->items()) {
          const json& property =
              *schemas.resolve({n.schema.file, &(*n.schema.node)["properties"][item.key()]}).node;
          if (!property.contains("enum")) continue;
          const std::string pointer = n.pointer + "/" + item.key();
          INFO(w.file.string() + " at '" + pointer + "'");
          std::set<std::string> spellings;
          for (const json& v : property["enum"]) {
            spellings.insert(v.get<std::string>());
            json doc = w.value;
            doc[json::json_pointer(pointer)] = v;
            // A schema spelling may still fail a check between sections, never as a spelling.
            try {
              parse_scenario(doc, w.file.string());
            } catch (const InputError& e) {
              CHECK_FALSE((e.json_path() == pointer && e.expected().rfind("one of", 0) == 0));
            }
          }
          json doc = w.value;
          doc[json::json_pointer(pointer)] = "zz-not-a-choice";
          const InputError e = error_of([&] { parse_scenario(doc, w.file.string()); });
          CHECK(e.json_path() == pointer);
          CHECK(choices(e.expected()) == spellings);
          checked.insert(pointer);
        }
      }
    }
    CHECK(checked == format.enum_pointers);
  }
}

TEST_CASE("every node preset parses and is a node of the collective schema, key for key",
          "[scenario][schema]") {
  const SchemaSet schemas(COLLECTIVE_SCHEMA_FILE);
  const SchemaNode node =
      schemas.resolve({"collective.schema.json", &(*schemas.root().node)["$defs"]["node"]});
  const std::vector<fs::path> presets = json_files(CLUSTER_DIR / "nodes");
  CHECK(presets.size() >= 2);
  for (const fs::path& f : presets) {
    INFO(f.string());
    // Named by a scenario, the preset parses cleanly.
    json by_name = read_json(CLUSTER_DIR / "dp64-7b.json");
    by_name["platform"]["node"] = f.stem().string();
    CHECK(parse_scenario(by_name, (CLUSTER_DIR / "dp64-7b.json").string())
              .collective.platform.node.preset == f.stem().string());
    std::vector<ObjectNode> objects;
    walk(schemas, node, read_json(f), "", objects);
    REQUIRE(objects.size() == 1);
    // A preset's own unknown key is refused, listing the node's keys: the schema's.
    TempDir tmp;
    json preset = read_json(f);
    preset["zz_not_a_key"] = 1;
    write_text(tmp.file("node.json"), preset.dump(2));
    json scenario = read_json(CLUSTER_DIR / "dp64-7b.json");
    scenario["platform"]["node"] = tmp.file("node.json");
    const InputError e = error_of([&] { parse_scenario(scenario, "s.json"); });
    CHECK(e.file() == tmp.file("node.json"));
    CHECK(e.json_path() == "/zz_not_a_key");
    CHECK(known_keys(e.expected()) == property_names(*node.node));
  }
}

TEST_CASE("the docs page shows a real example and names every field", "[scenario][docs]") {
  const std::string docs = file_text(DOCS_FILE);
  // The page is built around this file: the text must be the file's, verbatim.
  CHECK_THAT(docs, Catch::Contains(file_text(EXAMPLES_DIR / "cnn-4-async.json")));
  const SchemaSet schemas(SCHEMA_FILE);
  std::set<const json*> objects;
  schema_objects(schemas, schemas.root(), objects);
  for (const json* node : objects) {
    for (const std::string& name : property_names(*node)) {
      INFO(name);
      CHECK_THAT(docs, Catch::Contains("`" + name + "`"));
    }
  }
}
