// The scenario: everything one simulated training run needs, parsed from a JSON file, fully
// validated and resolved (defaults filled in, units converted to SI base units as doubles,
// modes as enums, paths made absolute). The simulation consumes this struct and never looks at
// JSON; the format itself is documented field by field in docs/scenario-format.md and
// described for editors by scenarios/schema.json. Engine-free: no SimGrid here.
//
// Units of every double below: seconds, bytes, bytes per second, flop/s, flops (SimGrid's).
// A section whose kind/mode makes a field meaningless rejects that field when it is written
// (e.g. consistency.bound outside "ssp"); in the struct such a field keeps its default and the
// comment says when it applies.
//
// Adding a section (issue 4: failures, recovery): add its struct here, a member to Scenario, a
// reader in scenario.cpp (see scenario_reader.hpp), its writer in to_json(), its properties in
// scenarios/schema.json and its table in docs/scenario-format.md; the schema test in
// tests/test_scenario.cpp fails until the parser, the schema and the docs agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario_error.hpp"

namespace failsim::sim {

enum class DatasetKind { FASHION_MNIST, SYNTHETIC };

/// Parameters of the synthetic data set: Gaussian blobs (models/synthetic.hpp), one mean per
/// class, every two means `separation` apart, isotropic noise of standard deviation
/// noise_sigma, so the best achievable accuracy is known. Drawn from the scenario seed.
struct SyntheticData {
  int num_classes = 10;  ///< in [2, dim]
  int dim = 32;
  int train_size = 10000;
  int test_size = 2000;
  double separation = 3.0;   ///< >= 0
  double noise_sigma = 1.0;  ///< > 0

  bool operator==(const SyntheticData&) const = default;
};

struct DataConfig {
  DatasetKind kind = DatasetKind::FASHION_MNIST;
  /// FASHION_MNIST: absolute path of the directory holding the four IDX files.
  std::string dir = "/usr/share/datasets/fashion-mnist";
  /// SYNTHETIC: its parameters.
  SyntheticData synthetic;
  /// FASHION_MNIST: use only the first N training / test samples; 0 = all.
  int train_limit = 0;
  int test_limit = 0;

  bool operator==(const DataConfig&) const = default;
};

enum class ModelKind { SOFTMAX, MLP, CNN };

struct ModelConfig {
  ModelKind kind = ModelKind::SOFTMAX;
  /// MLP: hidden layer widths, input to output (non-empty).
  std::vector<int> hidden;
  /// CNN: dropout probability in [0, 1) before the last layer (the study's 0.25).
  double dropout = 0.25;

  bool operator==(const ModelConfig&) const = default;
};

/// Plain SGD with optional momentum and L2 weight decay.
struct OptimizerConfig {
  double learning_rate = 0.01;  ///< > 0
  double momentum = 0.0;        ///< in [0, 1)
  double weight_decay = 0.0;    ///< >= 0
  int batch_size = 32;          ///< samples per gradient, >= 1

  bool operator==(const OptimizerConfig&) const = default;
};

enum class ClusterKind {
  STAR,     ///< built in: every host has one link to a central switch
  PLATFORM  ///< a SimGrid XML platform file and a mapping of roles to its hosts
};

/// The built-in star: one host per worker and per server, each with its own link (same
/// bandwidth and latency) to a central switch.
struct StarCluster {
  std::vector<double> worker_speeds;  ///< flop/s, one per worker (so its size is the count)
  int servers = 1;
  double server_speed = 0.0;  ///< flop/s of each server host
  double bandwidth = 1.25e9;  ///< bytes/s of each host link (10 Gbps)
  double latency = 50e-6;     ///< seconds of each host link

  bool operator==(const StarCluster&) const = default;
};

/// Hosts taken from a SimGrid platform file. Host names are checked against the file by the
/// simulation (it loads the platform); it reports an unknown name as a ScenarioError at
/// /cluster/servers/hosts/<i> or /cluster/workers/hosts/<i>. A host may appear several times
/// (actors then share its CPU, as in the study's single machine).
struct PlatformCluster {
  std::string file;  ///< absolute path (written relative to the scenario file)
  std::vector<std::string> server_hosts;
  std::vector<std::string> worker_hosts;

  bool operator==(const PlatformCluster&) const = default;
};

struct ClusterConfig {
  ClusterKind kind = ClusterKind::STAR;
  StarCluster star;          ///< meaningful when kind == STAR
  PlatformCluster platform;  ///< meaningful when kind == PLATFORM

  int num_workers() const;
  int num_servers() const;
  bool operator==(const ClusterConfig&) const = default;
};

enum class ConsistencyMode {
  SYNC,  ///< BSP: one update per round from the gradients of all live workers
  SSP,   ///< stale synchronous: a worker runs at most `bound` rounds ahead of the slowest
  ASYNC  ///< each gradient is applied when it arrives
};

/// How a sync round's gradients become one update: their sum (the study) or their mean.
enum class GradientCombine { SUM, MEAN };

struct ConsistencyConfig {
  ConsistencyMode mode = ConsistencyMode::ASYNC;
  int bound = 0;                                   ///< SSP only: >= 0
  GradientCombine combine = GradientCombine::SUM;  ///< SYNC only

  bool operator==(const ConsistencyConfig&) const = default;
};

/// Overrides of the time model; nullopt means "derive from the real model" (its
/// train_flops_per_sample() and param_bytes()).
struct TimingConfig {
  std::optional<double> flops_per_sample;  ///< flops of one training sample (fwd + bwd)
  std::optional<double> param_bytes;       ///< bytes of a parameter or gradient message

  bool operator==(const TimingConfig&) const = default;
};

/// When test accuracy is measured (an observer: costs no simulated time).
struct EvaluationConfig {
  double interval = 1.0;        ///< simulated seconds between evaluations; 0 = no time schedule
  int every_updates = 0;        ///< also every N parameter updates; 0 = off
  int test_subset = 0;          ///< scheduled evaluations use the first N test samples; 0 = all
  bool final_full_test = true;  ///< evaluate the whole test set at the end

  bool operator==(const EvaluationConfig&) const = default;
};

/// The run stops at the first criterion met; at least one is set.
struct StopConfig {
  std::optional<double> time;             ///< simulated seconds, > 0
  std::optional<std::int64_t> updates;    ///< parameter updates applied, >= 1
  std::optional<double> target_accuracy;  ///< test accuracy in (0, 1] at an evaluation

  bool operator==(const StopConfig&) const = default;
};

struct OutputConfig {
  /// Result directory, relative to the working directory (not to the scenario file); the CLI's
  /// -o overrides it. Default: results/<name>.
  std::string directory;
  bool timeseries = true;  ///< write timeseries.csv
  bool events = true;      ///< write events.csv

  bool operator==(const OutputConfig&) const = default;
};

struct Scenario {
  std::string name;  ///< letters, digits, '.', '_', '-'; names the default output directory
  std::string description;
  std::uint64_t seed = 1;  ///< root of every random stream of the run
  DataConfig data;
  ModelConfig model;
  OptimizerConfig optimizer;
  ClusterConfig cluster;
  ConsistencyConfig consistency;
  TimingConfig timing;
  EvaluationConfig evaluation;
  StopConfig stop;
  OutputConfig output;

  bool operator==(const Scenario&) const = default;
};

/// Reads and parses a scenario file. A missing or unreadable file, malformed JSON (with line and
/// column), a duplicate key and every invalid field are ScenarioError; `path` as given is the
/// file label of messages and relative paths inside resolve against its directory.
Scenario load_scenario(const std::string& path);

/// Parses scenario text (as load_scenario does after reading the file).
Scenario parse_scenario_text(const std::string& text, const std::string& file_label);

/// Validates and resolves a parsed JSON document. `file_label` names the file in messages, and
/// relative paths in the scenario resolve against its directory. Checks that the data directory
/// and the platform file exist; does not open them.
Scenario parse_scenario(const nlohmann::json& doc, const std::string& file_label);

/// The fully resolved scenario: every field written, defaults filled in, quantities as numbers
/// in base units, unset optional fields as null. parse_scenario() of it gives back an equal
/// Scenario.
nlohmann::json to_json(const Scenario& scenario);

/// Spellings of the enums as the format writes them (e.g. "fashion-mnist", "ssp").
std::string to_string(DatasetKind kind);
std::string to_string(ModelKind kind);
std::string to_string(ConsistencyMode mode);
std::string to_string(GradientCombine combine);

}  // namespace failsim::sim
