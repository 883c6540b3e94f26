#include "sim/scenario/collective/plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "input/interrupt.hpp"
#include "sim/scenario/collective/collective_time.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/format_bytes.hpp"

namespace failsim::sim {

namespace {

// Where the collective scenario's fields sit in its file: the sections are CollectiveConfig's
// members at the top level ("platform", "layout", "workload", "failures", "recovery"), the shared
// ones (optimizer) where the parameter-server protocol has them. Messages name these pointers.
constexpr const char* LAYOUT_DP = "/layout/dp";
constexpr const char* LAYOUT_TP = "/layout/tp";
constexpr const char* LAYOUT_PP = "/layout/pp";
constexpr const char* LAYOUT_MICRO_BATCHES = "/layout/micro_batches";
constexpr const char* LAYOUT_ZERO_STAGE = "/layout/zero_stage";
constexpr const char* TRANSFORMER = "/workload/transformer";
constexpr const char* GLOBAL_BATCH_TOKENS = "/workload/transformer/global_batch_tokens";
constexpr const char* MEMORY_PER_PARAMETER = "/workload/memory_bytes_per_parameter";
constexpr const char* CHECKPOINT_PER_PARAMETER = "/workload/checkpoint_bytes_per_parameter";
constexpr const char* BATCH_SIZE = "/optimizer/batch_size";
constexpr const char* HOST_MEMORY = "/platform/node/host_memory";

// What the scenario reader guarantees; a violation is a bug of the caller, not bad input.
void require_read(const Scenario& s, const std::optional<RealModelSize>& real) {
  const CollectiveConfig& c = s.collective;
  const LayoutConfig& l = c.layout;
  const WorkloadConfig& w = c.workload;
  if (s.protocol != Protocol::COLLECTIVE)
    throw std::invalid_argument("plan_collective: the scenario's protocol is not collective");
  if (l.dp < 1 || l.tp < 1 || l.pp < 1 || l.micro_batches < 1 || l.zero_stage < 0 ||
      l.zero_stage > 3 || c.platform.nodes < 1 || c.platform.node.accelerators < 1)
    throw std::invalid_argument("plan_collective: a layout or platform count out of range");
  if (!(c.platform.node.accelerator_speed > 0.0) || !(w.achieved_fraction > 0.0) ||
      w.precision_bytes < 1 || s.optimizer.batch_size < 1)
    throw std::invalid_argument("plan_collective: a speed, fraction or size out of range");
  if (w.transformer && (!(w.transformer->parameters > 0.0) || w.transformer->layers < 1 ||
                        w.transformer->hidden < 1 || w.transformer->sequence < 1 ||
                        !(w.transformer->global_batch_tokens > 0.0)))
    throw std::invalid_argument("plan_collective: a transformer size out of range");
  if (w.real_math && !real)
    throw std::invalid_argument("plan_collective: real math without the real model's sizes");
}

// The loops as long as the job's ranks (up to 10,000,000) look for a caught signal every
// input::POLL_EVERY ranks or groups: a plan of millions of ranks takes seconds to build. The
// lists are reserved whole: a list of millions of groups that grows moves them all at once, a
// pause of a second with no look.
void place(CollectivePlan& plan) {
  const int ranks = plan.ranks();
  plan.node_of_rank.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    input::poll_interrupt(r, ranks, "placing the plan's ranks", "rank");
    plan.node_of_rank[r] = r / plan.accelerators_per_node;
  }
  const auto poll = [](std::size_t built, long long groups, const char* doing) {
    input::poll_interrupt(static_cast<long long>(built), groups, doing, "group");
  };
  plan.tp_groups.reserve(static_cast<std::size_t>(plan.dp) * plan.pp);
  for (int d = 0; d < plan.dp; ++d) {
    for (int p = 0; p < plan.pp; ++p) {
      poll(plan.tp_groups.size(), 1LL * plan.dp * plan.pp, "building the tensor-parallel groups");
      std::vector<int>& group = plan.tp_groups.emplace_back();
      group.reserve(static_cast<std::size_t>(plan.tp));
      for (int t = 0; t < plan.tp; ++t) group.push_back(plan.rank_of({d, p, t}));
    }
  }
  plan.pipelines.reserve(static_cast<std::size_t>(plan.dp) * plan.tp);
  for (int d = 0; d < plan.dp; ++d) {
    for (int t = 0; t < plan.tp; ++t) {
      poll(plan.pipelines.size(), 1LL * plan.dp * plan.tp, "building the pipelines");
      std::vector<int>& chain = plan.pipelines.emplace_back();
      chain.reserve(static_cast<std::size_t>(plan.pp));
      for (int p = 0; p < plan.pp; ++p) chain.push_back(plan.rank_of({d, p, t}));
    }
  }
  plan.dp_groups.reserve(static_cast<std::size_t>(plan.pp) * plan.tp);
  for (int p = 0; p < plan.pp; ++p) {
    for (int t = 0; t < plan.tp; ++t) {
      poll(plan.dp_groups.size(), 1LL * plan.pp * plan.tp, "building the data-parallel groups");
      std::vector<int>& group = plan.dp_groups.emplace_back();
      group.reserve(static_cast<std::size_t>(plan.dp));
      for (int d = 0; d < plan.dp; ++d) group.push_back(plan.rank_of({d, p, t}));
    }
  }
  plan.tp_inside_nodes = true;
  for (std::size_t i = 0; i < plan.tp_groups.size() && plan.tp_inside_nodes; ++i) {
    poll(i, static_cast<long long>(plan.tp_groups.size()), "placing the tensor-parallel groups");
    const std::vector<int>& g = plan.tp_groups[i];
    plan.tp_inside_nodes = plan.node_of_rank[g.front()] == plan.node_of_rank[g.back()];
  }
}

void check_placement(const Scenario& s, const CollectivePlan& plan, const std::string& file) {
  const ClusterPlatformConfig& platform = s.collective.platform;
  if (plan.ranks() != platform.accelerators()) {
    throw input::InputError(
        file, LAYOUT_DP,
        fmt::format("dp x tp x pp equal to the job's accelerators (platform.nodes {} x "
                    "platform.node.accelerators {} = {})",
                    platform.nodes, platform.node.accelerators, platform.accelerators()),
        fmt::format("dp {} x tp {} x pp {} = {} ranks", plan.dp, plan.tp, plan.pp, plan.ranks()));
  }
  if (plan.tp_inside_nodes || s.collective.layout.tp_across_nodes) return;
  for (std::size_t i = 0; i < plan.tp_groups.size(); ++i) {
    const std::vector<int>& g = plan.tp_groups[i];
    if (plan.node_of_rank[g.front()] == plan.node_of_rank[g.back()]) continue;
    throw input::InputError(
        file, LAYOUT_TP,
        fmt::format("tensor-parallel groups inside a node (tp dividing the node's {} "
                    "accelerators), or layout.tp_across_nodes true",
                    plan.accelerators_per_node),
        fmt::format("{} (group {}, ranks {} to {}, spans nodes {} to {})", plan.tp, i, g.front(),
                    g.back(), plan.node_of_rank[g.front()], plan.node_of_rank[g.back()]));
  }
}

void check_workload(const Scenario& s, const std::string& file) {
  const LayoutConfig& l = s.collective.layout;
  const WorkloadConfig& w = s.collective.workload;
  if (w.transformer) {
    const TransformerConfig& x = *w.transformer;
    if (x.layers % l.pp != 0) {
      throw input::InputError(
          file, LAYOUT_PP,
          fmt::format("a divisor of the transformer's {} layers (workload.transformer.layers)",
                      x.layers),
          std::to_string(l.pp));
    }
    // Megatron-LM splits the attention heads over the tensor-parallel ranks.
    if (x.heads_or_default() % l.tp != 0) {
      throw input::InputError(
          file, LAYOUT_TP,
          fmt::format("a divisor of the transformer's {} attention heads "
                      "(workload.transformer.heads{})",
                      x.heads_or_default(), x.heads > 0 ? "" : ": hidden / 128"),
          std::to_string(l.tp));
    }
    const double unit = static_cast<double>(x.sequence) * l.dp * l.micro_batches;
    if (x.global_batch_tokens < unit || std::fmod(x.global_batch_tokens, unit) != 0.0) {
      throw input::InputError(
          file, GLOBAL_BATCH_TOKENS,
          fmt::format("a multiple of sequence {} x dp {} x micro_batches {} = {} tokens (a "
                      "micro-batch is whole sequences)",
                      x.sequence, l.dp, l.micro_batches, unit),
          fmt::format("{}", x.global_batch_tokens));
    }
  } else {
    if (!w.real_math) {
      throw input::InputError(file, TRANSFORMER,
                              "a transformer to pose as when the workload is time only "
                              "(workload.math \"none\")",
                              "none");
    }
    for (const auto& [field, size] : {std::pair{LAYOUT_TP, l.tp}, std::pair{LAYOUT_PP, l.pp}}) {
      if (size == 1) continue;
      throw input::InputError(file, field,
                              "1 without a transformer to pose as (workload.transformer: its "
                              "layers, hidden size and sequence make the activations' bytes)",
                              std::to_string(size));
    }
    if (s.optimizer.batch_size % l.micro_batches != 0) {
      throw input::InputError(
          file, LAYOUT_MICRO_BATCHES,
          fmt::format("a divisor of optimizer.batch_size ({} samples per replica and step)",
                      s.optimizer.batch_size),
          std::to_string(l.micro_batches));
    }
  }
  if (w.memory_bytes_per_parameter < 2.0 * w.precision_bytes) {
    throw input::InputError(
        file, MEMORY_PER_PARAMETER,
        fmt::format("at least the weights' and gradients' 2 x workload.precision_bytes = {}",
                    2 * w.precision_bytes),
        fmt::format("{}", w.memory_bytes_per_parameter));
  }
  if (w.checkpoint_bytes_per_parameter < w.precision_bytes) {
    throw input::InputError(
        file, CHECKPOINT_PER_PARAMETER,
        fmt::format("at least the weights' workload.precision_bytes = {}", w.precision_bytes),
        fmt::format("{}", w.checkpoint_bytes_per_parameter));
  }
}

void check_real_batch(const Scenario& s, const RealModelSize& real, const std::string& file) {
  const int dp = s.collective.layout.dp;
  const std::int64_t per_replica = real.train_samples / dp;
  if (s.optimizer.batch_size > per_replica) {
    throw input::InputError(
        file, BATCH_SIZE,
        fmt::format("at most the training set's {} samples / dp {} replicas = {} (a step draws "
                    "dp x batch_size samples)",
                    real.train_samples, dp, per_replica),
        std::to_string(s.optimizer.batch_size));
  }
}

void plan_work(const Scenario& s, const std::optional<RealModelSize>& real, CollectivePlan& plan) {
  const WorkloadConfig& w = s.collective.workload;
  const NodeSpec& node = s.collective.platform.node;
  const double m = plan.micro_batches;
  if (w.transformer) {
    const TransformerConfig& x = *w.transformer;
    plan.transformer = true;
    plan.parameters = x.parameters;
    plan.tokens_per_step = x.global_batch_tokens;
    plan.samples_per_step = x.global_batch_tokens / x.sequence;
    const double attention = 12.0 * x.layers * static_cast<double>(x.hidden) * x.sequence;
    plan.step_flops = (6.0 * x.parameters + attention) * x.global_batch_tokens;
    // Full recomputation runs each layer's forward pass again in the backward: 4/3 of the flops.
    if (w.recompute == Recompute::FULL) plan.step_flops *= 4.0 / 3.0;
  } else {
    plan.parameters = real->parameters;
    plan.samples_per_step = static_cast<double>(plan.dp) * s.optimizer.batch_size;
    plan.step_flops = real->flops_per_sample * plan.samples_per_step;
    // A real language model's sample is a window predicting `sequence` tokens.
    if (s.model.kind == ModelKind::TRANSFORMER)
      plan.tokens_per_step = plan.samples_per_step * s.model.transformer.sequence;
  }
  plan.micro_batch_samples = plan.samples_per_step / (plan.dp * m);
  plan.micro_batch_seconds =
      plan.step_flops / (plan.ranks() * m) / (node.accelerator_speed * w.achieved_fraction);
  plan.compute_seconds =
      pipeline_compute_seconds(plan.pp, plan.micro_batches, plan.micro_batch_seconds);
  plan.bubble_fraction = pipeline_bubble_fraction(plan.pp, plan.micro_batches);
}

void plan_communication(const Scenario& s, CollectivePlan& plan) {
  const WorkloadConfig& w = s.collective.workload;
  const double precision = w.precision_bytes;
  if (plan.transformer) {
    const TransformerConfig& x = *w.transformer;
    const double activation = plan.micro_batch_samples * x.sequence * x.hidden * precision;
    if (plan.tp > 1) {
      plan.tp_all_reduces_per_micro_batch = 4 * (x.layers / plan.pp);
      plan.tp_all_reduce_bytes = activation;
    }
    if (plan.pp > 1) plan.pipeline_send_bytes = activation;
  }
  const double shard = plan.parameters / (plan.tp * plan.pp) * precision;
  plan.dp_shard_bytes = shard;
  if (plan.dp == 1) return;
  using Op = CollectiveOp;
  using Phase = StepPhase;
  switch (s.collective.layout.zero_stage) {
    case 0:
    case 1:
      plan.dp_collectives = {{Op::ALL_REDUCE, Phase::AFTER_BACKWARD, shard}};
      break;
    case 2:
      plan.dp_collectives = {{Op::REDUCE_SCATTER, Phase::AFTER_BACKWARD, shard},
                             {Op::ALL_GATHER, Phase::AFTER_BACKWARD, shard}};
      break;
    default:
      plan.dp_collectives = {{Op::ALL_GATHER, Phase::FORWARD, shard},
                             {Op::ALL_GATHER, Phase::BACKWARD, shard},
                             {Op::REDUCE_SCATTER, Phase::AFTER_BACKWARD, shard}};
      break;
  }
}

// ZeRO (Rajbhandari et al. 2020, section 5.1) with p-byte weights and gradients and K = M - 2p
// bytes of optimizer state per parameter (M = memory_bytes_per_parameter; mixed-precision Adam:
// p = 2, K = 12, M = 16), of the psi = N / (tp x pp) parameters of a rank's stage and slice.
double model_states_bytes(const Scenario& s, const CollectivePlan& plan) {
  const WorkloadConfig& w = s.collective.workload;
  const double psi = plan.parameters / (plan.tp * plan.pp);
  const double p = w.precision_bytes;
  const double total = w.memory_bytes_per_parameter;
  const double optimizer = total - 2.0 * p;
  const double dp = plan.dp;
  switch (s.collective.layout.zero_stage) {
    case 0:
      return total * psi;
    case 1:
      return (2.0 * p + optimizer / dp) * psi;
    case 2:
      return (p + (p + optimizer) / dp) * psi;
    default:
      return total * psi / dp;
  }
}

// Korthikanti et al. 2022, sections 4 and 5: per layer of 16-bit activations, s b h (34 + 5 a s /
// h) bytes without recomputation, s b h 34 with selective recomputation (the attention's scores
// and softmax recomputed), s b h 2 with full recomputation (only the layer's input kept), divided
// by tp under tensor and sequence parallelism. Under 1F1B the first stage holds min(m, pp)
// micro-batches of its L / pp layers.
double activation_bytes(const Scenario& s, const CollectivePlan& plan) {
  if (!plan.transformer) return 0.0;
  const TransformerConfig& x = *s.collective.workload.transformer;
  const double sequence = x.sequence;
  const double hidden = x.hidden;
  const double heads = x.heads_or_default();
  const Recompute recompute = s.collective.workload.recompute;
  const double factor = recompute == Recompute::FULL ? 2.0
                        : recompute == Recompute::SELECTIVE
                            ? 34.0
                            : 34.0 + 5.0 * heads * sequence / hidden;
  const double per_layer = sequence * plan.micro_batch_samples * hidden * factor / plan.tp;
  const double in_flight = std::min(plan.micro_batches, plan.pp);
  return in_flight * (x.layers / plan.pp) * per_layer;
}

void check_memory(const Scenario& s, const CollectivePlan& plan, const std::string& file) {
  const LayoutConfig& l = s.collective.layout;
  const double capacity = s.collective.platform.node.device_memory;
  const DeviceMemory& m = plan.memory;
  if (m.total() <= capacity) return;
  // The field whose change shrinks the larger part.
  const char* field = m.activations > m.model_states ? LAYOUT_MICRO_BATCHES
                      : l.zero_stage < 3             ? LAYOUT_ZERO_STAGE
                                                     : LAYOUT_PP;
  const std::string found = m.activations > m.model_states ? std::to_string(l.micro_batches)
                            : l.zero_stage < 3             ? std::to_string(l.zero_stage)
                                                           : std::to_string(l.pp);
  throw input::InputError(
      file, field,
      fmt::format("a layout whose memory per accelerator fits platform.node.device_memory {} "
                  "(estimated {}: model states {} of {:.3g} parameters / (tp {} x pp {}) at ZeRO "
                  "stage {}, activations {} of {} micro-batch(es) of {:g} sequence(s) in flight)",
                  format_bytes(capacity), format_bytes(m.total()), format_bytes(m.model_states),
                  plan.parameters, plan.tp, plan.pp, l.zero_stage, format_bytes(m.activations),
                  plan.transformer ? std::min(plan.micro_batches, plan.pp) : 0,
                  plan.micro_batch_samples),
      found);
}

// A design that shrinks (DesignChecks::fewest_replicas) goes on with fewer data-parallel replicas,
// each then holding a larger ZeRO shard and perhaps more micro-batches a step: their memory per
// accelerator must fit too.
void check_fewest_replicas(const Scenario& s, const CollectivePlan& plan,
                           const DesignChecks& checks, const std::string& file) {
  if (checks.fewest_replicas == nullptr) return;
  const FewestReplicas f = checks.fewest_replicas(s, file);
  CollectivePlan fewest = plan;
  fewest.dp = f.replicas;
  fewest.micro_batches = f.micro_batches;
  const DeviceMemory m{model_states_bytes(s, fewest), activation_bytes(s, fewest)};
  const double capacity = s.collective.platform.node.device_memory;
  if (m.total() <= capacity) return;
  throw input::InputError(
      file, f.field,
      fmt::format("a number of replicas whose memory per accelerator fits "
                  "platform.node.device_memory {} (on {} replica(s): estimated {}, model states {} "
                  "at ZeRO stage {}, activations {} of {} micro-batch(es) a step)",
                  format_bytes(capacity), f.replicas, format_bytes(m.total()),
                  format_bytes(m.model_states), s.collective.layout.zero_stage,
                  format_bytes(m.activations), fewest.micro_batches),
      std::to_string(f.replicas));
}

// Without ZeRO, replica 0's ranks write their stage's and slice's whole state; with ZeRO 1 or
// 2 every rank writes its 1 / dp of the optimizer state and replica 0 the weights; with ZeRO 3
// (weights sharded too) every rank writes its 1 / dp of everything (docs/cluster.md).
void plan_checkpoint(const Scenario& s, CollectivePlan& plan) {
  const WorkloadConfig& w = s.collective.workload;
  const double c = w.checkpoint_bytes_per_parameter;
  const double weights = w.precision_bytes;
  plan.checkpoint_bytes = c * plan.parameters;
  switch (s.collective.layout.zero_stage) {
    case 0:
      plan.checkpoint_replicated_per_parameter = c;
      break;
    case 1:
    case 2:
      plan.checkpoint_sharded_per_parameter = c - weights;
      plan.checkpoint_replicated_per_parameter = weights;
      break;
    default:
      plan.checkpoint_sharded_per_parameter = c;
      break;
  }
  const auto ranks = static_cast<std::size_t>(plan.ranks());
  plan.checkpoint_write_bytes.assign(ranks, 0.0);
  plan.checkpoint_read_bytes.assign(ranks, 0.0);
  const CollectivePlan::CheckpointShare share = plan.checkpoint_share(plan.dp);
  for (int r = 0; r < plan.ranks(); ++r) {
    input::poll_interrupt(r, plan.ranks(), "planning the ranks' checkpoint shares", "rank");
    const bool replica_zero = plan.coordinates(r).d == 0;
    plan.checkpoint_write_bytes[r] = replica_zero ? share.write_first : share.write_other;
    plan.checkpoint_read_bytes[r] = share.read;
  }
  const RestartConfig& restart = s.collective.recovery.restart;
  plan.restart_init_seconds = restart.init_base + restart.init_per_rank * plan.ranks();
}

// The copies of a node's checkpointed state a design keeps in host memory
// (DesignChecks::host_copies) must fit there.
void check_host_copies(const Scenario& s, const CollectivePlan& plan, const DesignChecks& checks,
                       const std::string& file) {
  const CollectiveRecoveryConfig& r = s.collective.recovery;
  const ClusterPlatformConfig& platform = s.collective.platform;
  const int copies = checks.host_copies != nullptr ? checks.host_copies(s, file) : 0;
  // Every node keeps its ranks' states: G ranks' read shares (the same on every node).
  double node_state = 0.0;
  for (int rank = 0; rank < plan.accelerators_per_node; ++rank) {
    node_state += plan.checkpoint_read_bytes[static_cast<std::size_t>(rank)];
  }
  const double needed = copies * node_state;
  if (needed <= platform.node.host_memory) return;
  throw input::InputError(
      file, HOST_MEMORY,
      fmt::format("at least the {} copies of a node's checkpointed state that strategy \"{}\" "
                  "keeps in host memory ({} x {} = {})",
                  copies, r.strategy, copies, format_bytes(node_state), format_bytes(needed)),
      format_bytes(platform.node.host_memory));
}

}  // namespace

CollectivePlan::CheckpointShare CollectivePlan::checkpoint_share(int replicas) const {
  const double psi = parameters / (tp * pp);
  CheckpointShare share;
  // In this order the full layout's shares are the formulas' of docs/cluster.md to the bit.
  share.write_other = checkpoint_sharded_per_parameter * psi / replicas;
  share.write_first = share.write_other + checkpoint_replicated_per_parameter * psi;
  share.read = share.write_first;
  return share;
}

std::vector<std::vector<int>> CollectivePlan::by_node(const std::vector<int>& group) const {
  std::vector<std::vector<int>> parts;
  by_node(group, parts);
  return parts;
}

void CollectivePlan::by_node(const std::vector<int>& group,
                             std::vector<std::vector<int>>& parts) const {
  // A data-parallel group is in node order already (its replicas' ranks ascend): then nothing is
  // sorted or allocated beyond what `parts` holds from its last use.
  const auto before = [&](int a, int b) { return node_of_rank[a] < node_of_rank[b]; };
  std::vector<int> sorted;
  const bool in_order = std::is_sorted(group.begin(), group.end(), before);
  if (!in_order) {
    sorted = group;
    std::stable_sort(sorted.begin(), sorted.end(), before);
  }
  const std::vector<int>& ranks = in_order ? group : sorted;
  std::size_t count = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i == 0 || node_of_rank[ranks[i]] != node_of_rank[ranks[i - 1]]) {
      if (parts.size() == count) parts.emplace_back();
      parts[count++].clear();
    }
    parts[count - 1].push_back(ranks[i]);
  }
  parts.resize(count);
}

namespace {

/// plan_collective's work, into `plan`.
void build_plan(const Scenario& s, const std::optional<RealModelSize>& real,
                const std::string& file, CollectivePlan& plan) {
  require_read(s, real);
  const LayoutConfig& l = s.collective.layout;
  plan.dp = l.dp;
  plan.tp = l.tp;
  plan.pp = l.pp;
  plan.micro_batches = l.micro_batches;
  plan.accelerators_per_node = s.collective.platform.node.accelerators;
  // The ranks' count is checked before the groups are built: they are as many as it says.
  if (plan.ranks() == s.collective.platform.accelerators()) place(plan);
  check_placement(s, plan, file);
  // The recovery design's checks (its room's DesignChecks), at their points of the plan.
  const DesignChecks& design = collective_design(s.collective.recovery.strategy).settings.checks;
  if (design.placed != nullptr) design.placed(s, file);
  check_workload(s, file);
  const bool math = s.collective.workload.real_math;
  if (math) check_real_batch(s, *real, file);
  plan_work(s, math ? real : std::nullopt, plan);
  plan_communication(s, plan);
  plan.memory.model_states = model_states_bytes(s, plan);
  plan.memory.activations = activation_bytes(s, plan);
  check_memory(s, plan, file);
  check_fewest_replicas(s, plan, design, file);
  plan_checkpoint(s, plan);
  check_host_copies(s, plan, design, file);
}

}  // namespace

void release_groups(CollectivePlan& plan) {
  for (std::vector<std::vector<int>>* groups :
       {&plan.tp_groups, &plan.pipelines, &plan.dp_groups}) {
    const auto total = static_cast<long long>(groups->size());
    try {
      while (!groups->empty()) {
        input::poll_interrupt(total - static_cast<long long>(groups->size()), total,
                              "freeing the plan's groups", "group");
        groups->pop_back();
      }
    } catch (const input::Interrupted&) {
      static_cast<void>(new CollectivePlan(std::move(plan)));
      throw;
    }
  }
}

CollectivePlan plan_collective(const Scenario& s, const std::optional<RealModelSize>& real,
                               const std::string& file) {
  CollectivePlan plan;
  try {
    build_plan(s, real, file, plan);
  } catch (const input::Interrupted&) {
    // Millions of groups take half a second to free: an interrupted command leaves them to its
    // exit (input::exit_interrupted), which comes at once.
    static_cast<void>(new CollectivePlan(std::move(plan)));
    throw;
  }
  return plan;
}

}  // namespace failsim::sim
