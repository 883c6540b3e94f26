// Where a run is while it runs, as the simulation knows it: what the CLI's progress line shows
// (docs/cli.md, "Progress line"). Each protocol's runner fills what it knows; engine-free.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/output/recorder.hpp"

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

}  // namespace failsim::sim
