// The work and the output of a collective run, estimated before it starts (docs/scenario-format.md,
// "Limits"): how many steps, failures, restarts, straggler spells, checkpoints and evaluations
// its stop criteria let it simulate, what that costs in wall time at the rates measured below,
// and how many bytes its result takes. The resolve step refuses a run beyond the limits with the
// fields that make it so; a run whose length no limit can know in advance (stopped by `updates`
// or `version` while failures may keep it down or rolling back) is stopped by the job when the
// work it has done passes the same limit (stop_reason "work limit"). Engine-free.
#pragma once

#include <cstdint>
#include <string>

#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

// What the collective job simulates per wall second, measured by bench/work-rates.py (`failsim
// run --threads 1`) on the idle 2-core development machine at b503a2f, on variants of
// scenarios/cluster/llama3-rates.json (16 ranks on 4 nodes, time only, steps of 4.07 s), each
// made of one kind of event; the constants are the measured rates rounded down.
/// No failure, no checkpoint, a stop of 30 d: 636,585 steps in 0.17 s (quiet batches, taken at
/// once); a step taken alone costs far more, and is counted as the event that makes it alone.
constexpr double COLLECTIVE_STEPS_PER_WALL_SECOND = 3.0e6;
/// Accelerators of 10 s mean lifetime, 1 s repairs, a stop of 1 d: 125,529 failures and 30,027
/// restarts in 3.2 s (49,000 a second); node failures 4 h apart for 100 d: 2,396 failures, 1,992
/// restarts, 7,302 checkpoints and 1.6 million steps in 0.34 s. Failures and restarts alike.
constexpr double COLLECTIVE_FAILURES_PER_WALL_SECOND = 4.0e4;
/// Spells of 1 min every 10 min (exponential) on each of 16 accelerators for 30 d: about 62,800
/// spells (and 475,338 steps) in 0.24 s.
constexpr double COLLECTIVE_SPELLS_PER_WALL_SECOND = 2.0e5;
/// Snapshot checkpoints after every step for 2 d: 42,165 in 11.1 s (each makes the next steps'
/// network busy, so they are simulated flow by flow); blocking ones cost far less (34,686 in
/// 0.5 s), and are counted at the same rate.
constexpr double COLLECTIVE_CHECKPOINTS_PER_WALL_SECOND = 3000.0;
/// The work a collective run may take: about an hour of wall time at the rates above.
constexpr double MAX_COLLECTIVE_WALL_SECONDS = 3600.0;

// The result's size (measured on the same runs): every event is a row of events.csv (when
// output.events) and an object of result.json's "events"; every evaluation a row of
// timeseries.csv (when output.timeseries).
/// events.csv: 15.0 MB for 155,939 rows of failures and restarts; 5.7 MB for 84,334 of
/// checkpoints.
constexpr double EVENT_CSV_BYTES = 100.0;
/// result.json's events: 35.1 MB for the 155,939; 13.7 MB for the 84,334.
constexpr double EVENT_JSON_BYTES = 230.0;
/// A timeseries row: scenarios/cluster/diloco.json writes 1,154 bytes for 24 rows and a header.
constexpr double TIMESERIES_ROW_BYTES = 60.0;
/// A listed failure event or straggler spell (failures.events, failures.stragglers), copied
/// into result.json's "scenario" section (indented 8 deep): the 150,000 node events of
/// tests/hostile's events-at-same-instant take 18.6 MB there (124 bytes each), the 150,000
/// accelerator events of events-every-ns, with times of 14 digits, 20.4 MB (136 bytes each).
constexpr double LISTED_EVENT_JSON_BYTES = 125.0;
/// The default of output.max_size: a result of at most 1 GiB. The run holds its events in
/// memory until it writes them (about 2.4 kB each: 441 MB for the 155,939), so 1 GiB of result
/// is about 8 GB of memory.
constexpr double DEFAULT_MAX_RESULT_BYTES = 1024.0 * 1024.0 * 1024.0;

/// A collective run's work, before it starts. Counts are expectations (random processes at
/// their means) over the horizon: the stop time, or when no stop time bounds the run, the least
/// time its steps take (then the counts are lower bounds).
struct CollectiveWork {
  bool horizon_known = false;  ///< stop.time bounds the run
  double horizon = 0.0;        ///< simulated seconds
  double steps = 0.0;          ///< steps at most (at least, with a stop by version only)
  double failures = 0.0;       ///< outages: scheduled, replayed and random
  double restarts = 0.0;       ///< at most one per failure
  /// Failures that each failure costs before a restart completes (with no stop time; 1 with
  /// one): e^(lambda R) (see failures_per_restart).
  double failures_per_restart = 1.0;
  double spells = 0.0;         ///< straggler spells, scheduled and random
  double checkpoints = 0.0;    ///< every design's, over `steps`
  double evaluations = 0.0;    ///< scheduled (real math only)
  double event_rows = 0.0;     ///< events the result records
  double listed_events = 0.0;  ///< failures.events and stragglers, in result.json's scenario
  double timeseries_rows = 0.0;
  /// The work the job may do while it runs (collective_wall_seconds of its counts), beyond
  /// which it stops with stop_reason "work limit": for the runs whose horizon is not known.
  double max_wall_seconds = MAX_COLLECTIVE_WALL_SECONDS;
  /// The events the result may hold (output.max_size over the bytes of one), beyond which the
  /// job stops as well (with the same reason).
  double max_event_rows = DEFAULT_MAX_RESULT_BYTES / (EVENT_JSON_BYTES + EVENT_CSV_BYTES);

  /// Wall seconds at the measured rates (collective_wall_seconds).
  double wall_seconds() const;
  /// Bytes of events.csv, timeseries.csv, result.json's events and evaluations, and its copy of
  /// the listed events and spells.
  double result_bytes(const OutputConfig& output) const;
};

/// Events a collective job records for its counts: a failure, a restart, a checkpoint (its
/// start and its durable write).
double collective_event_rows(double failures, double restarts, double checkpoints);

/// Wall seconds the collective job takes for that much work at the measured rates above: the
/// estimate before a run, and the job's own account while it runs.
double collective_wall_seconds(double steps, double failures_and_restarts, double spells,
                               double checkpoints);

/// The simulated seconds a restart of the job needs without a failure: the scheduler's delay,
/// the processes' start and the communicators' set-up (restart_processes of the job).
double restart_seconds(const Scenario& s, const CollectivePlan& plan);

/// The failures each failure costs in expectation before the job's restart completes, when no
/// stop time bounds the run: the restart needs R = restart_seconds without a failure while the
/// random processes fail at lambda = sum over their components of 1 / mean lifetime together,
/// so a restart gets through with probability e^(-lambda R) and e^(lambda R) failures come
/// before one does (infinite when that overflows). 1 without random failures.
double failures_per_restart(const Scenario& s, const CollectivePlan& plan);

/// The work of `s` with its plan (see CollectiveWork).
CollectiveWork estimate_collective_work(const Scenario& s, const CollectivePlan& plan);

/// Checks the work of `s` with its plan: its stop, with real math its gradients (a step is dp
/// of them) and scheduled evaluations (MAX_GRADIENTS, MAX_EVALUATIONS of limits.hpp), then
/// check_collective_limits. The resolve step's one call for a collective run.
CollectiveWork check_collective_work(const Scenario& s, const CollectivePlan& plan,
                                     const std::string& file);

/// Estimates the work of `s` and refuses it (input::InputError naming the field to change,
/// the limit and the estimate with the fields it comes from) when: no stop criterion bounds it
/// (target_accuracy alone), its wall time is beyond MAX_COLLECTIVE_WALL_SECONDS, or its result
/// is beyond output.max_size (DEFAULT_MAX_RESULT_BYTES).
CollectiveWork check_collective_limits(const Scenario& s, const CollectivePlan& plan,
                                       const std::string& file);

}  // namespace failsim::sim
