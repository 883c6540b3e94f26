#include "sim/collective/job/evaluations.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/engine/never.hpp"

namespace failsim::sim {

Evaluations::Evaluations(const Scenario& scenario, ReplicaMath* math, TrainingMath* training,
                         Recorder& recorder, std::function<void(const EvalRecord&)> on_evaluation,
                         std::function<std::optional<double>()> tokens_kept)
    : scenario_(scenario),
      math_(math),
      training_(training),
      recorder_(recorder),
      on_evaluation_(std::move(on_evaluation)),
      tokens_kept_(std::move(tokens_kept)) {}

void Evaluations::through(double t) {
  if (training_ == nullptr) return;
  const EvaluationConfig& eval = scenario_.evaluation;
  if (eval.interval <= 0) return;
  // Evaluation k happens at k x interval exactly; the parameters have not changed since the
  // last update or rollback, so measuring them now gives what was measured then.
  while (true) {
    const double at = static_cast<double>(done_) * eval.interval;
    if (at > t || at >= scenario_.stop.time.value_or(NEVER) || at > stop_at_) break;
    record(at, t, false);
    ++done_;
  }
}

void Evaluations::after_update(double t, std::int64_t version) {
  const int every = scenario_.evaluation.every_updates;
  if (training_ == nullptr || every <= 0 || version % every != 0) return;
  if (t >= scenario_.stop.time.value_or(NEVER) || t > stop_at_) return;
  record(t, t, scenario_.stop.target_accuracy.has_value());
}

void Evaluations::record(double t, double stop, bool target) {
  const models::EvalResult r =
      training_->evaluate(math_->parameters(), scenario_.evaluation.test_subset);
  EvalRecord row;
  row.time = t;
  row.version = math_->version();
  row.test_accuracy = r.accuracy;
  row.test_loss = r.loss;
  row.test_samples = r.samples;
  row.tokens = tokens_kept_();
  recorder_.evaluation(row);
  if (on_evaluation_) on_evaluation_(row);
  // A non-finite loss ends the run at the end of the step that found it (a numerical outcome).
  if (!std::isfinite(r.loss) && stop_reason_ != "target_accuracy") {
    stop_at_ = std::min(stop_at_, stop);
    stop_reason_ = "diverged";
    stopped_ = true;
  } else if (target && r.accuracy >= *scenario_.stop.target_accuracy) {
    stop_at_ = std::min(stop_at_, stop);
    stop_reason_ = "target_accuracy";
    stopped_ = true;
  }
}

void Evaluations::parameters_changed() {
  // Would the next scheduled evaluation stop the run at a target accuracy? It sees these
  // parameters (nothing else changes them before it), so the stop's time is known now.
  const StopConfig& stop = scenario_.stop;
  if (training_ == nullptr || scenario_.evaluation.interval <= 0 || !stop.target_accuracy) return;
  if (stopped_) return;  // already ending
  const double next = static_cast<double>(done_) * scenario_.evaluation.interval;
  const models::EvalResult r =
      training_->evaluate(math_->parameters(), scenario_.evaluation.test_subset);
  stop_at_ = NEVER;
  if (std::isfinite(r.loss) && r.accuracy >= *stop.target_accuracy) {
    stop_at_ = next;
    stop_reason_ = "target_accuracy";
  }
}

void Evaluations::stop_at(double t, const std::string& reason) {
  stop_at_ = t;
  stop_reason_ = reason;
}

}  // namespace failsim::sim
