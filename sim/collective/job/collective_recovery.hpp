// How a collective job survives failures: the one small interface a recovery design implements
// (docs/cluster.md). The job (collective_job.hpp) runs the steps, notices failures and gives the
// designs its primitives: waits that end at the next failure or the stop, the ledger, the math's
// state, the nodes' state, waiting for repairs and restarting processes. A design decides what
// happens after each step (a checkpoint) and how the job comes back after a detected failure.
// The designs live in rooms of their own (sim/collective/recovery/<room>/, one line of
// designs.def each); the runner makes the scenario's design (recovery/recovery.hpp) and hands it
// to the job, so the job knows this interface and no design.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "sim/collective/job/interrupt.hpp"

namespace failsim::sim {

class CollectiveJob;

/// When a step's parts happened (simulated seconds): it began, its last backward pass ended
/// (the data-parallel collectives that do not overlap it come after), its update is due.
struct StepSpan {
  double begin = 0.0;
  double backward_end = 0.0;
  double end = 0.0;
};

class CollectiveRecovery {
 public:
  virtual ~CollectiveRecovery() = default;
  /// At the start of the run (e.g. the version-0 state a restart from scratch loads).
  virtual void start(CollectiveJob& job) = 0;
  /// At every step boundary, before the next step: background work that finished.
  virtual void poll(CollectiveJob& /*job*/) {}
  /// At the start of a step, once the stop criteria let it run (e.g. a per-step quorum).
  /// Returns Interrupt::NONE, or what cut it short (no step has started: nothing is lost).
  virtual Interrupt before_step(CollectiveJob& job);
  /// A step's computation and communication are over and its update is about to be applied
  /// (job.version() is still the version it started from): a design may make the update wait
  /// (e.g. for a copy of the parameters it must not change). Returns Interrupt::NONE, or what
  /// cut the wait short (the step is then lost, or unfinished at the stop).
  virtual Interrupt before_update(CollectiveJob& job, const StepSpan& span);
  /// The step completed: applies its update (job.version() is still the version it started
  /// from). By default one synchronous step of job.math() on the assignment's streams; a design
  /// with a math of its own replaces it (DiLoCo: each group's inner step, an outer step every H;
  /// job.math() then holds the parameters the job evaluates).
  virtual void apply_update(CollectiveJob& job);
  /// After a step completed (job.version() is its version): e.g. a checkpoint if one is due.
  /// Returns Interrupt::NONE, or what cut it short.
  virtual Interrupt after_step(CollectiveJob& job) = 0;
  /// The first version after whose step the design may act (in before_update or after_step) or
  /// has background work for poll: the job may take the steps before it at once, without calling
  /// the design in between (docs/cluster.md, "Cost proportional to events"). The default,
  /// version + 1, asks for every step. A step in a batch, even a batch of one, calls no
  /// before_update: a design that may make the next step's update wait returns version() (the
  /// next step is then taken alone).
  virtual std::int64_t next_action_version(const CollectiveJob& job) const;
  /// Whether the design's own traffic is on the network now (the steps must then simulate
  /// their flows instead of reusing the idle network's times).
  virtual bool network_busy() const { return false; }
  /// When the failure that stopped the job (job.failure()) is noticed, if the design knows
  /// (e.g. a collective that fails at once); nullopt: failures.detection says (the watchdog's
  /// timeout or the missed heartbeats).
  virtual std::optional<double> detected_at(const CollectiveJob& /*job*/) const {
    return std::nullopt;
  }
  /// The job noticed a failure (job.failure()) and every rank stopped: brings training back.
  /// False when the run must end (the stop came first).
  virtual bool recover(CollectiveJob& job) = 0;
  /// At the end of the run.
  virtual void finish(CollectiveJob& /*job*/) {}
};

/// The end of every design's recovery (docs/cluster.md, "Checkpoint-restart", steps 3 to 5):
/// waits for the nodes in use, restarts the processes, then calls `load`, which loads what the
/// design restores and returns how its wait went (it may roll back further first: a failure
/// during an earlier attempt may have lost a copy it meant to load). A failure during the
/// restart or the load starts again from the wait. False when the stop came first.
bool restart_and_load(CollectiveJob& job, const std::function<Interrupt()>& load);

}  // namespace failsim::sim
