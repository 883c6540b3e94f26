// What a collective run reports beside the events and the time series (result.json's
// `summary.collective`, docs/result-format.md): its counts, where its time went, and the plan's
// numbers a reader needs to judge them. Engine-free.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "result_format/time_cause.hpp"

namespace failsim::sim {

using result_format::TIME_CAUSES;
using result_format::TimeCause;

/// What the job counts besides the ledger.
struct CollectiveCounts {
  std::int64_t steps_completed = 0;    ///< steps whose update was applied (rolled back or not)
  std::int64_t steps_rolled_back = 0;  ///< of those, undone by restarts
  double samples_completed = 0.0;      ///< the batches of the completed steps, in samples
  double samples_rolled_back = 0.0;    ///< of those, the rolled-back steps'
  std::int64_t failures = 0;           ///< outages that happened before the stop
  std::int64_t restarts = 0;           ///< job restarts that began
  std::int64_t checkpoints = 0;        ///< checkpoints that became durable
  std::int64_t spare_swaps = 0;        ///< failed nodes whose ranks moved to a spare
  /// The nominal step: no straggler, nothing else on the network (simulated seconds).
  double nominal_step_seconds = 0.0;
  /// Its communication parts measured on the idle network (step_network.hpp).
  double tensor_parallel_seconds = 0.0;
  double pipeline_send_seconds = 0.0;
  double data_parallel_seconds = 0.0;
};

struct CollectiveSummary {
  bool real_math = true;
  CollectiveCounts counts;
  std::int64_t version = 0;                   ///< steps kept: the parameters' version at the end
  double samples_kept = 0.0;                  ///< the kept steps' samples
  std::array<double, TIME_CAUSES> seconds{};  ///< by TimeCause; they sum to the end time
  double ettr = 0.0;                          ///< productive seconds / end time
  int ranks = 0, nodes = 0;
  int spare_nodes = 0;           ///< platform.spares
  double pool_node_hours = 0.0;  ///< node-hours of the pool: up, paid, used by no plan node
  double step_flops = 0.0, tokens_per_step = 0.0, samples_per_step = 0.0;
  double compute_seconds = 0.0, bubble_fraction = 0.0;
  double device_memory_bytes = 0.0, checkpoint_bytes = 0.0;
  std::size_t flows_per_step = 0;
};

}  // namespace failsim::sim
