// A collective job's evaluations and the stop they make (docs/scenario-format.md, evaluation):
// evaluation k happens at k x evaluation.interval, on the parameters of that time, and with
// evaluation.every_updates N after every update to a version that is a multiple of N (so that
// runs of different speeds compare at the same steps); a target accuracy reached or a non-finite
// loss ends the run. Between updates the parameters do not
// change, so the stop an evaluation will make is known as soon as they change: the job's waits
// end at it. The job may know of a stop of its own too (nodes lost for good).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "sim/collective/job/replica_math.hpp"
#include "sim/output/recorder.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

class Evaluations {
 public:
  /// `math` and `training` are nullptr for a time-only workload (no evaluation then);
  /// `on_evaluation` (may be empty) sees every evaluation recorded; `tokens_kept` gives the
  /// tokens of the steps kept so far (none without a language model), each evaluation's tokens.
  Evaluations(const Scenario& scenario, ReplicaMath* math, TrainingMath* training,
              Recorder& recorder, std::function<void(const EvalRecord&)> on_evaluation,
              std::function<std::optional<double>()> tokens_kept);

  /// Evaluations scheduled up to `t`, at the parameters of their time.
  void through(double t);
  /// An update to `version` ended at `t`: its evaluation when `version` is a multiple of
  /// evaluation.every_updates; a stop it makes is at `t`.
  void after_update(double t, std::int64_t version);
  /// The parameters changed (an update, a rollback): the stop an evaluation of them would make.
  void parameters_changed();
  /// The stop known ahead (infinity: none) and its reason.
  double stop_at() const { return stop_at_; }
  const std::string& stop_reason() const { return stop_reason_; }
  /// A stop known otherwise: the run ends at `t` for `reason`.
  void stop_at(double t, const std::string& reason);

 private:
  const Scenario& scenario_;
  ReplicaMath* math_;
  TrainingMath* training_;
  Recorder& recorder_;
  std::function<void(const EvalRecord&)> on_evaluation_;
  std::function<std::optional<double>()> tokens_kept_;
  /// Records an evaluation of the parameters at `t`; its stop (a non-finite loss, the target
  /// accuracy when `target` is true) at `stop` at the latest.
  void record(double t, double stop, bool target);

  std::int64_t done_ = 0;
  bool stopped_ = false;  // an evaluation by updates made the stop: nothing moves it
  double stop_at_ = std::numeric_limits<double>::infinity();
  std::string stop_reason_;
};

}  // namespace failsim::sim
