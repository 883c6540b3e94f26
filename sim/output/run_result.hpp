// What one simulated run returns, whatever its protocol: its status, its recorder, its final
// parameters and the numbers result.json reports (docs/result-format.md). Written by the
// runners (sim/ps/run_ps.hpp, sim/collective/run_collective.hpp), read by result_writer.hpp.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/snapshot.hpp"
#include "sim/output/collective_summary.hpp"
#include "sim/output/recorder.hpp"
#include "sim/ps/sharding.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

enum class RunStatus {
  COMPLETED,  ///< a stop condition was met
  DIVERGED,   ///< the test loss stopped being finite (a numerical outcome, not an error)
  DEADLOCK,   ///< SimGrid found every actor blocked: a failed run
};

std::string to_string(RunStatus status);

struct RunResult {
  Scenario scenario;            ///< the scenario these results are of
  std::size_t member = 0;       ///< which: 0 the run's, i > 0 RunOptions::branches[i - 1]
  std::vector<pid_t> children;  ///< processes this one forked for branches: wait_for_children
  RunStatus status = RunStatus::COMPLETED;
  std::string stop_reason;  ///< "time", "updates", "target_accuracy", "diverged", "deadlock"
  double end_time = 0.0;    ///< simulated seconds
  Recorder recorder;
  std::optional<EvalRecord> final_evaluation;  ///< the full test set at the end, if asked for
  SnapshotPtr final_snapshot;                  ///< the parameters training has at the end
  std::int64_t gradients_pending = 0;          ///< computed, not yet applied when the run ended
  std::int64_t peak_pending = 0;               ///< most gradients held pending at once (stateless)
  double peak_pending_bytes = 0.0;             ///< their bytes (each shard's slices at its size)
  std::vector<ShardRange> shard_ranges;        ///< the parameters of each server shard
  std::vector<std::string> worker_hosts, server_hosts;
  std::size_t num_params = 0;
  double param_bytes = 0.0, gradient_flops = 0.0;
  double setup_seconds = 0.0;  ///< wall clock before the simulation starts (data, model, platform)
  double math_seconds = 0.0;   ///< thread-seconds in gradients, updates and evaluations
  double wall_seconds = 0.0;   ///< wall clock of the whole run, set-up included
  /// A collective run's own summary (protocol COLLECTIVE only).
  std::optional<CollectiveSummary> collective;
};

}  // namespace failsim::sim
