#include "models/apply_pending.hpp"

#include <Eigen/Core>
#include <algorithm>

#include "models/optimizer.hpp"

namespace failsim::models {

namespace {
using PendingSum = Eigen::Map<Eigen::VectorXf>;
using PendingGrad = Eigen::Map<const Eigen::VectorXf>;
PendingSum sum_of(std::span<float> s) {
  return PendingSum(s.data(), static_cast<Eigen::Index>(s.size()));
}
PendingGrad grad_of(std::span<const float> s) {
  return PendingGrad(s.data(), static_cast<Eigen::Index>(s.size()));
}
}  // namespace

float stale_weight(const StaleRuleConfig& rule, std::int64_t staleness) {
  if (rule.rule == StaleRule::DROP_STALE && staleness > rule.drop_bound) return 0.0f;
  if (rule.rule == StaleRule::INVERSE_STALENESS) {
    return 1.0f / static_cast<float>(std::max<std::int64_t>(1, staleness));
  }
  return 1.0f;
}

ApplyOutcome apply_pending(Optimizer& optimizer, std::span<const float> from, std::span<float> to,
                           std::span<const PendingGradient> pending, const StaleRuleConfig& rule,
                           std::span<float> combined) {
  auto weight = [&](const PendingGradient& pg) { return stale_weight(rule, pg.staleness); };
  ApplyOutcome outcome;
  const PendingGradient* only = nullptr;
  int weighted = 0;  // entries that enter the step
  for (const PendingGradient& pg : pending) {
    if (weight(pg) == 0.0f) {
      outcome.dropped += pg.count;
    } else {
      outcome.applied += pg.count;
      ++weighted;
      only = &pg;
    }
  }
  if (outcome.applied == 0) return outcome;
  float lr = optimizer.learning_rate();
  if (rule.rule == StaleRule::PAPER && outcome.applied > rule.paper_threshold) {
    lr = rule.paper_low_lr;
  }
  if (weighted == 1 && weight(*only) == 1.0f &&
      (rule.rule != StaleRule::MEAN || outcome.applied == 1)) {
    // The common case (one async gradient, or a store's one sum): the step is that sum itself,
    // no combining pass needed.
    outcome.learning_rate = optimizer.step(from, to, only->grad, lr);
    return outcome;
  }
  auto sum = sum_of(combined);
  bool first = true;
  for (const PendingGradient& pg : pending) {
    const float w = weight(pg);
    if (w == 0.0f) continue;
    if (first) {
      sum = w * grad_of(pg.grad);
    } else {
      sum += w * grad_of(pg.grad);
    }
    first = false;
  }
  if (rule.rule == StaleRule::MEAN) sum /= static_cast<float>(outcome.applied);
  outcome.learning_rate = optimizer.step(from, to, combined, lr);
  return outcome;
}

}  // namespace failsim::models
