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
#include "sim/scenario/collective_plan.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/time_model.hpp"

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
  double evaluations = 0.0;  ///< scheduled evaluations at least (evaluation.interval)
  double failures = 0.0;     ///< random failures expected (failures.stochastic)
};

/// The limits the resolve step checks, and why (docs/scenario-format.md, "Limits").
/// At the simulator's ~100,000 gradients per wall second, 1e9 gradients are about three hours.
constexpr double MAX_GRADIENTS = 1e9;
/// Each evaluation is a timeseries row and a test pass on its cached parameters.
constexpr double MAX_EVALUATIONS = 1e6;
/// Each failure starts actors (detection, repair, restart) and writes events.
constexpr double MAX_FAILURES = 1e6;

struct ResolvedJob {
  models::DataShape train;                 ///< the training set the run uses (limits applied)
  models::DataShape test;                  ///< the test set the run uses
  std::size_t num_params = 0;              ///< the real model's parameters
  std::vector<models::ShardRange> shards;  ///< generation 0's partition of the parameters
  TimeModel time;                          ///< what a step costs (docs/time-model.md)
  MemoryEstimate memory;                   ///< checked against this machine's memory
  WorkEstimate work;                       ///< checked against the MAX_ limits above
  /// A collective scenario's plan (sim/scenario/collective_plan.hpp); none for the parameter
  /// server's (the other fields then describe its real model, when it has real math).
  std::optional<CollectivePlan> collective;
};

/// This machine's physical memory in bytes (sysconf), or the container's memory limit (cgroup)
/// when lower: the budget of MemoryEstimate.
double physical_memory_bytes();

/// "1.5 GiB", "320 MiB", "12 kiB", "100 B": a size in messages.
std::string format_bytes(double bytes);

/// Resolves `scenario` (parsed from `file_label`). Throws input::InputError naming the field to
/// change when the job cannot run: data files that do not load (at /data/dir), a model that does
/// not suit the data, sizes that do not fit each other, a job larger than this machine's
/// physical memory (MemoryEstimate) or beyond MAX_GRADIENTS, MAX_EVALUATIONS or MAX_FAILURES.
ResolvedJob resolve(const Scenario& scenario, const std::string& file_label);

/// The data set's shape for `split`, as the run loads it.
models::DataShape data_shape(const Scenario& scenario, models::Split split,
                             const std::string& file_label);

}  // namespace failsim::sim
