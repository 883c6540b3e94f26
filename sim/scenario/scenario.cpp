// Scenario parsing: one reader per section, in file order except that `recovery` comes before
// `cluster` and `failures` (its strategy decides how many server hosts there are, whether a
// storage host exists, and which targets a failure may hit, so those sections check against it
// as they are read), then the checks that involve several sections. Every default lives here, next
// to the read that applies it (and in the docs page and the schema, which the tests compare against
// this parser).
#include "sim/scenario/scenario.hpp"

#include <algorithm>
#include <climits>
#include <filesystem>

#include <fmt/format.h>

#include "input/json_input.hpp"
#include "input/object_reader.hpp"
#include "input/units.hpp"

namespace failsim::sim {
namespace fs = std::filesystem;
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<DatasetKind> DATASET_KINDS{{"fashion-mnist", DatasetKind::FASHION_MNIST},
                                         {"synthetic", DatasetKind::SYNTHETIC}};
const Choices<ModelKind> MODEL_KINDS{
    {"softmax", ModelKind::SOFTMAX}, {"mlp", ModelKind::MLP}, {"cnn", ModelKind::CNN}};
const Choices<ConsistencyMode> CONSISTENCY_MODES{{"sync", ConsistencyMode::SYNC},
                                                 {"ssp", ConsistencyMode::SSP},
                                                 {"async", ConsistencyMode::ASYNC}};
const Choices<GradientCombine> COMBINE_RULES{{"sum", GradientCombine::SUM},
                                             {"mean", GradientCombine::MEAN}};
const Choices<RecoveryStrategy> STRATEGIES{{"none", RecoveryStrategy::NONE},
                                           {"checkpoint", RecoveryStrategy::CHECKPOINT},
                                           {"chain", RecoveryStrategy::CHAIN},
                                           {"stateless", RecoveryStrategy::STATELESS},
                                           {"stateless_chain", RecoveryStrategy::STATELESS_CHAIN}};
const Choices<CheckpointLevelKind> LEVEL_KINDS{{"memory", CheckpointLevelKind::MEMORY},
                                               {"local-disk", CheckpointLevelKind::LOCAL_DISK},
                                               {"remote", CheckpointLevelKind::REMOTE},
                                               {"peer", CheckpointLevelKind::PEER}};
const Choices<PeerPlacement> PEER_PLACEMENTS{{"workers", PeerPlacement::WORKERS},
                                             {"servers", PeerPlacement::SERVERS}};
const Choices<models::StaleRule> STALE_RULES{
    {"paper", models::StaleRule::PAPER},
    {"sum", models::StaleRule::SUM},
    {"mean", models::StaleRule::MEAN},
    {"inverse_staleness", models::StaleRule::INVERSE_STALENESS},
    {"drop_stale", models::StaleRule::DROP_STALE}};
const Choices<FailureTarget> EVENT_TARGETS{
    {"server", FailureTarget::SERVER},           {"replica", FailureTarget::REPLICA},
    {"worker", FailureTarget::WORKER},           {"storage", FailureTarget::STORAGE},
    {"server_link", FailureTarget::SERVER_LINK}, {"worker_link", FailureTarget::WORKER_LINK}};
// A replica is a chain position "at that moment": random failures hit hosts, not positions.
const Choices<FailureTarget> STOCHASTIC_TARGETS{{"server", FailureTarget::SERVER},
                                                {"worker", FailureTarget::WORKER},
                                                {"storage", FailureTarget::STORAGE}};
const Choices<DistributionKind> DISTRIBUTIONS{{"exponential", DistributionKind::EXPONENTIAL},
                                              {"weibull", DistributionKind::WEIBULL},
                                              {"fixed", DistributionKind::FIXED}};

constexpr std::int64_t INT_LIMIT = INT_MAX;
const char* const DEFAULT_FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist";

int to_int(std::int64_t v) { return static_cast<int>(v); }

/// A path written in the scenario, made absolute against the scenario file's directory.
std::string resolve_path(const std::string& written, const std::string& file_label) {
  const fs::path p(written);
  if (p.is_absolute()) return p.lexically_normal().string();
  const fs::path base = fs::path(file_label).parent_path();
  return fs::absolute(base / p).lexically_normal().string();
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

DataConfig read_data(const ObjectReader& top, const std::string& file_label) {
  const ObjectReader r =
      top.object("data", {"kind", "dir", "train_limit", "test_limit", "num_classes", "dim",
                          "train_size", "test_size", "separation", "noise_sigma"});
  DataConfig d;
  d.kind = r.choice("kind", DATASET_KINDS);
  if (d.kind == DatasetKind::FASHION_MNIST) {
    for (const char* key :
         {"num_classes", "dim", "train_size", "test_size", "separation", "noise_sigma"}) {
      r.forbid(key, "it applies only to kind \"synthetic\"");
    }
    const std::string written = r.string_or("dir", DEFAULT_FASHION_MNIST_DIR);
    d.dir = resolve_path(written, file_label);
    if (!fs::is_directory(d.dir)) {
      const std::string found =
          r.has("dir") ? fmt::format("\"{}\" (resolved to {}, not a directory)", written, d.dir)
                       : fmt::format(
                             "nothing, and the default {} does not exist (install the "
                             "Debian package dataset-fashion-mnist)",
                             d.dir);
      r.at("dir").fail("an existing directory holding the Fashion-MNIST IDX files", found);
    }
    d.train_limit = to_int(r.integer_or("train_limit", 0, 0, INT_LIMIT));
    d.test_limit = to_int(r.integer_or("test_limit", 0, 0, INT_LIMIT));
  } else {
    r.forbid("dir", "it applies only to kind \"fashion-mnist\"");
    r.forbid("train_limit", "kind \"synthetic\" sets its size with train_size");
    r.forbid("test_limit", "kind \"synthetic\" sets its size with test_size");
    SyntheticData& s = d.synthetic;
    s.dim = to_int(r.integer_or("dim", s.dim, 1, INT_LIMIT));
    s.num_classes = to_int(r.integer_or("num_classes", s.num_classes, 2, INT_LIMIT));
    if (s.num_classes > s.dim) {
      r.at("num_classes")
          .fail(fmt::format("an integer in [2, dim = {}] (the class means are orthonormal "
                            "directions, so there are at most dim classes)",
                            s.dim),
                std::to_string(s.num_classes));
    }
    s.train_size = to_int(r.integer_or("train_size", s.train_size, 1, INT_LIMIT));
    s.test_size = to_int(r.integer_or("test_size", s.test_size, 1, INT_LIMIT));
    s.separation = r.number_or("separation", s.separation, Interval::non_negative());
    s.noise_sigma = r.number_or("noise_sigma", s.noise_sigma, Interval::positive());
  }
  return d;
}

ModelConfig read_model(const ObjectReader& top) {
  const ObjectReader r = top.object("model", {"kind", "hidden", "dropout"});
  ModelConfig m;
  m.kind = r.choice("kind", MODEL_KINDS);
  if (m.kind == ModelKind::MLP) {
    m.hidden = r.list("hidden", 1, "layer widths (integers >= 1)",
                      [](const nlohmann::json& v, const JsonLocation& where) {
                        return to_int(read_integer(v, where, 1, INT_LIMIT));
                      });
  } else {
    r.forbid("hidden", "it applies only to kind \"mlp\"");
  }
  if (m.kind == ModelKind::CNN) {
    m.dropout = r.number_or("dropout", m.dropout, Interval{0.0, 1.0, false, true});
  } else {
    r.forbid("dropout", "it applies only to kind \"cnn\"");
  }
  return m;
}

OptimizerConfig read_optimizer(const ObjectReader& top) {
  const ObjectReader r =
      top.object_or_empty("optimizer", {"learning_rate", "momentum", "weight_decay", "batch_size"});
  OptimizerConfig o;
  o.learning_rate = r.number_or("learning_rate", o.learning_rate, Interval::positive());
  o.momentum = r.number_or("momentum", o.momentum, Interval{0.0, 1.0, false, true});
  o.weight_decay = r.number_or("weight_decay", o.weight_decay, Interval::non_negative());
  o.batch_size = to_int(r.integer_or("batch_size", o.batch_size, 1, INT_LIMIT));
  return o;
}

std::vector<std::string> read_hosts(const ObjectReader& r) {
  return r.list(
      "hosts", 1, "host names of the platform file",
      [](const nlohmann::json& v, const JsonLocation& where) { return read_string(v, where); });
}

std::string quoted_name(RecoveryStrategy strategy) {
  // fmt rather than "\"" + std::string&&: GCC 12 warns falsely (-Wrestrict) on the latter.
  return fmt::format("\"{}\"", spelling_of(strategy, STRATEGIES));
}

bool uses_storage(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::CHECKPOINT || strategy == RecoveryStrategy::STATELESS ||
         strategy == RecoveryStrategy::STATELESS_CHAIN;
}

/// The strategies with a replica chain (one replica per server host after the head).
bool uses_chain(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::CHAIN || strategy == RecoveryStrategy::STATELESS_CHAIN;
}

/// The strategies whose workers talk to the external store (async only).
bool uses_store(RecoveryStrategy strategy) {
  return strategy == RecoveryStrategy::STATELESS || strategy == RecoveryStrategy::STATELESS_CHAIN;
}

/// Chain replication runs one replica per server host, so it needs two at least; multi-level
/// checkpointing runs one server and keeps the other hosts as spares (a replacement for a host
/// lost for good); every other strategy runs one parameter server, and a second host nothing
/// would use must not pass silently. Reported at the cluster field, naming the strategy that
/// decides.
void check_server_count(int count, const RecoveryConfig& recovery, const JsonLocation& where,
                        const std::string& found) {
  const RecoveryStrategy strategy = recovery.strategy;
  if (strategy == RecoveryStrategy::CHECKPOINT && !recovery.checkpoint.levels.empty()) return;
  if (uses_chain(strategy)) {
    if (count < 2) {
      where.fail(fmt::format("at least 2 servers (recovery strategy {} runs one replica per "
                             "server host)",
                             quoted_name(strategy)),
                 found);
    }
  } else if (count != 1) {
    where.fail(
        fmt::format("1 server (recovery strategy {} runs one parameter server; only "
                    "\"chain\", \"stateless_chain\" and multi-level \"checkpoint\" use several)",
                    quoted_name(strategy)),
        found);
  }
}

StorageConfig read_storage(const ObjectReader& cluster, ClusterKind kind,
                           RecoveryStrategy strategy) {
  StorageConfig st;
  if (!uses_storage(strategy)) {
    cluster.forbid("storage", fmt::format("the storage host serves only recovery strategies "
                                          "\"checkpoint\", \"stateless\" and "
                                          "\"stateless_chain\", not {}",
                                          quoted_name(strategy)));
    return st;
  }
  const ObjectReader r = cluster.object_or_empty("storage", {"host", "disk_read", "disk_write"});
  if (kind == ClusterKind::PLATFORM) {
    st.host = r.string("host");
  } else {
    r.forbid("host",
             "the built-in star has its own storage host; 'host' names a host of a "
             "platform file");
  }
  st.disk_read = r.quantity_or("disk_read", st.disk_read, Quantity::BANDWIDTH, Sign::POSITIVE);
  st.disk_write = r.quantity_or("disk_write", st.disk_write, Quantity::BANDWIDTH, Sign::POSITIVE);
  return st;
}

ClusterConfig read_cluster(const ObjectReader& top, const std::string& file_label,
                           const RecoveryConfig& recovery) {
  const RecoveryStrategy strategy = recovery.strategy;
  const ObjectReader r =
      top.object("cluster", {"platform", "workers", "servers", "network", "storage"});
  const ObjectReader workers = r.object("workers", {"count", "speed", "speeds", "hosts"});
  const ObjectReader servers = r.object("servers", {"count", "speed", "hosts", "shards"});
  ClusterConfig c;
  if (r.has("platform")) {
    c.kind = ClusterKind::PLATFORM;
    PlatformCluster& p = c.platform;
    const std::string written = r.string("platform");
    p.file = resolve_path(written, file_label);
    if (!fs::is_regular_file(p.file)) {
      r.at("platform")
          .fail("a SimGrid XML platform file (relative to the scenario file)",
                fmt::format("\"{}\" (resolved to {}, no such file)", written, p.file));
    }
    r.forbid("network", "a platform file describes its own links");
    const char* from_file = "with a platform file, list the hosts in 'hosts'";
    for (const char* key : {"count", "speed", "speeds"}) workers.forbid(key, from_file);
    for (const char* key : {"count", "speed"}) servers.forbid(key, from_file);
    p.worker_hosts = read_hosts(workers);
    p.server_hosts = read_hosts(servers);
    servers.forbid("shards", "sharded servers need the built-in star cluster");
    check_server_count(
        static_cast<int>(p.server_hosts.size()), recovery, servers.at("hosts"),
        fmt::format("{} host{}", p.server_hosts.size(), p.server_hosts.size() == 1 ? "" : "s"));
  } else {
    c.kind = ClusterKind::STAR;
    StarCluster& s = c.star;
    const char* star_only = "'hosts' needs a platform file in cluster.platform";
    workers.forbid("hosts", star_only);
    servers.forbid("hosts", star_only);
    const int count = to_int(workers.integer("count", 1, INT_LIMIT));
    if (workers.has("speed") && workers.has("speeds")) {
      workers.at("speeds").fail("either 'speed' (all workers) or 'speeds' (one per worker)",
                                "both 'speed' and 'speeds'");
    }
    if (workers.has("speeds")) {
      s.worker_speeds = workers.list(
          "speeds", 1, "compute speeds", [](const nlohmann::json& v, const JsonLocation& where) {
            return quantity_from_json(v, Quantity::SPEED, Sign::POSITIVE, where);
          });
      if (s.worker_speeds.size() != static_cast<std::size_t>(count)) {
        workers.at("speeds").fail(fmt::format("{} speeds, one per worker as 'count' says", count),
                                  fmt::format("{} speeds", s.worker_speeds.size()));
      }
    } else {
      const double speed = workers.quantity("speed", Quantity::SPEED, Sign::POSITIVE);
      s.worker_speeds.assign(static_cast<std::size_t>(count), speed);
    }
    s.servers = to_int(servers.integer_or("count", s.servers, 1, INT_LIMIT));
    check_server_count(s.servers, recovery, servers.at("count"),
                       servers.has("count") ? std::to_string(s.servers)
                                            : fmt::format("{} (the default)", s.servers));
    s.server_speed = servers.quantity("speed", Quantity::SPEED, Sign::POSITIVE);
    c.shards = to_int(servers.integer_or("shards", c.shards, 1, INT_LIMIT));
    const ObjectReader network = r.object_or_empty("network", {"bandwidth", "latency"});
    s.bandwidth =
        network.quantity_or("bandwidth", s.bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
    s.latency = network.quantity_or("latency", s.latency, Quantity::TIME, Sign::NON_NEGATIVE);
  }
  c.storage = read_storage(r, c.kind, strategy);
  const auto& levels = recovery.checkpoint.levels;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].kind != CheckpointLevelKind::PEER) continue;
    // A peer is another host than the server's: any worker's, or another server host.
    const bool on_workers = levels[i].placement == PeerPlacement::WORKERS;
    const int peers = on_workers ? c.num_workers() : c.num_servers() - 1;
    if (levels[i].copies > peers) {
      top.at("recovery")
          .child("checkpoint")
          .child("levels")
          .child(i)
          .child("copies")
          .fail(fmt::format("at most {} (the number of {} hosts of placement \"{}\")", peers,
                            on_workers ? "worker" : "other server",
                            on_workers ? "workers" : "servers"),
                std::to_string(levels[i].copies));
    }
  }
  if (c.kind == ClusterKind::PLATFORM) {
    // The local disks are built with the star's server hosts; a platform file's hosts are
    // sealed as the file describes them.
    for (std::size_t i = 0; i < levels.size(); ++i) {
      if (levels[i].kind != CheckpointLevelKind::LOCAL_DISK) continue;
      top.at("recovery")
          .child("checkpoint")
          .child("levels")
          .child(i)
          .child("kind")
          .fail(
              "\"memory\" or \"remote\" (a \"local-disk\" level needs the built-in star: "
              "with a platform file the server hosts have no modelled local disk)",
              "\"local-disk\"");
    }
  }
  return c;
}

ConsistencyConfig read_consistency(const ObjectReader& top) {
  const ObjectReader r = top.object("consistency", {"mode", "bound", "combine"});
  ConsistencyConfig c;
  c.mode = r.choice("mode", CONSISTENCY_MODES);
  if (c.mode == ConsistencyMode::SSP) {
    c.bound = to_int(r.integer("bound", 0, INT_LIMIT));
  } else {
    r.forbid("bound", "it applies only to mode \"ssp\"");
  }
  if (c.mode == ConsistencyMode::SYNC) {
    c.combine = r.choice_or("combine", c.combine, COMBINE_RULES);
  } else {
    r.forbid("combine", "it applies only to mode \"sync\"");
  }
  return c;
}

TimingConfig read_timing(const ObjectReader& top) {
  const ObjectReader r =
      top.object_or_empty("timing", {"flops_per_sample", "param_bytes", "server_evaluation"});
  TimingConfig t;
  t.flops_per_sample =
      r.optional_quantity("flops_per_sample", Quantity::FLOP_AMOUNT, Sign::POSITIVE);
  t.param_bytes = r.optional_quantity("param_bytes", Quantity::DATA_SIZE, Sign::POSITIVE);
  if (const nlohmann::json* v = r.find("server_evaluation"); v != nullptr && !v->is_null()) {
    const ObjectReader e = r.object("server_evaluation", {"every_updates", "flops"});
    ServerEvaluationConfig c;
    c.every_updates = to_int(e.integer("every_updates", 1, INT_LIMIT));
    c.flops = e.quantity("flops", Quantity::FLOP_AMOUNT, Sign::POSITIVE);
    t.server_evaluation = c;
  }
  return t;
}

EvaluationConfig read_evaluation(const ObjectReader& top) {
  const ObjectReader r = top.object_or_empty(
      "evaluation", {"interval", "every_updates", "test_subset", "final_full_test"});
  EvaluationConfig e;
  e.interval = r.quantity_or("interval", e.interval, Quantity::TIME, Sign::NON_NEGATIVE);
  e.every_updates = to_int(r.integer_or("every_updates", e.every_updates, 0, INT_LIMIT));
  e.test_subset = to_int(r.integer_or("test_subset", e.test_subset, 0, INT_LIMIT));
  e.final_full_test = r.boolean_or("final_full_test", e.final_full_test);
  return e;
}

StopConfig read_stop(const ObjectReader& top) {
  const ObjectReader r = top.object("stop", {"time", "updates", "target_accuracy", "version"});
  StopConfig s;
  s.time = r.optional_quantity("time", Quantity::TIME, Sign::POSITIVE);
  s.updates = r.optional_integer("updates", 1);
  s.target_accuracy = r.optional_number("target_accuracy", Interval{0.0, 1.0, true, false});
  s.version = r.optional_integer("version", 1);
  if (!s.time && !s.updates && !s.target_accuracy && !s.version) {
    r.location().fail("at least one of 'time', 'updates', 'target_accuracy', 'version'", "none");
  }
  return s;
}

std::string only_strategy(std::string_view strategy) {
  return fmt::format("it applies only to strategy \"{}\"", strategy);
}

CheckpointLevel read_checkpoint_level(const nlohmann::json& v, const JsonLocation& where) {
  const ObjectReader r(
      v, where,
      {"kind", "every_updates", "every_seconds", "disk_read", "disk_write", "copies", "placement"});
  CheckpointLevel l;
  l.kind = r.choice("kind", LEVEL_KINDS);
  l.every_updates = to_int(r.integer_or("every_updates", l.every_updates, 0, INT_LIMIT));
  l.every_seconds =
      r.quantity_or("every_seconds", l.every_seconds, Quantity::TIME, Sign::NON_NEGATIVE);
  if (l.every_updates == 0 && l.every_seconds == 0.0) {
    const bool written = r.has("every_updates") || r.has("every_seconds");
    r.location().fail("a level interval: 'every_updates' or 'every_seconds' > 0",
                      written ? "both 0" : "neither");
  }
  if (l.kind == CheckpointLevelKind::LOCAL_DISK) {
    l.disk_read = r.quantity_or("disk_read", l.disk_read, Quantity::BANDWIDTH, Sign::POSITIVE);
    l.disk_write = r.quantity_or("disk_write", l.disk_write, Quantity::BANDWIDTH, Sign::POSITIVE);
  } else {
    r.forbid("disk_read", "it applies only to level \"local-disk\"");
    r.forbid("disk_write", "it applies only to level \"local-disk\"");
  }
  if (l.kind == CheckpointLevelKind::PEER) {
    l.copies = to_int(r.integer_or("copies", l.copies, 1, INT_LIMIT));
    l.placement = r.choice_or("placement", l.placement, PEER_PLACEMENTS);
  } else {
    r.forbid("copies", "it applies only to level \"peer\"");
    r.forbid("placement", "it applies only to level \"peer\"");
  }
  return l;
}

/// Multi-level checkpoints: at least one level, at most one of each kind.
void read_checkpoint_levels(const ObjectReader& r, CheckpointConfig& c) {
  const char* why = "with 'levels', every level has its own interval and writes in the background";
  for (const char* key : {"every_updates", "every_seconds", "blocking"}) r.forbid(key, why);
  c.levels = r.list("levels", 1, "checkpoint levels (objects)", read_checkpoint_level);
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (c.levels[j].kind != c.levels[i].kind) continue;
      const std::string kind = spelling_of(c.levels[i].kind, LEVEL_KINDS);
      r.at("levels").child(i).child("kind").fail(
          fmt::format("at most one level of each kind (level {} is already \"{}\")", j, kind),
          fmt::format("\"{}\"", kind));
    }
  }
  c.memory_bandwidth =
      r.quantity_or("memory_bandwidth", c.memory_bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
}

CheckpointConfig read_checkpoint(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "checkpoint",
      {"every_updates", "every_seconds", "blocking", "levels", "memory_bandwidth", "elastic"});
  CheckpointConfig c;
  if (r.has("levels")) {
    r.forbid("elastic", "elastic resume re-shards single-level checkpoints only");
    read_checkpoint_levels(r, c);
    return c;
  }
  r.forbid("memory_bandwidth", "it applies only to multi-level checkpoints ('levels')");
  // Every 100 updates unless an interval is written: then the unwritten one is off, so
  // {"every_seconds": "30s"} means every 30 s and nothing else.
  const bool written = r.has("every_updates") || r.has("every_seconds");
  c.every_updates =
      to_int(r.integer_or("every_updates", written ? 0 : c.every_updates, 0, INT_LIMIT));
  c.every_seconds =
      r.quantity_or("every_seconds", c.every_seconds, Quantity::TIME, Sign::NON_NEGATIVE);
  if (c.every_updates == 0 && c.every_seconds == 0.0) {
    r.location().fail("a checkpoint interval: 'every_updates' or 'every_seconds' > 0", "both 0");
  }
  c.blocking = r.boolean_or("blocking", c.blocking);
  if (r.has("elastic")) {
    const ObjectReader elastic = r.object("elastic", {"patience"});
    c.elastic_patience = elastic.quantity("patience", Quantity::TIME, Sign::NON_NEGATIVE);
  }
  return c;
}

StatelessConfig read_stateless(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "stateless", {"rule", "paper_threshold", "paper_low_lr", "drop_bound"});
  StatelessConfig c;
  c.rule = r.choice_or("rule", c.rule, STALE_RULES);
  if (c.rule == models::StaleRule::PAPER) {
    c.paper_threshold = to_int(r.integer_or("paper_threshold", c.paper_threshold, 0, INT_LIMIT));
    c.paper_low_lr = r.number_or("paper_low_lr", c.paper_low_lr, Interval::positive());
  } else {
    r.forbid("paper_threshold", "it applies only to rule \"paper\"");
    r.forbid("paper_low_lr", "it applies only to rule \"paper\"");
  }
  if (c.rule == models::StaleRule::DROP_STALE) {
    c.drop_bound = to_int(r.integer("drop_bound", 0, INT_LIMIT));
  } else {
    r.forbid("drop_bound", "it applies only to rule \"drop_stale\"");
  }
  return c;
}

RecoveryConfig read_recovery(const ObjectReader& top) {
  RecoveryConfig c;
  if (!top.has("recovery")) return c;
  const ObjectReader r = top.object("recovery", {"strategy", "checkpoint", "chain", "stateless"});
  c.strategy = r.choice("strategy", STRATEGIES);
  if (c.strategy == RecoveryStrategy::CHECKPOINT) {
    c.checkpoint = read_checkpoint(r);
  } else {
    r.forbid("checkpoint", only_strategy("checkpoint"));
  }
  if (uses_chain(c.strategy)) {
    const ObjectReader chain = r.object_or_empty("chain", {"every_updates"});
    c.chain.every_updates =
        to_int(chain.integer_or("every_updates", c.chain.every_updates, 1, INT_LIMIT));
  } else {
    r.forbid("chain", "it applies only to strategies \"chain\" and \"stateless_chain\"");
  }
  if (uses_store(c.strategy)) {
    c.stateless = read_stateless(r);
  } else {
    r.forbid("stateless", "it applies only to strategies \"stateless\" and \"stateless_chain\"");
  }
  return c;
}

/// A target the strategy has: a replica is a chain position, and the storage host exists only
/// for the strategies that store something.
void check_target(FailureTarget target, RecoveryStrategy strategy, const JsonLocation& where,
                  const Choices<FailureTarget>& targets) {
  const bool bad_replica = target == FailureTarget::REPLICA && !uses_chain(strategy);
  const bool bad_storage = target == FailureTarget::STORAGE && !uses_storage(strategy);
  if (!bad_replica && !bad_storage) return;
  std::string allowed;
  for (const auto& [spelling, value] : targets) {
    if ((value == FailureTarget::REPLICA && !uses_chain(strategy)) ||
        (value == FailureTarget::STORAGE && !uses_storage(strategy))) {
      continue;
    }
    allowed += fmt::format("{}\"{}\"", allowed.empty() ? "" : ", ", spelling);
  }
  const char* why = bad_replica ? "a replica is a chain position of strategies \"chain\" and "
                                  "\"stateless_chain\""
                                : "the storage host exists only with strategies \"checkpoint\", "
                                  "\"stateless\" and \"stateless_chain\"";
  where.fail(
      fmt::format("a target of recovery strategy {}: {} ({})", quoted_name(strategy), allowed, why),
      fmt::format("\"{}\"", spelling_of(target, targets)));
}

/// The required index of a worker or a chain position, in [0, count).
int read_index(const ObjectReader& r, std::string_view noun, int count, std::string_view counted) {
  const std::string expected =
      fmt::format("{} in [0, {}] (the cluster has {} {})", noun, count - 1, count, counted);
  const std::int64_t i = read_integer(r.require("index", expected), r.at("index"), 0, INT_LIMIT);
  if (i >= count) r.at("index").fail(expected, std::to_string(i));
  return to_int(i);
}

/// A duration >= 0, or "forever" (nullopt).
std::optional<double> read_down_for(const ObjectReader& r) {
  const nlohmann::json* v = r.find("down_for");
  if (v == nullptr) return 0.0;
  if (v->is_string() && v->get_ref<const std::string&>() == "forever") return std::nullopt;
  try {
    return quantity_from_json(*v, Quantity::TIME, Sign::NON_NEGATIVE, r.at("down_for"));
  } catch (const InputError& e) {
    r.at("down_for").fail(e.expected() + ", or \"forever\" (the host never comes back)", e.found());
  }
}

FailureEvent read_failure_event(const nlohmann::json& v, const JsonLocation& where,
                                const ClusterConfig& cluster, RecoveryStrategy strategy) {
  const ObjectReader r(v, where, {"target", "index", "shard", "at", "at_update", "down_for"});
  FailureEvent e;
  e.target = r.choice("target", EVENT_TARGETS);
  check_target(e.target, strategy, r.at("target"), EVENT_TARGETS);
  if (e.target == FailureTarget::SERVER || e.target == FailureTarget::REPLICA ||
      e.target == FailureTarget::SERVER_LINK) {
    if (r.has("shard")) {
      const std::string expected = fmt::format(
          "a shard index in [0, {}] (cluster.servers.shards "
          "is {})",
          cluster.shards - 1, cluster.shards);
      const std::int64_t k = read_integer(*r.find("shard"), r.at("shard"), 0, INT_LIMIT);
      if (k >= cluster.shards) r.at("shard").fail(expected, std::to_string(k));
      e.shard = to_int(k);
    }
  } else {
    r.forbid("shard",
             "only targets \"server\", \"replica\" and \"server_link\" belong to a "
             "shard");
  }
  if (e.target == FailureTarget::WORKER || e.target == FailureTarget::WORKER_LINK) {
    e.index = read_index(r, "a worker index", cluster.num_workers(), "workers");
  } else if (e.target == FailureTarget::REPLICA) {
    e.index = read_index(r, "a chain position (0 = head)", cluster.num_servers(), "servers");
  } else {
    r.forbid("index", e.target == FailureTarget::STORAGE ? "there is one storage host"
                      : e.target == FailureTarget::SERVER
                          ? "target \"server\" is whichever server is the primary at that moment"
                          : "target \"server_link\" is the link of the primary at that moment");
  }
  if (r.has("at") && r.has("at_update")) {
    r.at("at_update")
        .fail("either 'at' (a time) or 'at_update' (an update count)", "both 'at' and 'at_update'");
  }
  if (r.has("at")) {
    e.at_time = r.quantity("at", Quantity::TIME, Sign::NON_NEGATIVE);
  } else if (r.has("at_update")) {
    e.at_update = r.integer("at_update", 1);
  } else {
    r.location().fail("'at' (a time) or 'at_update' (an update count): when the failure happens",
                      "neither");
  }
  e.down_for = read_down_for(r);
  return e;
}

Distribution read_distribution(const ObjectReader& parent, std::string_view key, Sign fixed_sign) {
  const ObjectReader r = parent.object(key, {"distribution", "mean", "shape", "scale", "value"});
  Distribution d;
  d.kind = r.choice("distribution", DISTRIBUTIONS);
  const char* only_exponential = "it applies only to distribution \"exponential\"";
  const char* only_weibull = "it applies only to distribution \"weibull\"";
  const char* only_fixed = "it applies only to distribution \"fixed\"";
  switch (d.kind) {
    case DistributionKind::EXPONENTIAL:
      for (const char* k : {"shape", "scale"}) r.forbid(k, only_weibull);
      r.forbid("value", only_fixed);
      d.value = r.quantity("mean", Quantity::TIME, Sign::POSITIVE);
      break;
    case DistributionKind::WEIBULL:
      r.forbid("mean", only_exponential);
      r.forbid("value", only_fixed);
      d.shape = r.number("shape", Interval::positive());
      d.value = r.quantity("scale", Quantity::TIME, Sign::POSITIVE);
      break;
    case DistributionKind::FIXED:
      r.forbid("mean", only_exponential);
      for (const char* k : {"shape", "scale"}) r.forbid(k, only_weibull);
      d.value = r.quantity("value", Quantity::TIME, fixed_sign);
      break;
  }
  return d;
}

StochasticFailures read_stochastic(const nlohmann::json& v, const JsonLocation& where,
                                   RecoveryStrategy strategy) {
  const ObjectReader r(v, where, {"target", "lifetime", "repair"});
  StochasticFailures f;
  f.target = r.choice("target", STOCHASTIC_TARGETS);
  check_target(f.target, strategy, r.at("target"), STOCHASTIC_TARGETS);
  // A lifetime of 0 would fail a process again the instant it is repaired; a repair of 0 is
  // a process crash on a host that stays up.
  f.lifetime = read_distribution(r, "lifetime", Sign::POSITIVE);
  f.repair = read_distribution(r, "repair", Sign::NON_NEGATIVE);
  return f;
}

FailureConfig read_failures(const ObjectReader& top, const ClusterConfig& cluster,
                            RecoveryStrategy strategy) {
  const ObjectReader r = top.object_or_empty(
      "failures",
      {"detection_timeout", "restart_delay", "request_timeout", "events", "stochastic"});
  FailureConfig f;
  f.detection_timeout =
      r.quantity_or("detection_timeout", f.detection_timeout, Quantity::TIME, Sign::POSITIVE);
  f.restart_delay =
      r.quantity_or("restart_delay", f.restart_delay, Quantity::TIME, Sign::NON_NEGATIVE);
  f.request_timeout =
      r.quantity_or("request_timeout", f.request_timeout, Quantity::TIME, Sign::POSITIVE);
  if (r.has("events")) {
    f.events = r.list("events", 0, "failure events (objects)",
                      [&](const nlohmann::json& v, const JsonLocation& where) {
                        return read_failure_event(v, where, cluster, strategy);
                      });
  }
  if (r.has("stochastic")) {
    f.stochastic = r.list("stochastic", 0, "stochastic failure processes (objects)",
                          [&](const nlohmann::json& v, const JsonLocation& where) {
                            return read_stochastic(v, where, strategy);
                          });
  }
  // Two processes for one role would be one process with the shorter lifetime and an
  // ambiguous repair: one entry per target.
  for (std::size_t i = 0; i < f.stochastic.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (f.stochastic[i].target != f.stochastic[j].target) continue;
      const std::string target = spelling_of(f.stochastic[i].target, STOCHASTIC_TARGETS);
      r.at("stochastic")
          .child(i)
          .child("target")
          .fail(fmt::format("at most one entry per target (entry {} is already \"{}\")", j, target),
                "\"" + target + "\"");
    }
  }
  return f;
}

OutputConfig read_output(const ObjectReader& top, const std::string& name) {
  const ObjectReader r = top.object_or_empty("output", {"directory", "timeseries", "events"});
  OutputConfig o;
  o.directory = r.string_or("directory", "results/" + name);
  o.timeseries = r.boolean_or("timeseries", o.timeseries);
  o.events = r.boolean_or("events", o.events);
  return o;
}

/// Checks between sections, each reported at the field a user would change.
void check_consistency_between_sections(const Scenario& s, const JsonLocation& root) {
  if (s.model.kind == ModelKind::CNN && s.data.kind != DatasetKind::FASHION_MNIST) {
    root.child("model").child("kind").fail(
        "\"softmax\" or \"mlp\" with synthetic data (the CNN needs 28x28 images: use data kind "
        "\"fashion-mnist\")",
        "\"cnn\"");
  }

  const bool synthetic = s.data.kind == DatasetKind::SYNTHETIC;
  const int train_size = synthetic ? s.data.synthetic.train_size : s.data.train_limit;
  const int workers = s.cluster.num_workers();
  if (train_size > 0 && train_size < workers) {
    const JsonLocation where = synthetic ? root.child("data").child("train_size")
                                         : root.child("data").child("train_limit");
    where.fail(fmt::format("at least one training sample per worker ({} workers)", workers),
               std::to_string(train_size));
  }
  const int test_size = synthetic ? s.data.synthetic.test_size : s.data.test_limit;
  if (test_size > 0 && s.evaluation.test_subset > test_size) {
    root.child("evaluation")
        .child("test_subset")
        .fail(fmt::format("at most the {} test samples of the data set (0 = all)", test_size),
              std::to_string(s.evaluation.test_subset));
  }

  // What the simulation does not do yet is refused here rather than crashing a run later.
  const bool has_failures = !s.failures.events.empty() || !s.failures.stochastic.empty();
  if (s.cluster.kind == ClusterKind::PLATFORM &&
      (has_failures || s.recovery.strategy != RecoveryStrategy::NONE)) {
    root.child("cluster")
        .child("platform")
        .fail(
            "the built-in star cluster when there are failures or a recovery strategy (the "
            "coordination service and the storage host need links of their own; platform files "
            "do not support them yet)",
            fmt::format("\"{}\"", s.cluster.platform.file));
  }
  for (std::size_t i = 0; i < s.failures.events.size(); ++i) {
    const bool stores_state = uses_storage(s.recovery.strategy);
    if (s.failures.events[i].target == FailureTarget::SERVER_LINK && stores_state) {
      // Their servers' blocking transfers to the storage host do not survive a dead link yet.
      root.child("failures")
          .child("events")
          .child(i)
          .child("target")
          .fail(
              fmt::format("a target other than \"server_link\" with recovery strategy {} (a server "
                          "link failure is simulated with strategies \"none\" and \"chain\" only)",
                          quoted_name(s.recovery.strategy)),
              "\"server_link\"");
    }
    if (s.failures.events[i].target == FailureTarget::STORAGE) {
      root.child("failures")
          .child("events")
          .child(i)
          .child("target")
          .fail("\"server\", \"replica\" or \"worker\" (storage failures are not simulated yet)",
                "\"storage\"");
    }
  }
  for (std::size_t i = 0; i < s.failures.stochastic.size(); ++i) {
    if (s.failures.stochastic[i].target == FailureTarget::STORAGE) {
      root.child("failures")
          .child("stochastic")
          .child(i)
          .child("target")
          .fail("\"server\" or \"worker\" (storage failures are not simulated yet)", "\"storage\"");
    }
  }
  if (uses_store(s.recovery.strategy) && s.consistency.mode != ConsistencyMode::ASYNC) {
    root.child("consistency")
        .child("mode")
        .fail(fmt::format("\"async\" with recovery strategy {} (its store applies whatever is "
                          "pending, as the study's stateless server did)",
                          quoted_name(s.recovery.strategy)),
              fmt::format("\"{}\"", to_string(s.consistency.mode)));
  }
  if (has_failures && !s.stop.time) {
    root.child("stop").child("time").fail(
        "a stop time when there are failures (a failure can make any other stop condition "
        "unreachable)",
        "nothing");
  }

  if (s.timing.server_evaluation) {
    // A server evaluates the whole model; a shard's server holds a slice of it.
    const auto where = root.child("timing").child("server_evaluation");
    if (s.cluster.shards != 1) {
      where.fail("one server shard", fmt::format("cluster.servers.shards = {}", s.cluster.shards));
    }
    if (s.recovery.checkpoint.elastic_patience) {
      where.fail("one server shard, so no elastic resume (it re-shards)",
                 "recovery.checkpoint.elastic");
    }
  }

  if (s.stop.target_accuracy && s.evaluation.interval == 0.0 && s.evaluation.every_updates == 0) {
    root.child("stop")
        .child("target_accuracy")
        .fail(
            "a target only with an evaluation schedule (evaluation.interval or "
            "evaluation.every_updates > 0) to detect it",
            fmt::format("{}", *s.stop.target_accuracy));
  }
}

nlohmann::json optional_to_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json distribution_to_json(const Distribution& d) {
  nlohmann::json out{{"distribution", spelling_of(d.kind, DISTRIBUTIONS)}};
  switch (d.kind) {
    case DistributionKind::EXPONENTIAL:
      out["mean"] = d.value;
      break;
    case DistributionKind::WEIBULL:
      out["shape"] = d.shape;
      out["scale"] = d.value;
      break;
    case DistributionKind::FIXED:
      out["value"] = d.value;
      break;
  }
  return out;
}

nlohmann::json failures_to_json(const FailureConfig& f) {
  using nlohmann::json;
  json events = json::array();
  for (const FailureEvent& e : f.events) {
    json event{{"target", spelling_of(e.target, EVENT_TARGETS)}};
    if (e.target == FailureTarget::WORKER || e.target == FailureTarget::REPLICA) {
      event["index"] = e.index;
    }
    if (e.shard != 0) event["shard"] = e.shard;
    if (e.at_time) {
      event["at"] = *e.at_time;
    } else if (e.at_update) {
      event["at_update"] = *e.at_update;
    }
    event["down_for"] = e.down_for ? json(*e.down_for) : json("forever");
    events.push_back(event);
  }
  json stochastic = json::array();
  for (const StochasticFailures& p : f.stochastic) {
    stochastic.push_back({{"target", spelling_of(p.target, STOCHASTIC_TARGETS)},
                          {"lifetime", distribution_to_json(p.lifetime)},
                          {"repair", distribution_to_json(p.repair)}});
  }
  return json{{"detection_timeout", f.detection_timeout},
              {"restart_delay", f.restart_delay},
              {"request_timeout", f.request_timeout},
              {"events", events},
              {"stochastic", stochastic}};
}

nlohmann::json recovery_to_json(const RecoveryConfig& r) {
  nlohmann::json out{{"strategy", spelling_of(r.strategy, STRATEGIES)}};
  switch (r.strategy) {
    case RecoveryStrategy::NONE:
      break;
    case RecoveryStrategy::CHECKPOINT:
      if (r.checkpoint.levels.empty()) {
        out["checkpoint"] = {{"every_updates", r.checkpoint.every_updates},
                             {"every_seconds", r.checkpoint.every_seconds},
                             {"blocking", r.checkpoint.blocking}};
        if (r.checkpoint.elastic_patience)
          out["checkpoint"]["elastic"] = {{"patience", *r.checkpoint.elastic_patience}};
        break;
      }
      out["checkpoint"] = {{"levels", nlohmann::json::array()},
                           {"memory_bandwidth", r.checkpoint.memory_bandwidth}};
      for (const CheckpointLevel& l : r.checkpoint.levels) {
        nlohmann::json level{{"kind", spelling_of(l.kind, LEVEL_KINDS)},
                             {"every_updates", l.every_updates},
                             {"every_seconds", l.every_seconds}};
        if (l.kind == CheckpointLevelKind::LOCAL_DISK) {
          level["disk_read"] = l.disk_read;
          level["disk_write"] = l.disk_write;
        }
        if (l.kind == CheckpointLevelKind::PEER) {
          level["copies"] = l.copies;
          level["placement"] = spelling_of(l.placement, PEER_PLACEMENTS);
        }
        out["checkpoint"]["levels"].push_back(level);
      }
      break;
    case RecoveryStrategy::CHAIN:
      out["chain"] = {{"every_updates", r.chain.every_updates}};
      break;
    case RecoveryStrategy::STATELESS:
    case RecoveryStrategy::STATELESS_CHAIN: {
      if (r.strategy == RecoveryStrategy::STATELESS_CHAIN)
        out["chain"] = {{"every_updates", r.chain.every_updates}};
      const StatelessConfig& st = r.stateless;
      nlohmann::json stateless{{"rule", spelling_of(st.rule, STALE_RULES)}};
      if (st.rule == models::StaleRule::PAPER) {
        stateless["paper_threshold"] = st.paper_threshold;
        stateless["paper_low_lr"] = st.paper_low_lr;
      }
      if (st.rule == models::StaleRule::DROP_STALE) stateless["drop_bound"] = st.drop_bound;
      out["stateless"] = stateless;
      break;
    }
  }
  return out;
}

}  // namespace

int ClusterConfig::num_workers() const {
  return static_cast<int>(kind == ClusterKind::STAR ? star.worker_speeds.size()
                                                    : platform.worker_hosts.size());
}

int ClusterConfig::num_servers() const {
  return kind == ClusterKind::STAR ? star.servers : static_cast<int>(platform.server_hosts.size());
}

bool is_valid_name(const std::string& name) { return valid_name(name); }

std::string to_string(DatasetKind kind) { return spelling_of(kind, DATASET_KINDS); }
std::string to_string(ModelKind kind) { return spelling_of(kind, MODEL_KINDS); }
std::string to_string(ConsistencyMode mode) { return spelling_of(mode, CONSISTENCY_MODES); }
std::string to_string(GradientCombine combine) { return spelling_of(combine, COMBINE_RULES); }

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file_label) {
  const JsonLocation root{file_label, ""};
  const ObjectReader top(
      doc, root,
      {"$schema", "name", "description", "seed", "data", "model", "optimizer", "cluster",
       "consistency", "timing", "evaluation", "stop", "failures", "recovery", "output"});
  // "$schema" points editors at scenarios/schema.json; it does not change the run.
  top.string_or("$schema", "");

  Scenario s;
  s.name = top.string("name");
  if (!valid_name(s.name)) {
    top.at("name").fail(
        "a name of letters, digits, '.', '_' and '-', not starting with '.' or '-' (it names "
        "the default output directory)",
        describe_found(doc.at("name")));
  }
  if (const nlohmann::json* d = top.find("description")) {
    if (!d->is_string()) top.at("description").fail("a string", describe_found(*d));
    s.description = d->get<std::string>();
  }
  s.seed = top.uint64_or("seed", s.seed);
  s.data = read_data(top, file_label);
  s.model = read_model(top);
  s.optimizer = read_optimizer(top);
  // The strategy before the cluster and the failures: it decides how many server hosts there
  // are, whether there is a storage host, and which targets a failure may hit.
  s.recovery = read_recovery(top);
  s.cluster = read_cluster(top, file_label, s.recovery);
  s.consistency = read_consistency(top);
  s.timing = read_timing(top);
  s.evaluation = read_evaluation(top);
  s.stop = read_stop(top);
  s.failures = read_failures(top, s.cluster, s.recovery.strategy);
  s.output = read_output(top, s.name);
  check_consistency_between_sections(s, root);
  return s;
}

Scenario parse_scenario_text(const std::string& text, const std::string& file_label) {
  return parse_scenario(parse_json_text(text, file_label), file_label);
}

Scenario load_scenario(const std::string& path) {
  return parse_scenario_text(read_input_file(path, "a readable scenario file"), path);
}

nlohmann::json to_json(const Scenario& s) {
  using nlohmann::json;
  json data{{"kind", to_string(s.data.kind)}};
  if (s.data.kind == DatasetKind::FASHION_MNIST) {
    data["dir"] = s.data.dir;
    data["train_limit"] = s.data.train_limit;
    data["test_limit"] = s.data.test_limit;
  } else {
    const SyntheticData& syn = s.data.synthetic;
    data["num_classes"] = syn.num_classes;
    data["dim"] = syn.dim;
    data["train_size"] = syn.train_size;
    data["test_size"] = syn.test_size;
    data["separation"] = syn.separation;
    data["noise_sigma"] = syn.noise_sigma;
  }

  json model{{"kind", to_string(s.model.kind)}};
  if (s.model.kind == ModelKind::MLP) model["hidden"] = s.model.hidden;
  if (s.model.kind == ModelKind::CNN) model["dropout"] = s.model.dropout;

  json cluster;
  if (s.cluster.kind == ClusterKind::PLATFORM) {
    cluster["platform"] = s.cluster.platform.file;
    cluster["servers"] = {{"hosts", s.cluster.platform.server_hosts}};
    cluster["workers"] = {{"hosts", s.cluster.platform.worker_hosts}};
  } else {
    const StarCluster& star = s.cluster.star;
    json workers{{"count", star.worker_speeds.size()}};
    const bool uniform = std::adjacent_find(star.worker_speeds.begin(), star.worker_speeds.end(),
                                            std::not_equal_to<>()) == star.worker_speeds.end();
    if (uniform) {
      workers["speed"] = star.worker_speeds.front();
    } else {
      workers["speeds"] = star.worker_speeds;
    }
    cluster["workers"] = workers;
    cluster["servers"] = {{"count", star.servers}, {"speed", star.server_speed}};
    if (s.cluster.shards != 1) cluster["servers"]["shards"] = s.cluster.shards;
    cluster["network"] = {{"bandwidth", star.bandwidth}, {"latency", star.latency}};
  }
  if (uses_storage(s.recovery.strategy)) {
    json storage{{"disk_read", s.cluster.storage.disk_read},
                 {"disk_write", s.cluster.storage.disk_write}};
    if (s.cluster.kind == ClusterKind::PLATFORM) storage["host"] = s.cluster.storage.host;
    cluster["storage"] = storage;
  }

  json consistency{{"mode", to_string(s.consistency.mode)}};
  if (s.consistency.mode == ConsistencyMode::SSP) consistency["bound"] = s.consistency.bound;
  if (s.consistency.mode == ConsistencyMode::SYNC) {
    consistency["combine"] = to_string(s.consistency.combine);
  }

  return json{
      {"name", s.name},
      {"description", s.description},
      {"seed", s.seed},
      {"data", data},
      {"model", model},
      {"optimizer",
       {{"learning_rate", s.optimizer.learning_rate},
        {"momentum", s.optimizer.momentum},
        {"weight_decay", s.optimizer.weight_decay},
        {"batch_size", s.optimizer.batch_size}}},
      {"cluster", cluster},
      {"consistency", consistency},
      {"timing",
       {{"flops_per_sample", optional_to_json(s.timing.flops_per_sample)},
        {"param_bytes", optional_to_json(s.timing.param_bytes)},
        {"server_evaluation",
         s.timing.server_evaluation
             ? json{{"every_updates", s.timing.server_evaluation->every_updates},
                    {"flops", s.timing.server_evaluation->flops}}
             : json(nullptr)}}},
      {"evaluation",
       {{"interval", s.evaluation.interval},
        {"every_updates", s.evaluation.every_updates},
        {"test_subset", s.evaluation.test_subset},
        {"final_full_test", s.evaluation.final_full_test}}},
      {"stop",
       {{"time", optional_to_json(s.stop.time)},
        {"updates", s.stop.updates ? json(*s.stop.updates) : json(nullptr)},
        {"target_accuracy", optional_to_json(s.stop.target_accuracy)},
        {"version", s.stop.version ? json(*s.stop.version) : json(nullptr)}}},
      {"failures", failures_to_json(s.failures)},
      {"recovery", recovery_to_json(s.recovery)},
      {"output",
       {{"directory", s.output.directory},
        {"timeseries", s.output.timeseries},
        {"events", s.output.events}}},
  };
}

}  // namespace failsim::sim
