// run(Scenario) -> RunResult: one simulated training run. One per process (SimGrid allows one
// engine per process; see docs/testing.md).
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/simgrid_probe.hpp"
#include "sim/engine/snapshot.hpp"
#include "sim/output/collective_summary.hpp"
#include "sim/output/recorder.hpp"
#include "sim/ps/sharding.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// Where a run is, as the simulation knows it: what the CLI's progress line shows
/// (docs/cli.md, "Progress line").
struct Progress {
  double time = 0.0;         ///< simulated seconds now
  std::int64_t updates = 0;  ///< updates applied so far (stop.updates counts them)
  /// The highest version among the shards' parameters now (stop.version stops at it).
  std::int64_t version = 0;
  std::optional<EvalRecord> evaluation;  ///< the latest scheduled evaluation, if any
  /// Since when training is stalled (a server process is dead and its shard has not updated
  /// since, or an elastic job is resizing): Recorder::stalled_since(). nullopt: it moves.
  std::optional<double> stalled_since;
  int server_hosts_down = 0;  ///< server hosts turned off by a failure now
  int worker_hosts_down = 0;  ///< worker hosts turned off now
  bool storage_down = false;  ///< the storage host is off now
  double wall_seconds = 0.0;  ///< wall clock since the simulation started (set-up excluded)
};

/// on_progress is called at most this often on the wall clock while simulated time advances,
/// and after every scheduled evaluation.
constexpr double PROGRESS_INTERVAL_SECONDS = 0.25;

struct RunOptions {
  std::string file_label = "scenario";    ///< names the scenario file in error messages
  std::vector<std::string> simgrid_args;  ///< e.g. "--cfg=network/model:CM02", "--log=..."
  /// Threads computing the math (sim/engine/math_pool.hpp), >= 1; the results do not depend on it.
  int threads = 1;
  std::function<void(const EvalRecord&)> on_evaluation;  ///< called after each evaluation
  /// Collective runs: simulate the network of every step, not once per state of the network
  /// (the check that the cached step times are exact; results are identical).
  bool simulate_every_step = false;
  /// Called after each evaluation and every PROGRESS_INTERVAL_SECONDS of wall clock as simulated
  /// time advances; reads the simulation, changes nothing in it.
  std::function<void(const Progress&)> on_progress;
  /// Further scenarios simulated with this one, forking where their failures at a time differ
  /// (sim/ps/branching.hpp), and their file labels.
  std::vector<Scenario> branches;
  std::vector<std::string> branch_labels;
};

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

/// What run() makes sure of before it simulates: the scenario's resolved job and its actors'
/// stacks.
struct CheckedRun {
  ResolvedJob job;
  ActorStacks stacks;
};

/// The checks run() makes before simulating, and nothing else: resolve() of the scenario and of
/// each of RunOptions::branches, and the SimGrid probe of the scenario with
/// RunOptions::simgrid_args (sim/engine/simgrid_probe.hpp). Throws InputError as run() does; writes
/// nothing. `failsim run --dry-run` stops here.
CheckedRun check_run(const Scenario& scenario, const RunOptions& options);

/// Simulates the scenario (and RunOptions::branches: then each process that returns holds the
/// results of one of them, and the caller must wait for RunResult::children). Throws InputError
/// for input found bad only now (e.g. a host name not in the platform file) and models::DataError
/// for unreadable data.
RunResult run(const Scenario& scenario, const RunOptions& options = {});

}  // namespace failsim::sim
