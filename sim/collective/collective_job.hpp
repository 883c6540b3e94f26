// The collective job: one driver actor that runs the synchronous steps of a dp x tp x pp job on
// the cluster's simulated network, checkpoints it, and takes it through failures — detection,
// waiting for repairs, a restart and the checkpoint's load — with checkpoint-restart (docs/
// cluster.md). There is no actor per rank: a step's communication is the flows of its
// collectives (step_network.hpp), started together so that they share the links for real, and
// its computation is the plan's time at the ranks' speed. The failures are data known in
// advance (failure_schedule.hpp), so every wait ends at the next failure's time when it comes
// first. Every simulated second goes to one cause of the time ledger (time_ledger.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective/collective_summary.hpp"
#include "sim/collective/failure_schedule.hpp"
#include "sim/collective/flows.hpp"
#include "sim/collective/replica_math.hpp"
#include "sim/collective/step_network.hpp"
#include "sim/collective/time_ledger.hpp"
#include "sim/output/recorder.hpp"
#include "sim/scenario/collective_plan.hpp"

namespace failsim::sim {

class CollectiveJob {
 public:
  struct Options {
    /// Simulate the flows of every step, even when the network is in a state it was in before
    /// (no background flow): the check that the cached step times are exact.
    bool simulate_every_step = false;
    std::function<void(const EvalRecord&)> on_evaluation;
  };

  /// `math` is nullptr for a time-only workload.
  CollectiveJob(const Scenario& scenario, const CollectivePlan& plan, StepNetwork& network,
                ReplicaMath* math, TrainingMath* training, Recorder& recorder, Options options);

  /// The driver actor's body: runs until a stop criterion is met, or the job cannot restart.
  void operator()();

  const TimeLedger& ledger() const { return ledger_; }
  const CollectiveCounts& counts() const { return counts_; }
  const std::string& stop_reason() const { return stop_reason_; }
  std::int64_t version() const { return version_; }
  /// Which of failures.events the run reached (the others are recorded as not injected).
  const std::vector<bool>& events_injected() const { return events_injected_; }

 private:
  struct Checkpoint {
    std::int64_t version = 0;
    std::optional<ReplicaMath::State> state;  // none for a time-only run
  };
  /// A snapshot checkpoint whose write is still going on in the background.
  struct Persisting {
    Checkpoint checkpoint;
    FlowSet writes;
  };
  /// Why a wait ended early.
  enum class Interrupt { NONE, FAILURE, STOP };

  double now() const;
  /// The end of the current wait: the next failure, the stop time, or a stop an evaluation
  /// already knows of, whichever is first.
  double deadline() const;
  /// Sleeps until `t` or the deadline; tells which ended it.
  Interrupt sleep_until(double t);
  /// Waits for `flows` until they end or the deadline.
  Interrupt wait(FlowSet& flows);
  Interrupt interrupt_at_deadline() const;

  /// One step: its flows and computation, then its update. Returns NONE when it completed.
  Interrupt step();
  /// The step's communication times on the idle network, measured by the first step.
  void set_clean_times(const StepTimes& times);
  double straggler_slowdown(double begin) const;
  /// The step's length from its phase times and the slowest rank's slowdown (docs/cluster.md).
  double step_seconds(const StepTimes& t, double slowdown) const;

  Interrupt checkpoint();
  /// Makes a checkpoint durable (the ledger commits the steps before it).
  void make_durable(Checkpoint checkpoint);
  /// The background write done? Then its checkpoint is durable.
  void poll_persisting();

  /// From a failure at its time to training again (or to the stop): detection, the rollback,
  /// waiting for repairs, the restart and the load. Returns false when the run must end.
  bool recover();
  /// Takes every outage due by now, marking its nodes down.
  void take_due_outages();
  bool nodes_up() const;
  double nodes_back() const;

  /// Evaluations scheduled up to now, at the parameters of their time (constant since the
  /// last change); and the stop an evaluation of the current parameters would make.
  void evaluate_through(double t);
  void parameters_changed();
  void stop(const std::string& reason);

  const Scenario& scenario_;
  const CollectivePlan& plan_;
  StepNetwork& network_;
  ReplicaMath* math_;
  TrainingMath* training_;
  Recorder& recorder_;
  Options options_;
  FailureSchedule schedule_;
  TimeLedger ledger_;
  CollectiveCounts counts_;

  std::int64_t version_ = 0;
  double incarnation_start_ = 0.0;  // when the running processes started (heartbeats count from it)
  std::optional<StepTimes> clean_;
  Checkpoint durable_;
  std::optional<Persisting> persisting_;
  std::vector<double> down_until_;  // per node
  std::optional<Outage> failure_;   // the outage that stopped the job, until it recovers
  std::int64_t evaluations_done_ = 0;
  double stop_at_ = std::numeric_limits<double>::infinity();  // an evaluation's stop, once known
  std::string stop_at_reason_;
  std::string stop_reason_;
  std::vector<bool> events_injected_;
};

}  // namespace failsim::sim
