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
// Adding a section: add its struct here, a member to Scenario, its reader and writer in
// sim/scenario/<section>.cpp (declared in sections.hpp, called by document.cpp), its properties in
// scenarios/schema.json and its table in docs/scenario-format.md; the schema test in
// tests/test_scenario.cpp fails until the parser, the schema and the docs agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/input_error.hpp"
#include "models/fashion_mnist.hpp"
#include "models/fortunes.hpp"
#include "models/model_kind.hpp"
#include "sim/scenario/collective/config.hpp"
#include "sim/scenario/distribution.hpp"
#include "sim/scenario/limits.hpp"
#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

/// Fashion-MNIST's images, Gaussian blobs, or windows of byte tokens of a text corpus
/// (models/text_corpus.hpp: by default Debian's fortunes, models/fortunes.hpp), the transformer's
/// data.
enum class DatasetKind { FASHION_MNIST, SYNTHETIC, TEXT };

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
  /// FASHION_MNIST: absolute path of the directory holding the four IDX files. TEXT: of the
  /// corpus (`corpus` in the format; default models::FORTUNES_DIR). The windows' length is the
  /// model's: model.transformer.sequence + 1 tokens.
  std::string dir = models::FASHION_MNIST_DIR;
  /// SYNTHETIC: its parameters.
  SyntheticData synthetic;
  /// FASHION_MNIST, TEXT: use only the first N training / test samples (text: windows); 0 = all.
  int train_limit = 0;
  int test_limit = 0;

  bool operator==(const DataConfig&) const = default;
};

/// The model kinds and a model's description are the model library's own vocabulary
/// (models/model_kind.hpp): the `model` section reads straight into a models::ModelSpec.
using models::ModelKind;
using models::ModelSpec;

enum class OptimizerKind { SGD, ADAMW };

/// SGD with optional momentum and L2 weight decay (models/sgd.hpp), or AdamW with a warm-up, a
/// cosine decay and gradient clipping (models/adamw.hpp). The defaults here are SGD's; the
/// reader gives AdamW's (models::AdamWConfig) to an "adamw" section.
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::SGD;
  double learning_rate = 0.01;    ///< > 0; AdamW: the peak
  double momentum = 0.0;          ///< SGD only: in [0, 1)
  double weight_decay = 0.0;      ///< >= 0; SGD: L2, AdamW: decoupled
  int batch_size = 32;            ///< samples per gradient, >= 1
  double beta1 = 0.9;             ///< AdamW only: in [0, 1)
  double beta2 = 0.95;            ///< AdamW only: in [0, 1)
  double eps = 1e-8;              ///< AdamW only: > 0
  std::int64_t warmup_steps = 0;  ///< AdamW only: >= 0
  std::int64_t decay_steps = 0;   ///< AdamW only: 0 (no decay) or > warmup_steps
  double min_lr_ratio = 0.1;      ///< AdamW only: in [0, 1]
  double clip_norm = 1.0;         ///< AdamW only: >= 0 (0: no clipping)

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
/// simulation (it loads the platform); it reports an unknown name as a InputError at
/// /cluster/servers/hosts/<i> or /cluster/workers/hosts/<i>. A host may appear several times
/// (actors then share its CPU, as in the study's single machine).
struct PlatformCluster {
  std::string file;  ///< absolute path (written relative to the scenario file)
  std::vector<std::string> server_hosts;
  std::vector<std::string> worker_hosts;

  bool operator==(const PlatformCluster&) const = default;
};

/// The storage host: checkpoint storage (its disk) and the stateless strategy's external store
/// (its memory). Star: a host "storage" with a link like every other host. Platform file: the
/// host named `host`. Its disk is modelled by read and write bandwidths.
struct StorageConfig {
  std::string host;           ///< PLATFORM only: a host of the platform file
  double disk_read = 500e6;   ///< bytes/s
  double disk_write = 200e6;  ///< bytes/s

  bool operator==(const StorageConfig&) const = default;
};

struct ClusterConfig {
  ClusterKind kind = ClusterKind::STAR;
  StarCluster star;          ///< meaningful when kind == STAR
  PlatformCluster platform;  ///< meaningful when kind == PLATFORM
  StorageConfig storage;
  /// Parameter server shards (docs/strategies.md, "Sharded servers"): the parameters are split
  /// over `shards` servers, each with its own server hosts (star: `star.servers` hosts per
  /// shard). Star only.
  int shards = 1;

  int num_workers() const;
  /// Server hosts of one shard (the chain's length, the spares of multi-level checkpoints).
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

/// A server that evaluates inside its loop, as the study's did: after every `every_updates`-th
/// update it computes `flops` on its CPU before it serves anything else.
struct ServerEvaluationConfig {
  int every_updates = 0;  ///< >= 1
  double flops = 0.0;     ///< > 0

  bool operator==(const ServerEvaluationConfig&) const = default;
};

/// Overrides of the time model; nullopt means "derive from the real model" (its
/// train_flops_per_sample() and param_bytes()), and the server's own evaluations cost nothing.
struct TimingConfig {
  std::optional<double> flops_per_sample;  ///< flops of one training sample (fwd + bwd)
  std::optional<double> param_bytes;       ///< bytes of a parameter or gradient message
  std::optional<ServerEvaluationConfig> server_evaluation;  ///< none: evaluation costs nothing

  bool operator==(const TimingConfig&) const = default;
};

/// When test accuracy is measured (an observer: costs no simulated time; a server's own
/// evaluations, which do, are timing.server_evaluation).
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
  /// The parameters' version (updates applied and not rolled back), >= 1: a fixed amount of
  /// useful work even when failures roll updates back, which `updates` counts.
  std::optional<std::int64_t> version;

  bool operator==(const StopConfig&) const = default;
};

/// What a failure hits. SERVER is whichever server process is the primary at that moment
/// (the chain's head); REPLICA is a chain position (0 = head ... N-1 = tail) at that moment;
/// WORKER a worker by index; STORAGE the checkpoint storage / external store host.
/// SERVER_LINK and WORKER_LINK are the network link of the primary's host or of a worker's
/// host: no process dies, but nothing crosses the link while it is down.
enum class FailureTarget { SERVER, REPLICA, WORKER, STORAGE, SERVER_LINK, WORKER_LINK };

/// One scheduled failure: the target's process dies at `at_time` (or right after the server
/// (of shard `shard`) applies update `at_update`; exactly one of the two is set) and its host stays
/// down for `down_for` seconds (0: a process crash, the host stays usable; nullopt: for good).
struct FailureEvent {
  FailureTarget target = FailureTarget::SERVER;
  int index = 0;  ///< WORKER: worker index; REPLICA: chain position; otherwise 0
  std::optional<double> at_time;
  std::optional<std::int64_t> at_update;
  std::optional<double> down_for = 0.0;
  /// SERVER, REPLICA, SERVER_LINK: the shard whose server it hits (0 without shards). An
  /// `at_update` counts that shard's updates (of shard 0 for the other targets).
  int shard = 0;

  bool operator==(const FailureEvent&) const = default;
};

/// Random failures of every process of a role: each has independent lifetimes drawn from
/// `lifetime` (time from start or repair to the next failure) and downtimes from `repair`,
/// all from the scenario seed.
struct StochasticFailures {
  FailureTarget target = FailureTarget::WORKER;  ///< SERVER (every server host), WORKER or STORAGE
  Distribution lifetime;
  Distribution repair;

  bool operator==(const StochasticFailures&) const = default;
};

struct FailureConfig {
  /// A failure is noticed this long after it happens (heartbeat / coordination-service session
  /// timeout). > 0.
  double detection_timeout = 5.0;
  /// From detection to a replacement process being up (the study: about 20 s in all). >= 0.
  double restart_delay = 15.0;
  /// A worker's request (pull or push) to a server gives up after this long; it then asks the
  /// coordination service where the server is now and retries. > 0.
  double request_timeout = 1.0;
  std::vector<FailureEvent> events;
  std::vector<StochasticFailures> stochastic;
  /// A scheduled event the stop may come before (its `at` at or after stop.time, its `at_update`
  /// above stop.updates): refused, unless the scenario allows it ("after_stop": "record"); such
  /// an event that the stop beats is then recorded as `failure_not_injected`. Either way, every
  /// scheduled event a run does not reach is recorded so.
  bool record_after_stop = false;

  bool operator==(const FailureConfig&) const = default;
};

struct OutputConfig {
  /// Result directory, relative to the working directory (not to the scenario file); the CLI's
  /// -o overrides it. Default: results/<name>.
  std::string directory;
  bool timeseries = true;  ///< write timeseries.csv
  bool events = true;      ///< write events.csv
  bool intervals = false;  ///< record every host's intervals and write intervals.csv
  /// Bytes the result may take at most (collective runs: its estimate is checked before the
  /// run, sim/scenario/collective/work.hpp); unset: DEFAULT_MAX_RESULT_BYTES, 1 GiB.
  std::optional<double> max_size;

  bool operator==(const OutputConfig&) const = default;
};

/// Which training protocol the scenario runs: the parameter server's (cluster, consistency,
/// timing, recovery strategies of sim/ps/recovery/<name>/) or synchronous collectives over
/// accelerators in a dp x tp x pp layout (`collective`, sim/scenario/collective/config.hpp).
enum class Protocol { PARAMETER_SERVER, COLLECTIVE };

struct Scenario {
  Protocol protocol = Protocol::PARAMETER_SERVER;
  std::string name;  ///< letters, digits, '.', '_', '-'; names the default output directory
  std::string description;
  std::uint64_t seed = 1;  ///< root of every random stream of the run
  DataConfig data;
  ModelSpec model;
  OptimizerConfig optimizer;
  ClusterConfig cluster;
  ConsistencyConfig consistency;
  TimingConfig timing;
  EvaluationConfig evaluation;
  StopConfig stop;
  FailureConfig failures;
  RecoveryConfig recovery;
  OutputConfig output;
  /// COLLECTIVE only: the platform, layout, workload, failures and recovery of the job (the
  /// parameter server's cluster, consistency, timing, failures and recovery then keep their
  /// defaults and are not written).
  CollectiveConfig collective;

  bool operator==(const Scenario&) const = default;
};

/// Whether `name` is a valid scenario name: letters, digits, '.', '_' and '-', not starting
/// with '.' or '-', at most MAX_NAME_BYTES long (it names a directory). Sweep files name their
/// points with the same rule.
bool is_valid_name(const std::string& name);

/// Reads and parses a scenario file. A missing or unreadable file, malformed JSON (with line and
/// column), a duplicate key and every invalid field are InputError; `path` as given is the
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
std::string to_string(OptimizerKind kind);
std::string to_string(ConsistencyMode mode);
std::string to_string(GradientCombine combine);
std::string to_string(FailureTarget target);

}  // namespace failsim::sim
