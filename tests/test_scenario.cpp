// The scenario format: the shipped examples parse to what they say, defaults and paths resolve,
// to_json() round-trips, a catalogue of bad scenarios each gets its exact message, and the
// parser, scenarios/schema.json and docs/scenario-format.md are checked against each other so
// none of them can drift silently.
#include <catch2/catch.hpp>

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

#include "sim/scenario/recovery/chain.hpp"
#include "sim/scenario/recovery/checkpoint.hpp"
#include "sim/scenario/recovery/stateless.hpp"
#include "sim/scenario/recovery/stateless_chain.hpp"
#include "sim/scenario/scenario.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace failsim::sim;
using namespace failsim::input;
using failsim::models::StaleRule;

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
const fs::path DOCS_FILE = SOURCE_DIR / "docs" / "scenario-format.md";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json read_json(const fs::path& path) { return json::parse(read_text(path)); }

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<fs::path> example_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(EXAMPLES_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

using failsim::testing::error_of;
using failsim::testing::TempDir;

std::string absolute_normal(const fs::path& p) {
  return fs::absolute(p).lexically_normal().string();
}

/// The smallest valid scenario; the catalogue below breaks it one way at a time.
const char* const MINIMAL = R"({
  "name": "base",
  "data": { "kind": "synthetic", "train_size": 1000, "test_size": 200 },
  "model": { "kind": "softmax" },
  "cluster": {
    "workers": { "count": 2, "speed": "1Gf" },
    "servers": { "speed": "2Gf" }
  },
  "consistency": { "mode": "async" },
  "stop": { "time": "10s" }
})";

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
  CHECK(s.optimizer == OptimizerConfig{0.01, 0.0, 0.0, 32});
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
  CHECK(s.optimizer == OptimizerConfig{0.01, 0.0, 0.0, 32});
  CHECK(s.cluster.star.worker_speeds == std::vector<double>{1e9, 1e9});
  CHECK(s.cluster.star.servers == 1);
  CHECK(s.cluster.star.server_speed == 2e9);
  CHECK(s.cluster.star.bandwidth == 1.25e9);
  CHECK(s.cluster.star.latency == 50e-6);
  CHECK(s.consistency == ConsistencyConfig{ConsistencyMode::ASYNC, 0, GradientCombine::SUM});
  CHECK(s.timing == TimingConfig{});
  CHECK(s.evaluation == EvaluationConfig{1.0, 0, 0, true});
  CHECK(s.stop == StopConfig{10.0, std::nullopt, std::nullopt, std::nullopt});
  CHECK(s.output == OutputConfig{"results/base", true, true});
  CHECK(s.failures == FailureConfig{5.0, 15.0, 1.0, {}, {}});
  CHECK(s.recovery.strategy == "none");
  CHECK(s.recovery == RecoveryConfig{});
  CHECK(s.cluster.storage == StorageConfig{"", 500e6, 200e6});

  SECTION("a failure event is a process crash unless down_for says otherwise") {
    json doc = json::parse(MINIMAL);
    doc["failures"] = json::parse(R"({"events": [{"target": "server", "at": "30s"}]})");
    const Scenario f = parse_scenario(doc, "m.json");
    CHECK(f.failures.events ==
          std::vector<FailureEvent>{{FailureTarget::SERVER, 0, 30.0, std::nullopt, 0.0}});
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
      "request_timeout": 1.0, "events": [], "stochastic": []})"));
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

namespace {

/// One bad scenario: MINIMAL with `input` merged in as a JSON merge patch (RFC 7386: null
/// deletes a key), or, when `whole_text`, `input` is the entire file. "@EXAMPLES@" in the
/// input stands for the examples directory.
struct BadScenario {
  const char* what;
  const char* input;
  const char* json_path;
  std::vector<std::string> message_parts;
  bool whole_text = false;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

const std::vector<BadScenario>& catalogue() {
  static const std::vector<BadScenario> cases{
      // Keys.
      {"misspelt top-level key",
       R"({"sead": 3})",
       "/sead",
       {"bad.json: /sead: expected a known key ($schema, name, description, seed, data, model, "
        "optimizer, cluster, consistency, timing, evaluation, stop, failures, recovery, output), "
        "found unknown key 'sead' (did you mean 'seed'?)"}},
      {"misspelt nested key",
       R"({"optimizer": {"lerning_rate": 0.1}})",
       "/optimizer/lerning_rate",
       {"expected a known key (learning_rate, momentum, weight_decay, batch_size), found unknown "
        "key 'lerning_rate' (did you mean 'learning_rate'?)"}},
      {"misspelt section",
       R"({"failure": {}})",
       "/failure",
       {"found unknown key 'failure' (did you mean 'failures'?)"}},
      // What the simulation does not do yet: refused before any run.
      {"a storage failure",
       R"({"recovery": {"strategy": "checkpoint"},
           "failures": {"events": [{"target": "storage", "at": "1s"}]}})",
       "/failures/events/0/target",
       {"(storage failures are not simulated yet), found \"storage\""}},
      {"random storage failures",
       R"({"recovery": {"strategy": "stateless"},
           "failures": {"stochastic": [{"target": "storage",
             "lifetime": {"distribution": "fixed", "value": "1s"},
             "repair": {"distribution": "fixed", "value": "1s"}}]}})",
       "/failures/stochastic/0/target",
       {"storage failures are not simulated yet"}},
      {"a platform file with a recovery strategy",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"]},
                       "storage": {"host": "fast-2"}},
           "recovery": {"strategy": "checkpoint"}})",
       "/cluster/platform",
       {"expected the built-in star cluster when there are failures or a recovery strategy"}},
      {"a platform file with failures",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"]}},
           "failures": {"events": [{"target": "worker", "index": 0, "at": "1s"}]}})",
       "/cluster/platform",
       {"platform files do not support them yet"}},
      {"a stateless server in sync mode",
       R"({"recovery": {"strategy": "stateless"}, "consistency": {"mode": "sync"}})",
       "/consistency/mode",
       {"expected \"async\" with recovery strategy \"stateless\"", "found \"sync\""}},
      {"failures without a stop time",
       R"({"stop": {"time": null, "updates": 100},
           "failures": {"events": [{"target": "server", "at": "1s"}]}})",
       "/stop/time",
       {"expected a stop time when there are failures", "found nothing"}},
      {"key needing JSON Pointer escapes",
       R"({"cluster": {"network": {"band/width": 1}}})",
       "/cluster/network/band~1width",
       {"found unknown key 'band/width'"}},
      {"duplicate key",
       R"({"name": "a", "seed": 1, "seed": 2})",
       "/seed",
       {"bad.json: /seed: expected each key at most once in an object, found 'seed' a second "
        "time"},
       true},
      // JSON itself.
      {"trailing comma",
       "{\n  \"name\": \"x\",\n}",
       "",
       {"bad.json:3:1: expected valid JSON, found syntax error while parsing object key"},
       true},
      {"empty file",
       "",
       "",
       {"bad.json:1:1: expected valid JSON, found syntax error while parsing value - unexpected "
        "end of input"},
       true},
      {"number too large for a double",
       R"({"seed": 1e999})",
       "",
       {"bad.json: expected valid JSON, found number overflow parsing '1e999'"},
       true},
      {"document is not an object",
       "[1, 2, 3]",
       "",
       {"bad.json: expected an object with keys ($schema, name,", "found [1,2,3]"},
       true},
      // Top-level fields.
      {"missing name",
       R"({"name": null})",
       "/name",
       {"bad.json: /name: expected a non-empty string (required), found nothing"}},
      {"name with a slash",
       R"({"name": "runs/a"})",
       "/name",
       {"expected a name of letters, digits, '.', '_' and '-'", "found \"runs/a\""}},
      {"negative seed",
       R"({"seed": -1})",
       "/seed",
       {"expected an integer in [0, 18446744073709551615], found -1"}},
      {"fractional seed", R"({"seed": 1.5})", "/seed", {"found 1.5"}},
      {"null seed",
       R"({"name": "a", "seed": null})",
       "/seed",
       {"bad.json: /seed: expected an integer in [0, 18446744073709551615], found null"},
       true},
      {"description not a string",
       R"({"description": 42})",
       "/description",
       {"expected a string, found 42"}},
      // Data.
      {"missing data section",
       R"({"data": null})",
       "/data",
       {"/data: expected an object with keys (kind, dir, train_limit, test_limit, num_classes, "
        "dim, train_size, test_size, separation, noise_sigma) (required), found nothing"}},
      {"unknown data set",
       R"({"data": {"kind": "mnist"}})",
       "/data/kind",
       {"expected one of \"fashion-mnist\", \"synthetic\", found \"mnist\""}},
      {"dir given to synthetic data",
       R"({"data": {"dir": "/tmp"}})",
       "/data/dir",
       {"expected no 'dir' here (it applies only to kind \"fashion-mnist\"), found \"/tmp\""}},
      {"synthetic parameter given to fashion-mnist",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null, "dim": 10}})",
       "/data/dim",
       {"expected no 'dim' here (it applies only to kind \"synthetic\"), found 10"}},
      {"fashion-mnist directory that does not exist",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null,
                    "dir": "no-such-dir"}})",
       "/data/dir",
       {"expected an existing directory holding the Fashion-MNIST IDX files, found "
        "\"no-such-dir\" (resolved to /",
        "/no-such-dir, not a directory)"}},
      {"more classes than dimensions",
       R"({"data": {"dim": 4}})",
       "/data/num_classes",
       {"expected an integer in [2, dim = 4]", "found 10"}},
      {"zero noise",
       R"({"data": {"noise_sigma": 0}})",
       "/data/noise_sigma",
       {"expected a number > 0, found 0"}},
      {"train_limit on synthetic data",
       R"({"data": {"train_limit": 10}})",
       "/data/train_limit",
       {"expected no 'train_limit' here (kind \"synthetic\" sets its size with train_size)"}},
      // Model.
      {"misspelt model kind",
       R"({"model": {"kind": "sofmax"}})",
       "/model/kind",
       {"expected one of \"softmax\", \"mlp\", \"cnn\", found \"sofmax\" (did you mean "
        "\"softmax\"?)"}},
      {"mlp without hidden layers",
       R"({"model": {"kind": "mlp"}})",
       "/model/hidden",
       {"expected a list of at least 1 layer widths (integers >= 1) (required), found nothing"}},
      {"mlp with an empty layer",
       R"({"model": {"kind": "mlp", "hidden": [64, 0]}})",
       "/model/hidden/1",
       {"/model/hidden/1: expected an integer >= 1, found 0"}},
      {"hidden layers on softmax",
       R"({"model": {"hidden": [10]}})",
       "/model/hidden",
       {"expected no 'hidden' here (it applies only to kind \"mlp\"), found [10]"}},
      {"cnn on synthetic data",
       R"({"model": {"kind": "cnn"}})",
       "/model/kind",
       {"expected \"softmax\" or \"mlp\" with synthetic data (the CNN needs 28x28 images",
        "found \"cnn\""}},
      {"dropout of one",
       R"({"data": {"kind": "fashion-mnist", "train_size": null, "test_size": null},
           "model": {"kind": "cnn", "dropout": 1}})",
       "/model/dropout",
       {"expected a number in [0, 1), found 1"}},
      // Optimizer.
      {"negative learning rate",
       R"({"optimizer": {"learning_rate": -0.1}})",
       "/optimizer/learning_rate",
       {"bad.json: /optimizer/learning_rate: expected a number > 0, found -0.1"}},
      {"learning rate as a string",
       R"({"optimizer": {"learning_rate": "0.1"}})",
       "/optimizer/learning_rate",
       {"expected a number > 0, found \"0.1\""}},
      {"momentum of one",
       R"({"optimizer": {"momentum": 1}})",
       "/optimizer/momentum",
       {"expected a number in [0, 1), found 1"}},
      {"empty batches",
       R"({"optimizer": {"batch_size": 0}})",
       "/optimizer/batch_size",
       {"expected an integer >= 1, found 0"}},
      {"fractional batch",
       R"({"optimizer": {"batch_size": 32.5}})",
       "/optimizer/batch_size",
       {"expected an integer >= 1, found 32.5"}},
      {"integer too large to store",
       R"({"optimizer": {"batch_size": 3000000000}})",
       "/optimizer/batch_size",
       {"expected an integer in [1, 2147483647], found 3000000000"}},
      {"section of the wrong type",
       R"({"optimizer": [1, 2]})",
       "/optimizer",
       {"expected an object with keys (learning_rate, momentum, weight_decay, batch_size), "
        "found [1,2]"}},
      // Cluster.
      {"no workers",
       R"({"cluster": {"workers": {"count": 0}}})",
       "/cluster/workers/count",
       {"expected an integer >= 1, found 0"}},
      {"worker speed in a bandwidth unit",
       R"({"cluster": {"workers": {"speed": "10Gbps"}}})",
       "/cluster/workers/speed",
       {"expected a compute speed > 0: a number of flop/s",
        "found \"10Gbps\" ('Gbps' is a unit of a bandwidth, not of a compute speed)"}},
      {"negative worker speed",
       R"({"cluster": {"workers": {"speed": "-1Gf"}}})",
       "/cluster/workers/speed",
       {"found \"-1Gf\" (negative)"}},
      {"speed list shorter than count",
       R"({"cluster": {"workers": {"speed": null, "speeds": ["1Gf"]}}})",
       "/cluster/workers/speeds",
       {"expected 2 speeds, one per worker as 'count' says, found 1 speeds"}},
      {"both speed and speeds",
       R"({"cluster": {"workers": {"speeds": ["1Gf", "2Gf"]}}})",
       "/cluster/workers/speeds",
       {"expected either 'speed' (all workers) or 'speeds' (one per worker), found both "
        "'speed' and 'speeds'"}},
      {"bad element in the speed list",
       R"({"cluster": {"workers": {"speed": null, "speeds": ["1Gf", "fast"]}}})",
       "/cluster/workers/speeds/1",
       {"found \"fast\" (no number before the unit)"}},
      {"more than one server without chain replication",
       R"({"cluster": {"servers": {"count": 3}}})",
       "/cluster/servers/count",
       {"/cluster/servers/count: expected 1 server (recovery strategy \"none\" runs one parameter "
        "server; only \"chain\", \"stateless_chain\" and multi-level \"checkpoint\" use "
        "several), found 3"}},
      {"server without a speed",
       R"({"cluster": {"servers": {"speed": null}}})",
       "/cluster/servers/speed",
       {"/cluster/servers/speed: expected a compute speed > 0", "(required), found nothing"}},
      {"bandwidth in a time unit",
       R"({"cluster": {"network": {"bandwidth": "50us"}}})",
       "/cluster/network/bandwidth",
       {"found \"50us\" ('us' is a unit of a duration, not of a bandwidth)"}},
      {"latency in ambiguous minutes",
       R"({"cluster": {"network": {"latency": "5m"}}})",
       "/cluster/network/latency",
       {"ambiguous unit 'm': write 'min' for minutes or 'ms'"}},
      {"hosts without a platform file",
       R"({"cluster": {"workers": {"hosts": ["a"]}}})",
       "/cluster/workers/hosts",
       {"expected no 'hosts' here ('hosts' needs a platform file in cluster.platform), found "
        "[\"a\"]"}},
      {"platform file that does not exist",
       R"({"cluster": {"platform": "nope.xml", "workers": {"hosts": ["a"]},
                       "servers": {"hosts": ["b"]}}})",
       "/cluster/platform",
       {"expected a SimGrid XML platform file (relative to the scenario file), found "
        "\"nope.xml\" (resolved to /",
        "/nope.xml, no such file)"}},
      {"worker count beside a platform file",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml", "workers": {"hosts": ["ps"]},
                       "servers": {"speed": null, "hosts": ["ps"]}}})",
       "/cluster/workers/count",
       {"expected no 'count' here (with a platform file, list the hosts in 'hosts'), found 2"}},
      {"network beside a platform file",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["ps"]},
                       "servers": {"speed": null, "hosts": ["ps"]},
                       "network": {"latency": "1ms"}}})",
       "/cluster/network",
       {"expected no 'network' here (a platform file describes its own links)"}},
      {"empty host list",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": []},
                       "servers": {"speed": null, "hosts": ["ps"]}}})",
       "/cluster/workers/hosts",
       {"expected a list of at least 1 host names of the platform file, found []"}},
      // Cluster storage.
      {"storage host without a strategy that stores",
       R"({"cluster": {"storage": {"disk_read": "1GBps"}}})",
       "/cluster/storage",
       {"expected no 'storage' here (the storage host serves only recovery strategies "
        "\"checkpoint\", \"stateless\" and \"stateless_chain\", not \"none\"), found "
        "{\"disk_read\":\"1GBps\"}"}},
      {"storage host named on the star",
       R"({"cluster": {"storage": {"host": "nas"}}, "recovery": {"strategy": "checkpoint"}})",
       "/cluster/storage/host",
       {"expected no 'host' here (the built-in star has its own storage host; 'host' names a "
        "host of a platform file), found \"nas\""}},
      {"disk bandwidth in a time unit",
       R"({"cluster": {"storage": {"disk_write": "10ms"}}, "recovery": {"strategy": "stateless"}})",
       "/cluster/storage/disk_write",
       {"expected a bandwidth > 0",
        "found \"10ms\" ('ms' is a unit of a duration, not of a "
        "bandwidth)"}},
      {"platform checkpoint without a storage host",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"]}},
           "recovery": {"strategy": "checkpoint"}})",
       "/cluster/storage/host",
       {"/cluster/storage/host: expected a non-empty string (required), found nothing"}},
      {"local-disk level with a platform file",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"]},
                       "storage": {"host": "slow-1"}},
           "recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "memory", "every_updates": 5},
                                                  {"kind": "local-disk", "every_updates": 10}]}}})",
       "/recovery/checkpoint/levels/1/kind",
       {"expected \"memory\" or \"remote\" (a \"local-disk\" level needs the built-in star: "
        "with a platform file the server hosts have no modelled local disk), found "
        "\"local-disk\""}},
      {"two platform servers without chain replication",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps", "fast-2"]}}})",
       "/cluster/servers/hosts",
       {"expected 1 server (recovery strategy \"none\" runs one parameter server; only "
        "\"chain\", \"stateless_chain\" and multi-level \"checkpoint\" use several), found 2 "
        "hosts"}},
      {"chain over one platform server",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"]}},
           "recovery": {"strategy": "chain"}})",
       "/cluster/servers/hosts",
       {"expected at least 2 servers (recovery strategy \"chain\" runs one replica per server "
        "host), found 1 host"}},
      // Consistency.
      {"unknown consistency mode",
       R"({"consistency": {"mode": "bsp"}})",
       "/consistency/mode",
       {"expected one of \"sync\", \"ssp\", \"async\", found \"bsp\" (did you mean \"ssp\"?)"}},
      {"ssp without its bound",
       R"({"consistency": {"mode": "ssp"}})",
       "/consistency/bound",
       {"expected an integer >= 0 (required), found nothing"}},
      {"negative ssp bound",
       R"({"consistency": {"mode": "ssp", "bound": -1}})",
       "/consistency/bound",
       {"expected an integer >= 0, found -1"}},
      {"bound outside ssp",
       R"({"consistency": {"bound": 2}})",
       "/consistency/bound",
       {"expected no 'bound' here (it applies only to mode \"ssp\"), found 2"}},
      {"combine outside sync",
       R"({"consistency": {"combine": "mean"}})",
       "/consistency/combine",
       {"expected no 'combine' here (it applies only to mode \"sync\"), found \"mean\""}},
      {"unknown combine rule",
       R"({"consistency": {"mode": "sync", "combine": "average"}})",
       "/consistency/combine",
       {"expected one of \"sum\", \"mean\", found \"average\""}},
      // Timing.
      {"message size in a bandwidth unit",
       R"({"timing": {"param_bytes": "10Gbps"}})",
       "/timing/param_bytes",
       {"expected a data size > 0", "('Gbps' is a unit of a bandwidth, not of a data size)"}},
      {"zero flops per sample",
       R"({"timing": {"flops_per_sample": 0}})",
       "/timing/flops_per_sample",
       {"expected an amount of computation > 0", "found 0"}},
      {"server evaluation without flops",
       R"({"timing": {"server_evaluation": {"every_updates": 10}}})",
       "/timing/server_evaluation/flops",
       {"expected an amount of computation > 0", "(required), found nothing"}},
      {"server evaluation every 0 updates",
       R"({"timing": {"server_evaluation": {"every_updates": 0, "flops": "1Gf"}}})",
       "/timing/server_evaluation/every_updates",
       {"expected an integer >= 1, found 0"}},
      {"server evaluation with an unknown key",
       R"({"timing": {"server_evaluation": {"every_updates": 1, "flops": "1Gf", "samples": 5}}})",
       "/timing/server_evaluation/samples",
       {"samples"}},
      {"server evaluation with shards",
       R"({"cluster": {"servers": {"shards": 2}},
           "timing": {"server_evaluation": {"every_updates": 1, "flops": "1Gf"}}})",
       "/timing/server_evaluation",
       {"expected one server shard, found cluster.servers.shards = 2"}},
      // Evaluation.
      {"negative evaluation interval",
       R"({"evaluation": {"interval": -1}})",
       "/evaluation/interval",
       {"expected a duration >= 0", "found -1"}},
      {"yes for a boolean",
       R"({"evaluation": {"final_full_test": "yes"}})",
       "/evaluation/final_full_test",
       {"expected true or false, found \"yes\""}},
      // Stop.
      {"no stop criterion",
       R"({"stop": {"time": null}})",
       "/stop",
       {"bad.json: /stop: expected at least one of 'time', 'updates', 'target_accuracy', "
        "'version', found none"}},
      {"stop section missing",
       R"({"stop": null})",
       "/stop",
       {"expected an object with keys (time, updates, target_accuracy, version) (required), "
        "found nothing"}},
      {"zero stop time", R"({"stop": {"time": "0s"}})", "/stop/time", {"found \"0s\" (zero)"}},
      {"zero updates",
       R"({"stop": {"updates": 0}})",
       "/stop/updates",
       {"expected an integer >= 1, found 0"}},
      {"zero version",
       R"({"stop": {"version": 0}})",
       "/stop/version",
       {"expected an integer >= 1, found 0"}},
      {"accuracy above one",
       R"({"stop": {"target_accuracy": 1.5}})",
       "/stop/target_accuracy",
       {"expected a number in (0, 1], found 1.5"}},
      {"target accuracy nobody measures",
       R"({"evaluation": {"interval": 0}, "stop": {"target_accuracy": 0.9}})",
       "/stop/target_accuracy",
       {"expected a target only with an evaluation schedule (evaluation.interval or "
        "evaluation.every_updates > 0) to detect it, found 0.9"}},
      // Failures.
      {"failures as a list",
       R"({"failures": []})",
       "/failures",
       {"expected an object with keys (detection_timeout, restart_delay, request_timeout, "
        "events, stochastic), found []"}},
      {"zero detection timeout",
       R"({"failures": {"detection_timeout": 0}})",
       "/failures/detection_timeout",
       {"expected a duration > 0", "found 0"}},
      {"restart delay in a bandwidth unit",
       R"({"failures": {"restart_delay": "1Gbps"}})",
       "/failures/restart_delay",
       {"found \"1Gbps\" ('Gbps' is a unit of a bandwidth, not of a duration)"}},
      {"events as one object",
       R"({"failures": {"events": {"target": "server", "at": 1}}})",
       "/failures/events",
       {"expected a list of failure events (objects), found {"}},
      {"misspelt event key",
       R"({"failures": {"events": [{"target": "server", "at": 1, "donw_for": 2}]}})",
       "/failures/events/0/donw_for",
       {"found unknown key 'donw_for' (did you mean 'down_for'?)"}},
      {"unknown failure target",
       R"({"failures": {"events": [{"target": "ps", "at": 1}]}})",
       "/failures/events/0/target",
       {"expected one of \"server\", \"replica\", \"worker\", \"storage\", \"server_link\", "
        "\"worker_link\", found \"ps\""}},
      {"event without a target",
       R"({"failures": {"events": [{"at": 1}]}})",
       "/failures/events/0/target",
       {"(required), found nothing"}},
      {"event without a time",
       R"({"failures": {"events": [{"target": "server"}]}})",
       "/failures/events/0",
       {"bad.json: /failures/events/0: expected 'at' (a time) or 'at_update' (an update "
        "count): when the failure happens, found neither"}},
      {"event with two times",
       R"({"failures": {"events": [{"target": "server", "at": "1s", "at_update": 5}]}})",
       "/failures/events/0/at_update",
       {"expected either 'at' (a time) or 'at_update' (an update count), found both 'at' and "
        "'at_update'"}},
      {"event before the start",
       R"({"failures": {"events": [{"target": "server", "at": "-1s"}]}})",
       "/failures/events/0/at",
       {"expected a duration >= 0", "found \"-1s\" (negative)"}},
      {"event at update zero",
       R"({"failures": {"events": [{"target": "server", "at_update": 0}]}})",
       "/failures/events/0/at_update",
       {"expected an integer >= 1, found 0"}},
      {"forever as a time",
       R"({"failures": {"events": [{"target": "server", "at": "forever"}]}})",
       "/failures/events/0/at",
       {"found \"forever\" (no number before the unit)"}},
      {"down for never",
       R"({"failures": {"events": [{"target": "server", "at": 1, "down_for": "never"}]}})",
       "/failures/events/0/down_for",
       {"expected a duration >= 0: a number of seconds",
        "(units: ps ns us ms s min h d w), or \"forever\" (the host never comes back), found "
        "\"never\" (no number before the unit)"}},
      {"down for null",
       R"({"failures": {"events": [{"target": "server", "at": 1, "down_for": null}]}})",
       "/failures/events/0/down_for",
       {"or \"forever\" (the host never comes back), found null"}},
      {"worker failure without an index",
       R"({"failures": {"events": [{"target": "worker", "at": 1}]}})",
       "/failures/events/0/index",
       {"expected a worker index in [0, 1] (the cluster has 2 workers) (required), found "
        "nothing"}},
      {"worker index past the last worker",
       R"({"failures": {"events": [{"target": "worker", "index": 2, "at": 1}]}})",
       "/failures/events/0/index",
       {"expected a worker index in [0, 1] (the cluster has 2 workers), found 2"}},
      {"negative worker index",
       R"({"failures": {"events": [{"target": "worker", "index": -1, "at": 1}]}})",
       "/failures/events/0/index",
       {"expected an integer >= 0, found -1"}},
      {"index of the server",
       R"({"failures": {"events": [{"target": "server", "index": 0, "at": 1}]}})",
       "/failures/events/0/index",
       {"expected no 'index' here (target \"server\" is whichever server is the primary at that "
        "moment), found 0"}},
      {"replica without chain replication",
       R"({"failures": {"events": [{"target": "replica", "index": 0, "at": 1}]}})",
       "/failures/events/0/target",
       {"expected a target of recovery strategy \"none\": \"server\", \"worker\", "
        "\"server_link\", \"worker_link\" (a replica is a chain position of strategies \"chain\" "
        "and \"stateless_chain\"), found \"replica\""}},
      {"replica past the tail",
       R"({"cluster": {"servers": {"count": 3}}, "recovery": {"strategy": "chain"},
           "failures": {"events": [{"target": "replica", "index": 3, "at": 1}]}})",
       "/failures/events/0/index",
       {"expected a chain position (0 = head) in [0, 2] (the cluster has 3 servers), found 3"}},
      {"storage failure without a storage host",
       R"({"cluster": {"servers": {"count": 2}}, "recovery": {"strategy": "chain"},
           "failures": {"events": [{"target": "storage", "at": 1}]}})",
       "/failures/events/0/target",
       {"expected a target of recovery strategy \"chain\": \"server\", \"replica\", \"worker\", "
        "\"server_link\", \"worker_link\" (the storage host exists only with strategies "
        "\"checkpoint\", \"stateless\" and \"stateless_chain\"), found \"storage\""}},
      {"no shard at all",
       R"({"cluster": {"servers": {"shards": 0}}})",
       "/cluster/servers/shards",
       {"expected an integer >= 1, found 0"}},
      {"shards as a string",
       R"({"cluster": {"servers": {"shards": "2"}}})",
       "/cluster/servers/shards",
       {"expected an integer >= 1, found \"2\""}},
      {"shards with a platform file",
       R"({"cluster": {"platform": "@EXAMPLES@/lab-platform.xml",
                       "workers": {"count": null, "speed": null, "hosts": ["fast-1"]},
                       "servers": {"speed": null, "hosts": ["ps"], "shards": 2}}})",
       "/cluster/servers/shards",
       {"expected no 'shards' here (sharded servers need the built-in star cluster), found 2"}},
      {"a shard past the last",
       R"({"cluster": {"servers": {"shards": 2}},
           "failures": {"events": [{"target": "server", "shard": 2, "at": 1}]}})",
       "/failures/events/0/shard",
       {"expected a shard index in [0, 1] (cluster.servers.shards is 2), found 2"}},
      {"a shard of an unsharded cluster",
       R"({"failures": {"events": [{"target": "server_link", "shard": 1, "at": 1}]}})",
       "/failures/events/0/shard",
       {"expected a shard index in [0, 0] (cluster.servers.shards is 1), found 1"}},
      {"a negative shard",
       R"({"cluster": {"servers": {"shards": 2}},
           "failures": {"events": [{"target": "server", "shard": -1, "at": 1}]}})",
       "/failures/events/0/shard",
       {"expected an integer >= 0, found -1"}},
      {"a worker's shard",
       R"({"cluster": {"servers": {"shards": 2}},
           "failures": {"events": [{"target": "worker", "index": 0, "shard": 1, "at": 1}]}})",
       "/failures/events/0/shard",
       {"expected no 'shard' here (only targets \"server\", \"replica\" and \"server_link\" "
        "belong to a shard), found 1"}},
      {"a worker link without its index",
       R"({"failures": {"events": [{"target": "worker_link", "at": 1}]}})",
       "/failures/events/0/index",
       {"expected a worker index in [0, 1] (the cluster has 2 workers) (required), found nothing"}},
      {"the server link with an index",
       R"({"failures": {"events": [{"target": "server_link", "index": 0, "at": 1}]}})",
       "/failures/events/0/index",
       {"target \"server_link\" is the link of the primary at that moment"}},
      {"the server link under checkpointing",
       R"({"recovery": {"strategy": "checkpoint"},
           "failures": {"events": [{"target": "server_link", "at": 1}]}})",
       "/failures/events/0/target",
       {"simulated with strategies \"none\" and \"chain\" only", "found \"server_link\""}},
      {"random failures of a chain position",
       R"({"failures": {"stochastic": [{"target": "replica"}]}})",
       "/failures/stochastic/0/target",
       {"expected one of \"server\", \"worker\", \"storage\", found \"replica\""}},
      {"random failures of the storage host without one",
       R"({"failures": {"stochastic": [{"target": "storage"}]}})",
       "/failures/stochastic/0/target",
       {"expected a target of recovery strategy \"none\": \"server\", \"worker\" (the storage "
        "host exists only"}},
      {"random failures without a repair time",
       R"({"failures": {"stochastic": [{"target": "worker",
           "lifetime": {"distribution": "exponential", "mean": "1h"}}]}})",
       "/failures/stochastic/0/repair",
       {"expected an object with keys (distribution, mean, shape, scale, value) (required), found "
        "nothing"}},
      {"unknown distribution",
       R"({"failures": {"stochastic": [{"target": "worker",
           "lifetime": {"distribution": "normal", "mean": "1h"}}]}})",
       "/failures/stochastic/0/lifetime/distribution",
       {"expected one of \"exponential\", \"weibull\", \"fixed\", found \"normal\""}},
      {"weibull without a shape",
       R"({"failures": {"stochastic": [{"target": "worker",
           "lifetime": {"distribution": "weibull", "scale": "2h"}}]}})",
       "/failures/stochastic/0/lifetime/shape",
       {"expected a number > 0 (required), found nothing"}},
      {"weibull of shape zero",
       R"({"failures": {"stochastic": [{"target": "server",
           "lifetime": {"distribution": "weibull", "shape": 0, "scale": "2h"}}]}})",
       "/failures/stochastic/0/lifetime/shape",
       {"expected a number > 0, found 0"}},
      {"exponential written with a scale",
       R"({"failures": {"stochastic": [{"target": "worker",
           "lifetime": {"distribution": "exponential", "scale": "1h"}}]}})",
       "/failures/stochastic/0/lifetime/scale",
       {"expected no 'scale' here (it applies only to distribution \"weibull\"), found \"1h\""}},
      {"fixed lifetime of zero",
       R"({"failures": {"stochastic": [{"target": "worker",
           "lifetime": {"distribution": "fixed", "value": 0},
           "repair": {"distribution": "fixed", "value": 0}}]}})",
       "/failures/stochastic/0/lifetime/value",
       {"expected a duration > 0", "found 0"}},
      {"two random processes for the workers",
       R"({"failures": {"stochastic": [
           {"target": "worker", "lifetime": {"distribution": "exponential", "mean": "1h"},
            "repair": {"distribution": "fixed", "value": "1min"}},
           {"target": "worker", "lifetime": {"distribution": "exponential", "mean": "2h"},
            "repair": {"distribution": "fixed", "value": "1min"}}]}})",
       "/failures/stochastic/1/target",
       {"expected at most one entry per target (entry 0 is already \"worker\"), found "
        "\"worker\""}},
      // Recovery.
      {"recovery without a strategy",
       R"({"recovery": {"checkpoint": {"every_updates": 10}}})",
       "/recovery/strategy",
       {"expected one of \"none\", \"checkpoint\", \"chain\", \"stateless\", \"stateless_chain\" "
        "(required), found nothing"}},
      {"unknown strategy",
       R"({"recovery": {"strategy": "checkpointing"}})",
       "/recovery/strategy",
       {"found \"checkpointing\" (did you mean \"checkpoint\"?)"}},
      {"settings of another strategy",
       R"({"recovery": {"strategy": "none", "checkpoint": {"every_updates": 10}}})",
       "/recovery/checkpoint",
       {"expected no 'checkpoint' here (it applies only to strategy \"checkpoint\"), found "
        "{\"every_updates\":10}"}},
      {"checkpoints that never happen",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"every_updates": 0, "every_seconds": 0}}})",
       "/recovery/checkpoint",
       {"expected a checkpoint interval: 'every_updates' or 'every_seconds' > 0, found both 0"}},
      {"checkpoint with two servers",
       R"({"cluster": {"servers": {"count": 2}}, "recovery": {"strategy": "checkpoint"}})",
       "/cluster/servers/count",
       {"expected 1 server (recovery strategy \"checkpoint\" runs one parameter server; only "
        "\"chain\", \"stateless_chain\" and multi-level \"checkpoint\" use several), found 2"}},
      {"multi-level checkpoint with an unknown level",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "nvme", "every_updates": 10}]}}})",
       "/recovery/checkpoint/levels/0/kind",
       {"expected one of \"memory\", \"local-disk\", \"remote\", \"peer\", found \"nvme\""}},
      {"multi-level checkpoint with no level",
       R"({"recovery": {"strategy": "checkpoint", "checkpoint": {"levels": []}}})",
       "/recovery/checkpoint/levels",
       {"expected a list of at least 1 checkpoint levels (objects), found []"}},
      {"multi-level checkpoint level that never happens",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "memory", "every_updates": 5},
                                                  {"kind": "remote", "every_updates": 0}]}}})",
       "/recovery/checkpoint/levels/1",
       {"expected a level interval: 'every_updates' or 'every_seconds' > 0, found both 0"}},
      {"multi-level checkpoint level without an interval",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "remote"}]}}})",
       "/recovery/checkpoint/levels/0",
       {"expected a level interval: 'every_updates' or 'every_seconds' > 0, found neither"}},
      {"multi-level checkpoint with two remote levels",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "remote", "every_updates": 5},
                                                  {"kind": "remote", "every_updates": 50}]}}})",
       "/recovery/checkpoint/levels/1/kind",
       {"expected at most one level of each kind (level 0 is already \"remote\"), found "
        "\"remote\""}},
      {"multi-level checkpoint with a single-level interval",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"every_updates": 10,
                                       "levels": [{"kind": "remote", "every_updates": 5}]}}})",
       "/recovery/checkpoint/every_updates",
       {"expected no 'every_updates' here (with 'levels', every level has its own interval and "
        "writes in the background), found 10"}},
      {"memory bandwidth of a single-level checkpoint",
       R"({"recovery": {"strategy": "checkpoint", "checkpoint": {"memory_bandwidth": "1GBps"}}})",
       "/recovery/checkpoint/memory_bandwidth",
       {"expected no 'memory_bandwidth' here (it applies only to multi-level checkpoints "
        "('levels')), found \"1GBps\""}},
      {"disk bandwidth of a remote level",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "remote", "every_updates": 5,
                                                   "disk_write": "1GBps"}]}}})",
       "/recovery/checkpoint/levels/0/disk_write",
       {"expected no 'disk_write' here (it applies only to level \"local-disk\"), found "
        "\"1GBps\""}},
      {"multi-level checkpoint with a zero memory bandwidth",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"memory_bandwidth": 0,
                                       "levels": [{"kind": "memory", "every_updates": 5}]}}})",
       "/recovery/checkpoint/memory_bandwidth",
       {"found 0"}},
      {"peer level with more copies than workers",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "peer", "every_updates": 10,
                                                   "copies": 3}]}}})",
       "/recovery/checkpoint/levels/0/copies",
       {"expected at most 2 (the number of worker hosts of placement \"workers\"), found 3"}},
      {"copies of a remote level",
       R"({"recovery": {"strategy": "checkpoint",
                        "checkpoint": {"levels": [{"kind": "remote", "every_updates": 5,
                                                   "copies": 2}]}}})",
       "/recovery/checkpoint/levels/0/copies",
       {"expected no 'copies' here (it applies only to level \"peer\"), found 2"}},
      {"chain over the default single server",
       R"({"recovery": {"strategy": "chain"}})",
       "/cluster/servers/count",
       {"expected at least 2 servers (recovery strategy \"chain\" runs one replica per server "
        "host), found 1 (the default)"}},
      {"chain pushing every zero updates",
       R"({"cluster": {"servers": {"count": 2}},
           "recovery": {"strategy": "chain", "chain": {"every_updates": 0}}})",
       "/recovery/chain/every_updates",
       {"expected an integer >= 1, found 0"}},
      {"stateless_chain over the default single server",
       R"({"recovery": {"strategy": "stateless_chain"}})",
       "/cluster/servers/count",
       {"expected at least 2 servers (recovery strategy \"stateless_chain\" runs one replica per "
        "server host), found 1 (the default)"}},
      {"stateless_chain pushing every zero updates",
       R"({"cluster": {"servers": {"count": 3}},
           "recovery": {"strategy": "stateless_chain", "chain": {"every_updates": 0}}})",
       "/recovery/chain/every_updates",
       {"expected an integer >= 1, found 0"}},
      {"stateless_chain with a drop_stale rule without its bound",
       R"({"cluster": {"servers": {"count": 2}},
           "recovery": {"strategy": "stateless_chain", "stateless": {"rule": "drop_stale"}}})",
       "/recovery/stateless/drop_bound",
       {"expected an integer >= 0 (required), found nothing"}},
      {"stateless_chain under sync",
       R"({"cluster": {"servers": {"count": 2}}, "consistency": {"mode": "sync"},
           "recovery": {"strategy": "stateless_chain"}})",
       "/consistency/mode",
       {"expected \"async\" with recovery strategy \"stateless_chain\" (its store applies "
        "whatever is pending, as the study's stateless server did), found \"sync\""}},
      {"chain settings under stateless",
       R"({"recovery": {"strategy": "stateless", "chain": {"every_updates": 10}}})",
       "/recovery/chain",
       {"expected no 'chain' here (it applies only to strategies \"chain\" and "
        "\"stateless_chain\"), found {\"every_updates\":10}"}},
      {"stale rule with a hyphen",
       R"({"recovery": {"strategy": "stateless", "stateless": {"rule": "inverse-staleness"}}})",
       "/recovery/stateless/rule",
       {"expected one of \"paper\", \"sum\", \"mean\", \"inverse_staleness\", \"drop_stale\", "
        "found \"inverse-staleness\" (did you mean \"inverse_staleness\"?)"}},
      {"drop_stale without its bound",
       R"({"recovery": {"strategy": "stateless", "stateless": {"rule": "drop_stale"}}})",
       "/recovery/stateless/drop_bound",
       {"expected an integer >= 0 (required), found nothing"}},
      {"drop bound under the paper rule",
       R"({"recovery": {"strategy": "stateless", "stateless": {"drop_bound": 3}}})",
       "/recovery/stateless/drop_bound",
       {"expected no 'drop_bound' here (it applies only to rule \"drop_stale\"), found 3"}},
      {"paper threshold under another rule",
       R"({"recovery": {"strategy": "stateless",
                        "stateless": {"rule": "mean", "paper_threshold": 10}}})",
       "/recovery/stateless/paper_threshold",
       {"expected no 'paper_threshold' here (it applies only to rule \"paper\"), found 10"}},
      {"zero low learning rate",
       R"({"recovery": {"strategy": "stateless", "stateless": {"paper_low_lr": 0}}})",
       "/recovery/stateless/paper_low_lr",
       {"expected a number > 0, found 0"}},
      // Output.
      {"empty output directory",
       R"({"output": {"directory": ""}})",
       "/output/directory",
       {"expected a non-empty string, found \"\""}},
      {"output flag as a number",
       R"({"output": {"events": 1}})",
       "/output/events",
       {"expected true or false, found 1"}},
  };
  return cases;
}

}  // namespace

TEST_CASE("the catalogue of bad scenarios: each gets one clear message", "[scenario]") {
  const json base = json::parse(MINIMAL);
  std::set<std::string> inputs;
  for (const BadScenario& c : catalogue()) {
    INFO(c.what);
    const std::string input = replace_all(c.input, "@EXAMPLES@", EXAMPLES_DIR.string());
    CHECK(inputs.insert(input).second);  // every case is a different scenario
    const failsim::input::InputError e = error_of([&] {
      if (c.whole_text) {
        parse_scenario_text(input, "bad.json");
      } else {
        json doc = base;
        doc.merge_patch(json::parse(input));
        parse_scenario(doc, "bad.json");
      }
    });
    CHECK(e.file() == "bad.json");
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
  }
  CHECK(catalogue().size() >= 108);
}

namespace {

/// An object of an example and the schema node describing it.
struct ObjectNode {
  std::string pointer;
  const json* schema;
  const json* value;
};

const json& resolve_ref(const json& schema_root, const json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"].get<std::string>();
  REQUIRE(ref.rfind("#/", 0) == 0);
  return schema_root.at(json::json_pointer(ref.substr(1)));
}

/// Walks `value` and the schema together; every key of every object must be a property of its
/// schema node. Collects the objects (with their schema nodes) visited.
void walk(const json& schema_root, const json& schema_node, const json& value,
          const std::string& pointer, std::vector<ObjectNode>& out) {
  const json& s = resolve_ref(schema_root, schema_node);
  if (value.is_object() && s.contains("properties")) {
    out.push_back({pointer, &s, &value});
    for (const auto& item : value.items()) {
      INFO(pointer + "/" + item.key());
      REQUIRE(s["properties"].contains(item.key()));
      walk(schema_root, s["properties"][item.key()], item.value(), pointer + "/" + item.key(), out);
    }
  } else if (value.is_array() && s.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      walk(schema_root, s["items"], value[i], pointer + "/" + std::to_string(i), out);
    }
  }
}

/// Every schema node describing an object (reached through properties and items).
void schema_objects(const json& schema_root, const json& node, std::set<const json*>& out) {
  const json& s = resolve_ref(schema_root, node);
  if (s.contains("properties")) {
    out.insert(&s);
    for (const auto& item : s["properties"].items()) schema_objects(schema_root, item.value(), out);
  }
  if (s.contains("items")) schema_objects(schema_root, s["items"], out);
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

}  // namespace

TEST_CASE("the schema knows every key of every example, and the examples cover the schema",
          "[scenario][schema]") {
  const json schema = read_json(SCHEMA_FILE);
  std::set<const json*> covered;
  for (const fs::path& f : example_files()) {
    INFO(f.string());
    std::vector<ObjectNode> nodes;
    walk(schema, schema, read_json(f), "", nodes);
    for (const ObjectNode& n : nodes) covered.insert(n.schema);
  }
  std::set<const json*> all;
  schema_objects(schema, schema, all);
  CHECK(all.size() >= 22);
  CHECK(covered == all);
}

TEST_CASE("the parser knows exactly the schema's keys at every object", "[scenario][schema]") {
  // A key the parser does not know is an error that lists the keys it knows: compare them with
  // the schema's properties at every object of every example.
  const json schema = read_json(SCHEMA_FILE);
  for (const fs::path& f : example_files()) {
    const json example = read_json(f);
    std::vector<ObjectNode> nodes;
    walk(schema, schema, example, "", nodes);
    for (const ObjectNode& n : nodes) {
      INFO(f.string() + " at '" + n.pointer + "'");
      json doc = example;
      doc[json::json_pointer(n.pointer)]["zz_not_a_key"] = 1;
      const failsim::input::InputError e = error_of([&] { parse_scenario(doc, f.string()); });
      CHECK(e.json_path() == n.pointer + "/zz_not_a_key");
      CHECK(known_keys(e.expected()) == property_names(*n.schema));
    }
  }
}

TEST_CASE("the schema's required keys are required by the parser", "[scenario][schema]") {
  const json schema = read_json(SCHEMA_FILE);
  int checked = 0;
  for (const fs::path& f : example_files()) {
    const json example = read_json(f);
    std::vector<ObjectNode> nodes;
    walk(schema, schema, example, "", nodes);
    for (const ObjectNode& n : nodes) {
      if (!n.schema->contains("required")) continue;
      for (const json& key : (*n.schema)["required"]) {
        const std::string k = key.get<std::string>();
        INFO(f.string() + " without '" + n.pointer + "/" + k + "'");
        json doc = example;
        REQUIRE(doc[json::json_pointer(n.pointer)].erase(k) == 1);
        const failsim::input::InputError e = error_of([&] { parse_scenario(doc, f.string()); });
        CHECK(e.json_path() == n.pointer + "/" + k);
        CHECK_THAT(e.what(), Catch::EndsWith("(required), found nothing"));
        ++checked;
      }
    }
  }
  CHECK(checked >= 10);
}

TEST_CASE("the parser accepts exactly the schema's enum spellings", "[scenario][schema]") {
  const json schema = read_json(SCHEMA_FILE);
  std::set<std::string> checked;
  for (const fs::path& f : example_files()) {
    const json example = read_json(f);
    std::vector<ObjectNode> nodes;
    walk(schema, schema, example, "", nodes);
    for (const ObjectNode& n : nodes) {
      for (const auto& item : n.value->items()) {
        const json& property = resolve_ref(schema, (*n.schema)["properties"][item.key()]);
        if (!property.contains("enum")) continue;
        const std::string pointer = n.pointer + "/" + item.key();
        INFO(f.string() + " at '" + pointer + "'");
        std::set<std::string> spellings;
        for (const json& v : property["enum"]) {
          spellings.insert(v.get<std::string>());
          json doc = example;
          doc[json::json_pointer(pointer)] = v;
          // A schema spelling may still fail a check between sections, never as a spelling.
          try {
            parse_scenario(doc, f.string());
          } catch (const failsim::input::InputError& e) {
            CHECK_FALSE((e.json_path() == pointer && e.expected().rfind("one of", 0) == 0));
          }
        }
        json doc = example;
        doc[json::json_pointer(pointer)] = "zz-not-a-choice";
        const failsim::input::InputError e = error_of([&] { parse_scenario(doc, f.string()); });
        CHECK(e.json_path() == pointer);
        CHECK(choices(e.expected()) == spellings);
        checked.insert(pointer);
      }
    }
  }
  CHECK(checked == std::set<std::string>{
                       "/data/kind", "/model/kind", "/consistency/mode", "/consistency/combine",
                       "/failures/events/0/target", "/failures/events/1/target",
                       "/failures/events/2/target", "/failures/stochastic/0/target",
                       "/failures/stochastic/0/lifetime/distribution",
                       "/failures/stochastic/0/repair/distribution", "/recovery/strategy",
                       "/recovery/stateless/rule", "/recovery/checkpoint/levels/0/kind",
                       "/recovery/checkpoint/levels/1/kind", "/recovery/checkpoint/levels/2/kind"});
}

TEST_CASE("the docs page shows a real example and names every field", "[scenario][docs]") {
  const std::string docs = read_text(DOCS_FILE);
  // The page is built around this file: the text must be the file's, verbatim.
  CHECK_THAT(docs, Catch::Contains(read_text(EXAMPLES_DIR / "cnn-4-async.json")));
  const json schema = read_json(SCHEMA_FILE);
  std::set<const json*> objects;
  schema_objects(schema, schema, objects);
  for (const json* node : objects) {
    for (const std::string& name : property_names(*node)) {
      INFO(name);
      CHECK_THAT(docs, Catch::Contains("`" + name + "`"));
    }
  }
}
