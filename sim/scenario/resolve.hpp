// What a scenario means for its job, known before anything is simulated: the data set's shape
// (from the IDX headers or the generator's parameters), the model's size, the shards' partition
// and the time model; and the checks that need them (a batch larger than a worker's share of
// the data, more shards than parameters, a request timeout shorter than a message). `failsim
// validate`, every point of a sweep and `failsim run` call resolve(), so a scenario that one
// of them accepts the others accept too. Engine-free; builds the model's description (not its
// parameters) and reads file headers only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/dataset.hpp"
#include "models/partition.hpp"
#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/collective/work.hpp"
#include "sim/scenario/format_bytes.hpp"  // format_bytes, for the reports of its estimates
#include "sim/scenario/ps/time_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// The job's size before anything is allocated (docs/scenario-format.md, "Limits"). An estimate:
/// what the run holds at its peak, counted from the sizes it allocates, in bytes.
struct MemoryEstimate {
  double data_bytes = 0.0;     ///< the training and test sets, as floats, and their labels
  double model_bytes = 0.0;    ///< every copy of the parameters: servers, workers, snapshots
  double scratch_bytes = 0.0;  ///< one batch's activations per math thread
  /// SimGrid actors alive at once: each has a stack of contexts/stack-size (checked by the
  /// SimGrid probe, which knows the stack size the run gets).
  double actors = 0.0;
  double resident_bytes() const { return data_bytes + model_bytes + scratch_bytes; }
};

/// Upper bounds on the work of a run (docs/scenario-format.md, "Limits"): none of them is
/// simulated identically faster, so a run beyond them takes hours or never ends.
struct WorkEstimate {
  /// Gradients the workers can compute before the stop: every worker computes one per
  /// gradient_flops / speed seconds at most. Infinity when no stop bounds it (target accuracy
  /// only); 0 for a platform file (its speeds are the probe's to read).
  double gradients = 0.0;
  /// Gradients the workers can compute before the stop when each gradient also waits for a pull
  /// and a push of its parameters on the network, and in sync mode for the slowest worker's
  /// (star with a stop time; else `gradients`): still an upper bound (a busy server or link, a
  /// failure make fewer), and the wall estimate's (wall_estimate.hpp).
  double paced_gradients = 0.0;
  double evaluations = 0.0;  ///< scheduled evaluations at least (evaluation.interval)
  /// Evaluations every evaluation.every_updates updates, at most (one per that many gradients).
  double evaluations_by_updates = 0.0;
  double failures = 0.0;  ///< random failures expected (failures.stochastic)
  /// The real math of one gradient, in flops: the model's training flops per sample x the batch
  /// (what the math threads compute, whatever `timing` makes the simulated hosts pay). Set for
  /// both protocols when the run has real math (a collective step: one per replica).
  double gradient_math_flops = 0.0;
  /// The real math of one scheduled evaluation (forward flops x its test samples), and of the
  /// final evaluation on the whole test set (0 without one).
  double evaluation_math_flops = 0.0;
  double final_evaluation_math_flops = 0.0;
};

/// The limits the resolve step checks, and why (docs/scenario-format.md, "Limits").
/// MAX_GRADIENTS and MAX_EVALUATIONS are in limits.hpp (a collective run's checks use them too).
/// Each failure starts actors (detection, repair, restart) and writes events.
constexpr double MAX_FAILURES = 1e6;

/// One shard of a partition of the parameters with its share of the time model's costs.
struct ShardShare {
  models::ShardRange range;
  double bytes = 0.0;         ///< its parameters (or a gradient's slice) on the wire
  double update_flops = 0.0;  ///< a server applying one gradient slice
  bool operator==(const ShardShare&) const = default;
};

/// The parameters (`tensors`, `num_params` in all) partitioned over `count` shards
/// (models::partition), each with its fraction size / num_params of `time`'s param_bytes and
/// update_flops (one shard: exactly the time model's numbers). The one formula of a shard's
/// costs: the resolve step's checks and the job's shards (sim/ps/job.hpp) both use it.
std::vector<ShardShare> share_shards(const std::vector<models::Tensor>& tensors,
                                     std::size_t num_params, const TimeModel& time, int count);

struct ResolvedJob {
  models::DataShape train;         ///< the training set the run uses (limits applied)
  models::DataShape test;          ///< the test set the run uses
  std::size_t num_params = 0;      ///< the real model's parameters
  std::vector<ShardShare> shards;  ///< generation 0's partition of the parameters
  TimeModel time;                  ///< what a step costs (docs/time-model.md)
  MemoryEstimate memory;           ///< checked against this machine's memory
  WorkEstimate work;               ///< checked against the MAX_ limits above
  /// A collective scenario's plan (sim/scenario/collective/plan.hpp); none for the parameter
  /// server's (the other fields then describe its real model, when it has real math).
  std::optional<CollectivePlan> collective;
  /// A collective run's work and result size before it starts (checked against the limits of
  /// sim/scenario/collective/work.hpp), and the work the job may do while it runs.
  CollectiveWork collective_work;
  /// What the scenario asks for that runs but is likely a mistake, each as "FILE: POINTER:
  /// what and why" (docs/cluster.md, "Warnings"); resolve() prints them (print_warnings).
  std::vector<std::string> warnings;
};

/// A 1F1B pipeline idle for more than this fraction of a step's compute draws a warning: the
/// bubble (pp - 1) / (m + pp - 1) of pipeline_bubble_fraction exceeds it when m < pp - 1.
constexpr double BUBBLE_WARNING_FRACTION = 0.5;

/// Whether resolve() prints each of ResolvedJob::warnings on stderr, as "failsim: warning: "
/// and the text, once per process for a text (a sweep resolves every point; points alike warn
/// once). On by default; `failsim run -q` turns it off.
void print_warnings(bool on);

/// This machine's physical memory in bytes (sysconf), or the container's memory limit (cgroup)
/// when lower: the budget of MemoryEstimate.
double physical_memory_bytes();

/// Resolves `scenario` (parsed from `file_label`). Throws input::InputError naming the field to
/// change when the job cannot run: data files that do not load (at /data/dir), a model that does
/// not suit the data, sizes that do not fit each other, a job larger than this machine's
/// physical memory (MemoryEstimate) or beyond MAX_GRADIENTS, MAX_EVALUATIONS or MAX_FAILURES.
ResolvedJob resolve(const Scenario& scenario, const std::string& file_label);

/// The data set's shape for `split`, as the run loads it.
models::DataShape data_shape(const Scenario& scenario, models::Split split,
                             const std::string& file_label);

}  // namespace failsim::sim
