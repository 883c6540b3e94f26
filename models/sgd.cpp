#include "models/sgd.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <stdexcept>

#include "models/optimizer.hpp"

namespace failsim::models {

namespace {
using VecMap = Eigen::Map<Eigen::VectorXf>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXf>;
VecMap map(std::span<float> s) { return VecMap(s.data(), static_cast<Eigen::Index>(s.size())); }
ConstVecMap map(std::span<const float> s) {
  return ConstVecMap(s.data(), static_cast<Eigen::Index>(s.size()));
}
}  // namespace

Sgd::Sgd(SgdConfig config, std::size_t num_params) : config_(config) {
  if (config.momentum != 0.0f) velocity_.assign(num_params, 0.0f);
  if (config.weight_decay != 0.0f) decayed_.assign(num_params, 0.0f);
}

void Sgd::set_velocity(std::span<const float> v) {
  if (v.size() != velocity_.size()) throw std::invalid_argument("Sgd::set_velocity: size mismatch");
  std::copy(v.begin(), v.end(), velocity_.begin());
  first_step_ = false;
}

void Sgd::step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
               float lr) {
  const auto p = map(from);
  auto out = map(to);
  std::span<const float> g = grad;
  if (config_.weight_decay != 0.0f) {
    map(std::span<float>(decayed_)) = map(grad) + config_.weight_decay * p;
    g = decayed_;
  }
  if (config_.momentum == 0.0f) {
    out = p - lr * map(g);
    return;
  }
  auto v = map(std::span<float>(velocity_));
  if (first_step_) {
    v = map(g);
    first_step_ = false;
  } else {
    v = config_.momentum * v + map(g);
  }
  out = p - lr * v;
}

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
  auto sum = map(combined);
  bool first = true;
  for (const PendingGradient& pg : pending) {
    const float w = weight(pg);
    if (w == 0.0f) continue;
    if (first) {
      sum = w * map(pg.grad);
    } else {
      sum += w * map(pg.grad);
    }
    first = false;
  }
  if (rule.rule == StaleRule::MEAN) sum /= static_cast<float>(outcome.applied);
  outcome.learning_rate = optimizer.step(from, to, combined, lr);
  return outcome;
}

}  // namespace failsim::models
