// The plan of a collective job (docs/cluster.md, "Layout" and "Time model of a step"): what a
// `"protocol": "collective"` scenario means before anything runs. Where every rank sits (its
// coordinates in the dp x tp x pp layout, its node, its groups), what one step costs at nominal
// speed (flops, seconds per micro-batch, the pipeline's bubble, the bytes of every tensor-parallel
// all-reduce, pipeline send and data-parallel collective), what a device holds, what a checkpoint
// writes and who writes it; and the checks that need them, each an input::InputError naming the
// field to change. The driver in sim/ runs the plan on SimGrid; this file never includes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// What the scenario's real (small) model brings to the plan; absent for a time-only workload.
struct RealModelSize {
  double parameters = 0.0;         ///< the real model's parameters
  double flops_per_sample = 0.0;   ///< one training sample, forward and backward
  std::int64_t train_samples = 0;  ///< samples in the training set the run uses
};

/// A rank's place in the layout: data-parallel replica d, pipeline stage p, tensor-parallel
/// index t; rank = (d x pp + p) x tp + t.
struct RankCoordinates {
  int d = 0;
  int p = 0;
  int t = 0;

  bool operator==(const RankCoordinates&) const = default;
};

enum class CollectiveOp { ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER };

/// Where in a step a data-parallel collective runs.
enum class StepPhase {
  FORWARD,        ///< before the forward pass needs the parameters (ZeRO-3's gather)
  BACKWARD,       ///< during the backward pass (ZeRO-3's second gather)
  AFTER_BACKWARD  ///< on the gradients, once the last micro-batch's backward pass has made them
};

/// One data-parallel collective of a step, run by every data-parallel group on its stage's and
/// tensor-parallel index's shard.
struct DataParallelCollective {
  CollectiveOp op = CollectiveOp::ALL_REDUCE;
  StepPhase phase = StepPhase::AFTER_BACKWARD;
  /// B, each rank's whole buffer: the all-reduce's and reduce-scatter's input, the all-gather's
  /// output (the collective_time.hpp formulas take it so).
  double bytes = 0.0;

  bool operator==(const DataParallelCollective&) const = default;
};

/// What one device holds at its peak (docs/cluster.md, "Layout"), in bytes.
struct DeviceMemory {
  double model_states = 0.0;  ///< weights, gradients and optimizer state, as ZeRO shards them
  double activations = 0.0;   ///< the micro-batches in flight under 1F1B (0 without a transformer)
  double total() const { return model_states + activations; }
};

struct CollectivePlan {
  // --- Placement ---------------------------------------------------------------------------
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int micro_batches = 1;          ///< m
  int accelerators_per_node = 1;  ///< G
  int ranks() const { return dp * tp * pp; }
  int rank_of(RankCoordinates c) const { return (c.d * pp + c.p) * tp + c.t; }
  RankCoordinates coordinates(int rank) const {
    return {rank / (tp * pp), (rank / tp) % pp, rank % tp};
  }
  /// r / G: ranks fill nodes in order.
  std::vector<int> node_of_rank;
  /// dp x pp groups of the tp consecutive ranks of (d, p), at index d x pp + p, ordered by t.
  std::vector<std::vector<int>> tp_groups;
  /// dp x tp chains of the pp stages of (d, t), at index d x tp + t, ordered by stage.
  std::vector<std::vector<int>> pipelines;
  /// pp x tp groups of the dp replicas of (p, t), at index p x tp + t, ordered by d.
  std::vector<std::vector<int>> dp_groups;
  /// Whether every tensor-parallel group sits inside one node.
  bool tp_inside_nodes = true;
  /// The ranks of `group` split by node, in node order: the intra-node parts of a hierarchical
  /// collective.
  std::vector<std::vector<int>> by_node(const std::vector<int>& group) const;
  /// The same into `parts`, reusing what it holds (a spare swap builds groups again).
  void by_node(const std::vector<int>& group, std::vector<std::vector<int>>& parts) const;

  // --- Work of a step ----------------------------------------------------------------------
  bool transformer = false;  ///< the workload poses as a transformer
  double parameters = 0.0;   ///< N: the transformer's, else the real model's
  /// T, over every replica: the transformer posed as, or a real language model's windows x their
  /// sequence (0 with neither).
  double tokens_per_step = 0.0;
  double samples_per_step = 0.0;  ///< sequences (T / s), or dp x optimizer.batch_size samples
  /// b: sequences (or samples) of one micro-batch on one replica: samples_per_step / (dp x m).
  double micro_batch_samples = 0.0;
  /// (6 N + 12 L h s) x T with a transformer (PaLM, appendix B); else the real model's flops per
  /// sample x dp x optimizer.batch_size.
  double step_flops = 0.0;
  /// t_mb: one rank's forward and backward of one micro-batch at nominal speed,
  /// step_flops / (ranks x m) / (accelerator_speed x achieved_fraction).
  double micro_batch_seconds = 0.0;
  /// (m + pp - 1) x t_mb: the 1F1B schedule's compute, bubble included.
  double compute_seconds = 0.0;
  /// (pp - 1) / (m + pp - 1) of compute_seconds.
  double bubble_fraction = 0.0;

  // --- Tensor parallel (Megatron-LM) --------------------------------------------------------
  /// All-reduces of one tp group per micro-batch: 4 per layer of its stage (2 forward, 2
  /// backward), 4 L / pp; 0 when tp = 1.
  int tp_all_reduces_per_micro_batch = 0;
  double tp_all_reduce_bytes = 0.0;  ///< B of each: b x s x h x precision_bytes

  // --- Pipeline -----------------------------------------------------------------------------
  /// Per micro-batch, between consecutive stages of a chain: b x s x h x precision_bytes of
  /// activations forward, and as many bytes of their gradients backward; 0 when pp = 1.
  double pipeline_send_bytes = 0.0;

  // --- Data parallel ------------------------------------------------------------------------
  /// Each rank's gradient shard: N / (tp x pp) x precision_bytes.
  double dp_shard_bytes = 0.0;
  /// The collectives of a step by ZeRO stage: 0, 1: all-reduce; 2: reduce-scatter of the
  /// gradients, all-gather of the updated parameters; 3: all-gather forward, all-gather
  /// backward, reduce-scatter. None when dp = 1.
  std::vector<DataParallelCollective> dp_collectives;

  // --- Memory, checkpoint, restart ----------------------------------------------------------
  DeviceMemory memory;  ///< per device, the largest over the ranks
  /// checkpoint_bytes_per_parameter x N.
  double checkpoint_bytes = 0.0;
  /// What each rank writes to a checkpoint (0: nothing); sums to checkpoint_bytes.
  std::vector<double> checkpoint_write_bytes;
  /// What each rank reads of a checkpoint at a restart (every replica needs its state).
  std::vector<double> checkpoint_read_bytes;
  /// Per parameter of a rank's stage and slice: the checkpoint's bytes ZeRO shards over the
  /// data-parallel replicas (none at stage 0; the optimizer state at 1 and 2; everything at 3),
  /// and those every replica holds whole (the rest).
  double checkpoint_sharded_per_parameter = 0.0;
  double checkpoint_replicated_per_parameter = 0.0;
  /// One rank's checkpoint shares when `replicas` data-parallel replicas hold the state (the
  /// plan's dp, or fewer after a resume on another layout): with psi = N / (tp x pp),
  /// write_first = sharded x psi / replicas + replicated x psi (the first replica writes the
  /// replicated part), write_other = sharded x psi / replicas, read = write_first.
  struct CheckpointShare {
    double write_first = 0.0;
    double write_other = 0.0;
    double read = 0.0;
  };
  CheckpointShare checkpoint_share(int replicas) const;
  /// The communicators' initialisation at a restart: init_base + init_per_rank x ranks.
  double restart_init_seconds = 0.0;
};

/// Frees the plan's groups (its lists of millions of small lists, which take seconds to free)
/// a few thousand at a time, looking for a signal between: a command that is done with a large
/// plan stays interruptible while it lets it go. Throws input::Interrupted, leaving what it has
/// not freed to the process's exit.
void release_groups(CollectivePlan& plan);

/// Plans the collective job of `scenario` (protocol COLLECTIVE), parsed from `file_label`, with
/// the real model's sizes when the workload has real math (`real` must then be set, and is
/// ignored otherwise). Throws input::InputError, naming the field to change, for a layout
/// whose ranks are not the accelerators, tensor parallelism across nodes not asked for, heads
/// not divisible by tp, layers not divisible by pp, tensor or pipeline parallelism without a
/// transformer, micro-batches that are not whole sequences (or samples), a real batch larger than
/// the training set, or a device memory the estimate exceeds. std::invalid_argument for what the
/// reader guarantees (counts of at least 1, speeds above 0) or a missing `real`.
CollectivePlan plan_collective(const Scenario& scenario, const std::optional<RealModelSize>& real,
                               const std::string& file_label);

}  // namespace failsim::sim
