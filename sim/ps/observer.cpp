#include "sim/ps/observer.hpp"

#include <simgrid/s4u.hpp>

#include <cmath>
#include <limits>

#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(observer, failsim, "evaluation schedule and stop conditions");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

EvalRecord Observer::measure(RunContext& context, int limit) {
  const SnapshotPtr snapshot = context.observed_snapshot();
  const models::EvalResult result = context.math.evaluate(snapshot, limit);
  EvalRecord record;
  record.time = sg4::Engine::get_clock();
  record.version = snapshot->version;
  record.test_accuracy = result.accuracy;
  record.test_loss = result.loss;
  record.test_samples = result.samples;
  const models::ModelSpec& model = context.scenario.model;
  if (models::input_of(model.kind) == models::ModelInput::TOKENS) {
    // The snapshot's gradients are in shard slices (every shard's count summed), each gradient
    // a batch of windows of `sequence` predicted tokens.
    record.tokens = static_cast<double>(snapshot->gradients) /
                    static_cast<double>(context.strategies.size()) *
                    context.scenario.optimizer.batch_size * model.transformer.sequence;
  }
  return record;
}

bool Observer::evaluate_now(RunContext& context) {
  const EvalRecord record = measure(context, context.scenario.evaluation.test_subset);
  context.recorder.evaluation(record);
  FAILSIM_VERBOSE("evaluation at version {}: test accuracy {:.4f}, test loss {:.4f}",
                  record.version, record.test_accuracy, record.test_loss);
  if (context.on_evaluation) context.on_evaluation(record);
  const auto& target = context.scenario.stop.target_accuracy;
  if (!std::isfinite(record.test_loss)) {
    context.request_stop("diverged");
  } else if (target && record.test_accuracy >= *target) {
    context.request_stop("target_accuracy");
  }
  return context.stopping();
}

void Observer::operator()() {
  const EvaluationConfig& eval = context_.scenario.evaluation;
  const StopConfig& stop = context_.scenario.stop;
  const double end = stop.time.value_or(std::numeric_limits<double>::infinity());
  // Evaluation k happens at k * interval exactly (no drift from summing intervals).
  for (std::int64_t k = 0;; ++k) {
    const double next = eval.interval > 0 ? static_cast<double>(k) * eval.interval : end;
    if (next >= end) break;
    sg4::this_actor::sleep_until(next);
    if (evaluate_now(context_)) return;
  }
  if (std::isinf(end)) return;  // stops come from the server (updates) or the target
  sg4::this_actor::sleep_until(end);
  context_.request_stop("time");
}

}  // namespace failsim::sim
