// The collective protocol's scenario (`"protocol": "collective"`, docs/cluster.md): ranks on
// accelerator nodes in a dp x tp x pp layout, each step made of compute, tensor-parallel
// all-reduces inside a node, pipeline sends between stages and the data-parallel gradient
// collective, on a cluster of nodes joined by a fat-tree and sharing a parallel file system.
// The sections shared with the parameter-server protocol (data, model, optimizer, evaluation,
// stop, output) keep their structs in scenario.hpp; this header holds the collective's own:
// platform, layout, workload, failures and recovery. Engine-free, like the whole scenario.
//
// Units of every double: seconds, bytes, bytes per second, flop/s, flops.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "input/fault_log.hpp"
#include "sim/scenario/distribution.hpp"
#include "sim/scenario/settings.hpp"

namespace failsim::sim {

/// One kind of node: G accelerators, their memory, the node's intra-node link (NVLink-like: each
/// accelerator has a link of `intra_bandwidth` to the node's switch), its host memory and NICs.
/// Presets are data files (scenarios/cluster/nodes/*.json) with their sources.
struct NodeSpec {
  std::string preset;              ///< the preset file's name it came from, "" when written inline
  int accelerators = 8;            ///< per node, >= 1
  double accelerator_speed = 0.0;  ///< peak flop/s of one accelerator at the workload's precision
  double device_memory = 0.0;      ///< bytes of one accelerator's memory
  double host_memory = 0.0;        ///< bytes of the node's CPU memory
  double intra_bandwidth = 0.0;    ///< bytes/s of each accelerator's intra-node link
  double intra_latency =
      0.0;       ///< seconds of each accelerator's link (a route inside a node crosses two)
  int nics = 1;  ///< network interfaces of the node, >= 1
  double nic_bandwidth = 0.0;  ///< bytes/s of one NIC
  double nic_latency = 0.0;    ///< seconds of a NIC's link to its leaf switch

  bool operator==(const NodeSpec&) const = default;
};

/// How the nodes are joined: one value per line of the list
/// sim/collective/network/topology/topologies.def. FAT_TREE: a two-level leaf-spine tree
/// (SimGrid's fat-tree zone): `nodes_per_leaf` nodes under each leaf switch, every leaf linked to
/// each of `spines` spine switches by `uplinks` links of `uplink_bandwidth`. A node's NICs are
/// aggregated into one link to its leaf (nics x nic_bandwidth), as a ring over rail-aligned NICs
/// uses all of them at once.
enum class TopologyKind {
#define FAILSIM_TOPOLOGY(KIND, room, spelling) KIND,
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
};

/// Every kind with its spelling in platform.topology.kind, in the list's order.
inline constexpr std::array TOPOLOGY_KINDS{
#define FAILSIM_TOPOLOGY(KIND, room, spelling) \
  std::pair<std::string_view, TopologyKind>{spelling, TopologyKind::KIND},
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
};

struct TopologyConfig {
  TopologyKind kind = TopologyKind::FAT_TREE;
  int nodes_per_leaf = 8;         ///< >= 1
  int spines = 1;                 ///< >= 1
  int uplinks = 1;                ///< parallel links from a leaf to each spine, >= 1
  double uplink_bandwidth = 0.0;  ///< bytes/s of one leaf-spine link; 0: nodes_per_leaf x a node's
                                  ///< NICs / (spines x uplinks) (non-blocking)
  double switch_latency = 1e-6;   ///< seconds of a leaf-spine hop

  bool operator==(const TopologyConfig&) const = default;
};

/// The parallel file system: one shared service whose aggregate bandwidth all readers and
/// writers share: a host reached from every node through the node's NICs and a write link (and a
/// read link back) of that aggregate bandwidth; it does not cross the spines
/// (sim/collective/network/cluster_platform.hpp).
struct FileSystemConfig {
  double write_bandwidth = 0.0;  ///< bytes/s, aggregate
  double read_bandwidth = 0.0;   ///< bytes/s, aggregate
  double latency = 0.0;          ///< seconds

  bool operator==(const FileSystemConfig&) const = default;
};

/// Failure domains above the node: racks of consecutive nodes, power domains of consecutive racks.
struct DomainsConfig {
  int nodes_per_rack = 8;   ///< >= 1
  int racks_per_power = 4;  ///< >= 1

  bool operator==(const DomainsConfig&) const = default;
};

struct ClusterPlatformConfig {
  NodeSpec node;
  int nodes = 1;  ///< nodes of the job, >= 1
  /// Hot spare nodes beyond the job's, >= 0: platform nodes nodes .. nodes + spares - 1, built
  /// like the others (the fat-tree's next slots) and failing like them; a job restart takes
  /// one for each failed node instead of waiting for its repair (docs/cluster.md, "Spare
  /// pool").
  int spares = 0;
  TopologyConfig topology;
  FileSystemConfig file_system;
  DomainsConfig domains;

  /// The job's accelerators (not the spares').
  int accelerators() const { return nodes * node.accelerators; }
  /// Every node the platform builds: the job's and the spares.
  int platform_nodes() const { return nodes + spares; }
  bool operator==(const ClusterPlatformConfig&) const = default;
};

/// The data-parallel gradient collective: one ring over the replicas, or hierarchical (a
/// reduce-scatter inside each node, rings across nodes, an all-gather inside each node).
enum class DataParallelAlgorithm { RING, HIERARCHICAL };

/// dp x tp x pp = every accelerator of the job. Rank r has coordinates (d, p, t) with t fastest:
/// r = (d x pp + p) x tp + t, and ranks fill nodes in order, so a tensor-parallel group (tp
/// consecutive ranks) sits inside a node unless tp > accelerators per node.
struct LayoutConfig {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  /// What ZeRO/FSDP shards over the data-parallel ranks: nothing (0), optimizer state (1),
  /// and gradients (2), and parameters (3).
  int zero_stage = 0;
  int micro_batches = 1;  ///< m, per step and pipeline, >= 1 (>= pp is advised: the bubble)
  /// Tensor parallelism across nodes must be asked for (it crosses the NICs every layer).
  bool tp_across_nodes = false;
  DataParallelAlgorithm dp_algorithm = DataParallelAlgorithm::RING;
  /// The data-parallel collective starts during the last micro-batch's backward pass.
  bool overlap = true;

  int ranks() const { return dp * tp * pp; }
  bool operator==(const LayoutConfig&) const = default;
};

/// A transformer the time model poses as (the math stays the scenario's small model).
struct TransformerConfig {
  double parameters = 0.0;           ///< N, > 0
  int layers = 1;                    ///< L, divisible by pp
  int hidden = 1;                    ///< h
  int sequence = 1;                  ///< s, tokens per sequence
  double global_batch_tokens = 0.0;  ///< tokens of one step over every replica, a multiple of s
  /// a, attention heads, for the activations' memory (docs/cluster.md, "Layout"); 0: hidden / 128
  /// (a head dimension of 128, as Llama 2 7B's 32 heads of 4096 and GPT-3 175B's 96 of 12288).
  int heads = 0;

  /// a as the time model uses it: `heads`, or hidden / 128 (at least 1) when it is 0.
  int heads_or_default() const { return heads > 0 ? heads : (hidden >= 128 ? hidden / 128 : 1); }

  bool operator==(const TransformerConfig&) const = default;
};

/// What the backward pass recomputes instead of keeping (Korthikanti et al. 2022): nothing
/// (every activation kept, the attention scores included), the attention's scores and softmax
/// only (selective; what FlashAttention keeps too), or everything but each layer's input (full:
/// a second forward pass, 4/3 of the flops).
enum class Recompute { NONE, SELECTIVE, FULL };

/// What one step costs. With a transformer: 6 N T + 12 L h s T flops per step of T tokens
/// (docs/cluster.md). Without: the real model's flops per sample x dp x batch_size, and its size.
struct WorkloadConfig {
  std::optional<TransformerConfig> transformer;
  double achieved_fraction = 1.0;  ///< of the accelerators' peak the kernels reach (MFU), in (0, 1]
  int precision_bytes = 2;         ///< bytes of a parameter, gradient or activation on the wire
  /// Bytes of training state per parameter in a checkpoint (bf16 weights 2 + fp32 master 4 +
  /// Adam moments 8 = 14), and in device memory the optimizer adds (16 with gradients).
  double checkpoint_bytes_per_parameter = 14.0;
  double memory_bytes_per_parameter = 16.0;
  Recompute recompute = Recompute::SELECTIVE;
  bool real_math = true;  ///< false: time only, no data and no model (docs/cluster.md)

  bool operator==(const WorkloadConfig&) const = default;
};

/// What a collective failure hits: one accelerator, a node, a node's NIC(s), a leaf switch
/// (every node under it), a rack, a power domain (its racks). Each makes a set of nodes
/// unusable for its repair time; what survives on them (host memory, local disk) differs by
/// kind (docs/cluster.md, "Failure domains").
enum class ClusterTarget { ACCELERATOR, NODE, NIC, SWITCH, RACK, POWER };

/// Its spelling in the format ("accelerator", "node", ...).
std::string to_string(ClusterTarget target);
/// How many components of `target` the platform has, its spare nodes included: accelerators,
/// nodes (a node's NICs fail together, so NICs count as nodes), leaf switches, racks, power
/// domains (a partial last one counts).
int component_count(ClusterTarget target, const ClusterPlatformConfig& platform);

struct ClusterFailureEvent {
  ClusterTarget target = ClusterTarget::NODE;
  int index = 0;    ///< the accelerator's, node's, switch's, rack's or domain's index
  double at = 0.0;  ///< simulated seconds
  std::optional<double> down_for;  ///< repair time; nullopt: never back

  bool operator==(const ClusterFailureEvent&) const = default;
};

/// A straggler: from `from` to `to`, the accelerator (or every accelerator of the node) runs
/// `slowdown` times slower; a synchronous step waits for the slowest rank.
struct StragglerEvent {
  ClusterTarget target = ClusterTarget::NODE;  ///< ACCELERATOR or NODE
  int index = 0;
  double from = 0.0;
  double to = 0.0;
  double slowdown = 1.0;  ///< > 1

  bool operator==(const StragglerEvent&) const = default;
};

/// Random stragglers: every component of `target` (accelerators or nodes) has slow spells of
/// `duration`, `every` apart (from the end of one to the start of the next; from the start for
/// the first), at `slowdown` times slower; drawn from the seed, one stream per component.
struct StochasticStragglers {
  ClusterTarget target = ClusterTarget::NODE;  ///< ACCELERATOR or NODE
  Distribution every;
  Distribution duration;
  double slowdown = 1.0;  ///< > 1

  bool operator==(const StochasticStragglers&) const = default;
};

enum class DetectionKind { WATCHDOG, HEARTBEAT };

/// WATCHDOG: the survivors block in the next collective and give up after `timeout` (NCCL's
/// watchdog). HEARTBEAT: every rank beats every `interval`; a failure is noticed when `misses`
/// beats in a row are missing.
struct DetectionConfig {
  DetectionKind kind = DetectionKind::WATCHDOG;
  double timeout = 600.0;  ///< WATCHDOG
  double interval = 10.0;  ///< HEARTBEAT
  int misses = 3;          ///< HEARTBEAT

  bool operator==(const DetectionConfig&) const = default;
};

/// A cause of failures and its share of a process's failures (failures.rates).
struct FailureCause {
  std::string name;
  double weight = 1.0;  ///< its failures' count in the source; a failure draws a cause by weight
  bool host_memory_lost = false;

  bool operator==(const FailureCause&) const = default;
};

/// How each component's rate is spread over the components: a multiplier of mean 1 drawn per
/// component, GAMMA of shape `spread_parameter` (scale its inverse), LOGNORMAL of sigma
/// `spread_parameter` (mu = -sigma^2 / 2).
enum class RateSpread { NONE, GAMMA, LOGNORMAL };

/// failures.stochastic[i].heterogeneity (docs/cluster.md, "Heterogeneous nodes"): components
/// failing at different rates. A component at rate factor m draws its lifetimes as the entry's,
/// divided by m (an exponential's rate m times; a Weibull's scale and a lognormal's mean over m,
/// the same shape); repairs are the entry's. Either bad components (a fraction from the start,
/// good ones turning bad at a rate) or a spread, not both.
struct NodeHeterogeneity {
  double bad_fraction = 0.0;  ///< in [0, 1]: round(fraction x components) are bad from the start
  double bad_factor = 1.0;    ///< >= 1: a bad component's rate factor
  /// Ageing: a good component turns bad after an exponential time of this mean (seconds).
  std::optional<double> turns_bad_mean;
  RateSpread spread = RateSpread::NONE;
  double spread_parameter = 0.0;  ///< GAMMA's shape or LOGNORMAL's sigma, > 0

  bool operator==(const NodeHeterogeneity&) const = default;
};

/// The components' rate factor averaged over them and over [0, horizon] (the work estimate's):
/// 1 for a spread (mean 1 by construction); 1 - f + f k for bad components; with ageing, the good
/// ones' expected share turned bad, 1 - (T / H)(1 - e^(-H/T)), adds (1 - f)(k - 1) times it (k
/// itself without a finite horizon).
double mean_rate_factor(const NodeHeterogeneity& h, double horizon);

/// Lifetimes and repairs of every component of a kind, drawn from the seed.
struct ClusterStochasticFailures {
  ClusterTarget target = ClusterTarget::NODE;
  Distribution lifetime;
  Distribution repair;
  /// None: every component draws the same lifetimes.
  std::optional<NodeHeterogeneity> heterogeneity;
  /// Empty: failures have no cause and lose host memory as their target says. Otherwise each
  /// failure draws its cause by weight (a sum of independent exponential processes is one
  /// exponential process whose failures have cause i with probability rate_i / total rate).
  std::vector<FailureCause> causes;

  bool operator==(const ClusterStochasticFailures&) const = default;
};

/// How a trace's nodes become the scenario's: BY_ORDER, trace nodes in order of first
/// appearance are nodes 0, 1, ...; RANDOM, the same then permuted by a permutation of the
/// scenario's nodes drawn from the seed; FILE, a JSON object trace node id -> node index.
enum class TraceMapping { BY_ORDER, RANDOM, FILE };
/// Trace nodes beyond the scenario's: ERROR refuses the scenario (the default: a trace is
/// never cut silently); IGNORE drops their faults; WRAP maps trace node k to slot k mod nodes.
enum class TraceExtraNodes { ERROR, IGNORE, WRAP };

/// One fault of a replayed trace, in simulated seconds, on a slot: a node index for BY_ORDER
/// and FILE, a position in the seed's permutation for RANDOM.
struct TraceOutage {
  int slot = 0;
  double at = 0.0;
  double back = 0.0;  ///< infinity: never repaired in the trace
  std::string cause;
  bool host_memory_lost = true;

  bool operator==(const TraceOutage&) const = default;
};

/// failures.trace: a per-node fault log replayed (docs/cluster.md, "Failure traces").
struct ClusterTraceConfig {
  std::string file;  ///< absolute path
  /// A log's format (failures.trace.format "csv", "jsonl" or "sacct" and how the log writes
  /// its faults); unset: the InfiniteHBD trace.
  std::optional<input::FaultLogFormat> log;
  TraceMapping mapping = TraceMapping::BY_ORDER;
  std::string mapping_file;  ///< FILE: absolute path
  TraceExtraNodes extra_nodes = TraceExtraNodes::ERROR;
  double from_day = 0.0;    ///< the trace day that is simulated time 0
  double time_scale = 1.0;  ///< simulated seconds per trace second
  /// Simulated seconds from a fault's start to its node's return, for every fault; unset: the
  /// trace's own repair (fault_end).
  std::optional<double> repair;
  std::vector<TraceOutage> outages;  ///< read from the file, in order of start
  int trace_nodes = 0;               ///< nodes the trace names

  bool operator==(const ClusterTraceConfig&) const = default;
};

/// failures.rates: a per-component rate table with a cause mix (data/failure-rates/), turned
/// into one exponential process per component kind.
struct ClusterRatesConfig {
  std::string file;  ///< absolute path
  Distribution repair;
  std::vector<ClusterStochasticFailures> processes;  ///< one per kind, from the file

  bool operator==(const ClusterRatesConfig&) const = default;
};

struct ClusterFailureConfig {
  DetectionConfig detection;
  std::vector<ClusterFailureEvent> events;
  std::vector<ClusterStochasticFailures> stochastic;
  std::optional<ClusterTraceConfig> trace;
  std::optional<ClusterRatesConfig> rates;
  std::vector<StragglerEvent> stragglers;
  std::vector<StochasticStragglers> stochastic_stragglers;
  bool record_after_stop = false;  ///< as FailureConfig::record_after_stop

  bool operator==(const ClusterFailureConfig&) const = default;
};

/// A job restart after a detected failure: the scheduler's delay, process start, then the
/// communicators' initialisation, which grows with the ranks (init_base + init_per_rank x
/// ranks: a rendezvous through one store, docs/cluster.md), then the checkpoint load.
struct RestartConfig {
  double scheduler_delay = 60.0;
  double process_start = 30.0;
  double init_base = 5.0;
  double init_per_rank = 0.005;

  bool operator==(const RestartConfig&) const = default;
};

enum class CheckpointMode {
  BLOCKING,  ///< training waits while the ranks write to the file system
  SNAPSHOT   ///< training waits for a device-to-host copy, the write goes on in the background
};

/// Checkpoint-restart to the parallel file system (the baseline recovery; issue 23 adds the
/// others beside it).
struct CollectiveCheckpointConfig {
  std::int64_t every_steps = 0;  ///< 0: no checkpoints (a failure restarts from step 0)
  CheckpointMode mode = CheckpointMode::BLOCKING;
  double host_copy_bandwidth = 50e9;  ///< SNAPSHOT: bytes/s of each accelerator's copy to host

  bool operator==(const CollectiveCheckpointConfig&) const = default;
};

/// The recovery section: the design (recovery.strategy, a name of
/// sim/collective/recovery/designs.def), the checkpoints and the restart every design may use,
/// and the design's own settings (its room's struct, e.g. QuorumConfig).
struct CollectiveRecoveryConfig {
  std::string strategy = "checkpoint-restart";
  CollectiveCheckpointConfig checkpoint;
  RestartConfig restart;
  StrategySettings settings;  ///< the design's own (empty for "checkpoint-restart")

  /// The settings as the design's struct `T` (e.g. QuorumConfig); std::logic_error when they are
  /// another design's.
  template <class T>
  const T& get() const {
    return settings.get<T>();
  }
  bool operator==(const CollectiveRecoveryConfig&) const = default;
};

struct CollectiveConfig {
  ClusterPlatformConfig platform;
  LayoutConfig layout;
  WorkloadConfig workload;
  ClusterFailureConfig failures;
  CollectiveRecoveryConfig recovery;

  bool operator==(const CollectiveConfig&) const = default;
};

}  // namespace failsim::sim
