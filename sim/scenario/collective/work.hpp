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

// The set-up of a collective run, before its first simulated event (issue 32, class 4): the
// plan (ranks placed, groups built, checkpoint shares), the platform SimGrid builds (a zone per
// node, a host and a link per accelerator, the fabric, the file system's routes), the step
// network (a flow and a route per rank and group) and the job's schedules (a random stream and a
// first draw per component of every failure and straggler process). Measured by
// bench/setup-rates.py at 4fea192 on the 2-core development machine under a load of 5 to 7 (CPU
// time, which the load changes little): the plan by `failsim run --dry-run` of 1 to 4 million
// ranks, the rest by result.json's setup_seconds of runs of up to 32,768 ranks and 4,096 nodes,
// fitted by least squares; the constants are the measured ones rounded up.
/// Per rank of the job: the plan's 2.6e-6 s measured (and 271 bytes), and the step network's
/// and the job's share, below what the fit resolves at 32,768 ranks.
constexpr double SETUP_SECONDS_PER_RANK = 5e-6;
/// The platform (FabricZone, built in time linear in its nodes): each accelerator's host and
/// link (PLATFORM_SECONDS_PER_ACCELERATOR, fit 1.1e-5 s on the idle machine at the merge of the
/// fabric zone, 1.6e-5 to 1.9e-5 s under a load of 5 to 7 before it) and each node's NIC links
/// (PLATFORM_SECONDS_PER_NODE, fit 8.9e-6 s; a term in the square of the nodes fit 7e-10 s, 0.01
/// s at 4,096 nodes, noise). The zone per node that SimGrid searched by name at each host made
/// this quadratic before (4,096 nodes of 4 accelerators: 26.7 s, now 0.2 s).
constexpr double PLATFORM_SECONDS_PER_ACCELERATOR = 2.5e-5;
constexpr double PLATFORM_SECONDS_PER_NODE = 2e-5;
/// The job's first step, simulated flow by flow (later ones of the same shape reuse its time),
/// per flow of a set of about one flow per rank. Its sets of 8,192 flows and more start from
/// endpoint actors (docs/performance.md, "Flows without SimGrid's list walk"), one per host, so
/// they cost a constant per flow, mostly the actors' memory (their stacks cleared, page faults).
/// Measured by bench/setup-rates.py --first-step (the first step of data-parallel jobs of 16 to
/// 64 accelerators a node, stopped after 1 update, CPU time less the set-up; idle machine, issue
/// 33): 1.0e-4 s at 8,192 ranks (0.85 s), 9.2e-5 at 32,768 (3.0 s), 1.3e-4 at 131,072 (17 s),
/// 1.5e-4 at 262,144 (41 s); fit through 0, 1.47e-4. It grows a little with the size (the
/// allocator and SimGrid's run list, which it searches for each actor woken).
/// Per set of flows (first_step_flow_sets): those jobs have one. An upper bound for a layout of
/// several sets: the actors the first set makes serve the later ones, which cost about 3e-6 s a
/// flow (a spare swap's two sets of 16,384 flows in the Llama-3-sized job: 0.11 s).
constexpr double FIRST_STEP_SECONDS_PER_FLOW = 1.5e-4;
/// Per random stream of a failure or straggler process (a component of its target), and per
/// scheduled failure, outage of a trace or scheduled spell: below what the fit resolves (65,536
/// streams changed the set-up by less than 0.02 s); an upper bound.
constexpr double SETUP_SECONDS_PER_STREAM = 1e-6;

/// The memory a collective run holds once its first step has run (peak resident set over a
/// 16-rank run's, same runs): per rank (the plan, the step network, the first step's flows and,
/// from 8,192 ranks, an endpoint actor's 16 KiB stack each, cleared by SimGrid) 14 to 19 kB
/// measured from 4,096 to 16,384 ranks before issue 33, and 20.6 kB at 262,144 ranks since
/// (bench/setup-rates.py --first-step: 24.7 kB a rank in all, less an accelerator's 4 kB); per
/// accelerator of the platform (a host and its link, spares included: 2 nodes and 30 to 1,022
/// spare nodes, 32,768 to 262,144 accelerators) 3.0 to 4.0 kB. The random streams' share is
/// below what the fit resolves.
constexpr double SETUP_BYTES_PER_RANK = 21.0 * 1024.0;
constexpr double SETUP_BYTES_PER_ACCELERATOR = 4.0 * 1024.0;
/// Per node of the platform (its NIC links, its place under a leaf), spares included: platforms
/// of 2 nodes and 131,070 to 524,286 spare nodes of one accelerator each took 4.6 kB a node in
/// all (2.4 GiB for 524,288 in 17 s), those of 8 accelerators 2.9 kB an accelerator (issue 33).
constexpr double SETUP_BYTES_PER_NODE = 2.0 * 1024.0;
/// The memory a collective run's set-up may take: 16 GiB, within the development machine's 23
/// GiB and CI's 24 GiB.
constexpr double MAX_COLLECTIVE_SETUP_BYTES = 16.0 * 1024.0 * 1024.0 * 1024.0;

/// A collective run's set-up in wall seconds, by part, and its memory.
struct CollectiveSetup {
  double ranks = 0.0;       ///< the plan and the step network
  double platform = 0.0;    ///< SimGrid's platform
  double schedules = 0.0;   ///< the failure and straggler schedules
  double first_step = 0.0;  ///< the first step's flows (FIRST_STEP_SECONDS_PER_FLOW)
  double bytes = 0.0;       ///< memory (SETUP_BYTES_PER_RANK, _ACCELERATOR, _NODE)
  double total() const { return ranks + platform + schedules + first_step; }
};

/// The platform's construction for `nodes` nodes of `accelerators` accelerators in all (spares
/// included): accelerators x PLATFORM_SECONDS_PER_ACCELERATOR + nodes x
/// PLATFORM_SECONDS_PER_NODE.
double collective_platform_seconds(double nodes, double accelerators);

/// The sets of flows of about one per rank each that the first step and the first checkpoint
/// simulate flow by flow (FIRST_STEP_SECONDS_PER_FLOW per rank and set): the tensor-parallel
/// rings, the pipeline's sends and the data-parallel
/// collectives as the plan makes them from the layout, and a checkpoint's write when the design
/// writes any. At least 1.
double first_step_flow_sets(const Scenario& s);

/// The set-up of `s` (protocol COLLECTIVE), from its platform and failures alone: the plan's
/// ranks are the job's accelerators (the plan refuses a layout of any other count).
CollectiveSetup estimate_collective_setup(const Scenario& s);

/// Refuses `s` (input::InputError naming the field to change, the limit and the estimate by part)
/// when its set-up would take more than MAX_COLLECTIVE_WALL_SECONDS or its memory more than
/// MAX_COLLECTIVE_SETUP_BYTES, before its plan is built; returns the estimate otherwise.
CollectiveSetup check_collective_setup(const Scenario& s, const std::string& file);

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
  /// Wall seconds before the first simulated event and of the first step, and the memory they
  /// take (estimate_collective_setup).
  double setup_seconds = 0.0;
  double setup_bytes = 0.0;
  /// The work the job may do while it runs (collective_wall_seconds of its counts), beyond
  /// which it stops with stop_reason "work limit": for the runs whose horizon is not known.
  double max_wall_seconds = MAX_COLLECTIVE_WALL_SECONDS;
  /// The events the result may hold (output.max_size over the bytes of one), beyond which the
  /// job stops as well (with the same reason).
  double max_event_rows = DEFAULT_MAX_RESULT_BYTES / (EVENT_JSON_BYTES + EVENT_CSV_BYTES);

  /// Wall seconds at the measured rates: the set-up and collective_wall_seconds of the counts.
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
