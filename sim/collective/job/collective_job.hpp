// The collective job: one driver actor that runs the synchronous steps of a dp x tp x pp job on
// the cluster's simulated network and notices failures; its recovery design, handed to it through
// one small interface (collective_recovery.hpp), checkpoints it and brings it back
// (docs/cluster.md). There is no actor
// per rank: a step's communication is the flows of its collectives (step_network.hpp), started
// together so that they share the links for real, and its computation is the plan's time at the
// ranks' speed. The failures are data known in advance (failure_schedule.hpp), so every wait ends
// at the next failure's time when it comes first. Every simulated second goes to one cause of the
// time ledger (time_ledger.hpp). The job is the step loop and its waits; it composes the nodes'
// state (node_states.hpp), the spare pool (spare_pool.hpp), the times measured on the idle network
// (measured_times.hpp) and the evaluations with the stop they make (evaluations.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/job/background_replays.hpp"
#include "sim/collective/job/collective_recovery.hpp"
#include "sim/collective/job/evaluations.hpp"
#include "sim/collective/job/failure_schedule.hpp"
#include "sim/collective/job/interrupt.hpp"
#include "sim/collective/job/measured_times.hpp"
#include "sim/collective/job/node_states.hpp"
#include "sim/collective/job/replica_math.hpp"
#include "sim/collective/job/spare_pool.hpp"
#include "sim/collective/job/straggler_schedule.hpp"
#include "sim/collective/job/time_ledger.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/output/collective_summary.hpp"
#include "sim/output/recorder.hpp"
#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/collective/work.hpp"

namespace failsim::sim {

class CollectiveJob {
 public:
  struct Options {
    /// Simulate the flows of every step, even when the network is in a state it was in before
    /// (no background flow): the check that the cached step times are exact.
    bool simulate_every_step = false;
    std::function<void(const EvalRecord&)> on_evaluation;
    /// The work the job may do (collective_wall_seconds of its steps, failures, restarts and
    /// checkpoints, sim/scenario/collective/work.hpp) before it stops with stop_reason "work
    /// limit": a run whose stop the resolve step could not bound (by updates or version while
    /// failures keep the job down or rolling back).
    double max_work_seconds = MAX_COLLECTIVE_WALL_SECONDS;
    /// The events the result may hold (the recorder's events, every kind: they are the result's
    /// size and the run's memory) before the same stop.
    double max_event_rows = DEFAULT_MAX_RESULT_BYTES / (EVENT_JSON_BYTES + EVENT_CSV_BYTES);
  };

  /// `math` and `training` are nullptr for a time-only workload; `recovery` is the scenario's
  /// design (made by the runner from recovery.strategy: sim/collective/recovery/recovery.hpp).
  CollectiveJob(const Scenario& scenario, const CollectivePlan& plan, StepNetwork& network,
                ReplicaMath* math, TrainingMath* training, Recorder& recorder,
                std::unique_ptr<CollectiveRecovery> recovery, Options options);
  ~CollectiveJob();

  /// The driver actor's body: runs until a stop criterion is met, or the job cannot restart.
  void operator()();

  const TimeLedger& ledger() const { return ledger_; }
  const CollectiveCounts& counts() const { return counts_; }
  const std::string& stop_reason() const { return stop_reason_; }
  std::int64_t version() const { return version_; }
  /// Which of failures.events the run reached (the others are recorded as not injected).
  const std::vector<bool>& events_injected() const { return nodes_.events_injected(); }
  /// Node-seconds of the spare pool by `end` (SparePool::node_seconds).
  double pool_node_seconds(double end) const { return spares_.node_seconds(end); }
  /// Spares up now (SparePool::up): the nodes a swap could take.
  int spares_up() const { return spares_.up(now()); }

  // ---- What the recovery designs (collective_recovery.hpp) work with -------------------------
  const Scenario& scenario() const { return scenario_; }
  const CollectivePlan& plan() const { return plan_; }
  StepNetwork& network() { return network_; }
  ReplicaMath* math() { return math_; }
  TrainingMath* training() { return training_; }
  Recorder& recorder() { return recorder_; }
  TimeLedger& ledger() { return ledger_; }
  CollectiveCounts& counts() { return counts_; }
  /// The outage that stopped the job (while a design recovers from it).
  const Outage& failure() const { return *failure_; }

  /// Which replicas run, on which nodes, on which data streams (assignment.hpp).
  const Assignment& assignment() const { return assignment_; }
  /// From the next step on, the job runs as `assignment` says: its step is measured again
  /// (once per assignment; the parts of a shape measured before are not simulated again), and
  /// only failures of its nodes stop it.
  void reassign(const Assignment& assignment);
  /// The platform nodes: which are down until when, when each last lost its host memory.
  const NodeStates& nodes() const { return nodes_; }

  double now() const;
  /// A language model's tokens of the steps kept so far, counted as summary.collective.tokens
  /// counts them; none for a classifier.
  std::optional<double> tokens_kept() const;
  /// Sleeps until `t`, or until the next failure or the stop when it comes first; the time
  /// slept goes to `cause`.
  Interrupt sleep_until(double t, TimeCause cause);
  /// Waits for `flows` until they end, or until the next failure or the stop (then cancels
  /// them); the time waited goes to `cause`.
  Interrupt wait(FlowSet& flows, TimeCause cause);
  /// Moves `flows` while training waits (a blocking checkpoint write, a load at a restart),
  /// as wait() does. On a network without the design's traffic the same flows under the same
  /// assignment take the same time, and so do flows of the same shape (FlowShape) under
  /// another: the transfer named `what` is simulated once per shape and later ones take its
  /// time (docs/cluster.md, "Cost proportional to events").
  Interrupt transfer(const std::vector<Flow>& flows, TimeCause cause, const std::string& what);
  /// The same for flows kept in place (a checkpoint's: StepNetwork::checkpoint_reads), compared
  /// with the last transfer's at the flows written since only.
  Interrupt transfer(const TrackedFlows& flows, TimeCause cause, const std::string& what);
  /// Starts `sets` in the background now, on a network with no other traffic (a checkpoint's
  /// copies streaming while training goes on): simulated, or replayed when an episode of the
  /// same writes from the same state was simulated before (background_replays.hpp).
  std::vector<FlowSet> start_background(const std::vector<BackgroundSet>& sets);
  /// Takes every outage due by now, marking its nodes down. True when one of them hit a node in
  /// use (the first such becomes failure() if none is being recovered from); an outage of
  /// nodes the assignment does not use (a dropped replica's, a spare's) only marks them down.
  bool take_due_outages();
  /// Waits until every node in use is up (repair_wait); a node down for good makes it wait for
  /// the stop. STOP when the stop came first. A down node's ranks move to a spare first when
  /// the pool has one up (swap_in_spares), at once and whenever one comes back meanwhile.
  Interrupt wait_for_nodes();
  /// A job restart: the scheduler's delay, process start and the communicators' initialisation
  /// (restart). FAILURE when a node failed meanwhile (the restart is lost: wait again).
  Interrupt restart_processes();
  /// Training goes back to `version` (the parameters of `state`, none in a time-only run): the
  /// steps after it become lost work.
  void roll_back_to(std::int64_t version, const std::optional<ReplicaMath::State>& state);

 private:
  /// The end of the current wait: the next failure, the stop time, or a stop an evaluation
  /// already knows of, whichever is first.
  double deadline() const;
  Interrupt interrupt_at_deadline() const;
  /// At a wait's deadline: STOP, or FAILURE when an outage of a node in use came (taken), or
  /// nullopt when only nodes not in use failed (taken: the wait goes on).
  std::optional<Interrupt> at_deadline();
  /// The deadlines of a collective's run (collectives.hpp); `cut` says why it stopped.
  Deadlines deadlines(Interrupt& cut);
  /// transfer() of `flows`, which are `tracked`'s when it is given.
  Interrupt transfer(const std::vector<Flow>& flows, const TrackedFlows* tracked, TimeCause cause,
                     const std::string& what);
  /// sleep_until and wait without the ledger: the caller decides where the time goes.
  Interrupt sleep_raw(double t);
  Interrupt wait_raw(FlowSet& flows);

  /// The step's length from its phase times and the slowest rank's slowdown (docs/cluster.md):
  /// its pipeline part (every micro-batch's forward and backward) and the whole.
  struct StepLength {
    double pipeline = 0.0;
    double total = 0.0;
  };
  /// One step: its flows and computation, then its update. Returns NONE when it completed.
  Interrupt step();
  /// The step's communication times simulated at its start, when they are not known for the
  /// network's state (nullopt when they are, or when a failure or the stop set `cut`).
  std::optional<StepTimes> measure_step(Interrupt& cut);
  /// Steps that nothing can tell apart (docs/cluster.md, "Cost proportional to events"): the
  /// network idle under a measured assignment, no straggler change, no failure, stop or design
  /// action before they end. They are taken at once, one sleep for all (the real math and the
  /// evaluations still step by step); the first that could differ is left to step(). Returns
  /// how many were taken (0: none could be).
  std::int64_t quiet_steps();
  /// The bookkeeping of a completed step that ended at `end`: its update, counts, ledger
  /// (`nominal`: the step without stragglers or interference).
  void complete_step(double end, double nominal, const StepLength& length,
                     const StepLength& with_stragglers);
  /// The step's communication times on the idle network under the current assignment, once
  /// measured.
  const StepTimes* clean_times() const { return clean_times_; }
  /// Records them, and the shapes of the parts simulated (MeasuredTimes::add_step).
  void set_clean_times(const StepTimes& times, const MeasuredTimes::StepParts& parts);
  /// Whether a step's parts are worth looking up by shape: the job may run under another
  /// assignment than the first.
  bool reassigns() const;
  StepLength step_seconds(const StepTimes& t, double slowdown) const;
  /// Whether an outage hits a node the assignment uses.
  bool in_use(const Outage& o) const;

  /// From the failure to its detection (watchdog or heartbeat); false when the stop came first.
  bool detect();
  bool nodes_up() const;
  double nodes_back() const;
  /// Moves the ranks of every down node in use to a spare (SparePool::swap_in). Returns how
  /// many nodes it replaced.
  int swap_in_spares();
  /// Records an outage taken (its event and log line).
  void record(const Outage& o);
  /// The stop known ahead: an evaluation's, or the job's own (nodes lost for good).
  double stop_at() const { return evaluations_.stop_at(); }
  void stop(const std::string& reason);
  /// Whether the work done so far is beyond Options::max_work_seconds or its events beyond
  /// Options::max_event_rows (then it stays so).
  bool over_work_limit();

  const Scenario& scenario_;
  const CollectivePlan& plan_;
  StepNetwork& network_;
  ReplicaMath* math_;
  TrainingMath* training_;
  Recorder& recorder_;
  Options options_;
  NodeStates nodes_;
  StragglerSchedule stragglers_;
  TimeLedger ledger_;
  CollectiveCounts counts_;
  std::unique_ptr<CollectiveRecovery> recovery_;
  SparePool spares_;
  MeasuredTimes measured_;
  BackgroundReplays background_;
  Evaluations evaluations_;

  std::int64_t version_ = 0;
  double incarnation_start_ = 0.0;  // when the running processes started (heartbeats count from it)
  Assignment assignment_;
  std::vector<char> node_in_use_;  // per platform node, under assignment_
  // measured_.step(assignment_), looked up when either changes (clean_times() is asked every
  // step).
  const StepTimes* clean_times_ = nullptr;
  std::optional<Outage> failure_;  // the outage that stopped the job, until it recovers
  std::string stop_reason_;
  bool over_work_limit_ = false;
};

}  // namespace failsim::sim
