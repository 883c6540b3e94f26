#include "models/adamw.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace failsim::models {
namespace {

void require(bool ok, const char* field, const char* expectation, double found) {
  if (!ok) {
    throw std::invalid_argument(std::string("AdamW: ") + field + " must be " + expectation +
                                ", got " + std::to_string(found));
  }
}

}  // namespace

AdamW::AdamW(AdamWConfig config, std::size_t num_params)
    : config_(config), m_(num_params, 0.0f), v_(num_params, 0.0f) {
  const auto& c = config;
  require(c.learning_rate > 0.0f, "learning_rate", "> 0", c.learning_rate);
  require(c.beta1 >= 0.0f && c.beta1 < 1.0f, "beta1", "in [0, 1)", c.beta1);
  require(c.beta2 >= 0.0f && c.beta2 < 1.0f, "beta2", "in [0, 1)", c.beta2);
  require(c.eps > 0.0f, "eps", "> 0", c.eps);
  require(c.weight_decay >= 0.0f, "weight_decay", ">= 0", c.weight_decay);
  require(c.warmup_steps >= 0, "warmup_steps", ">= 0", static_cast<double>(c.warmup_steps));
  require(c.decay_steps == 0 || c.decay_steps > c.warmup_steps, "decay_steps",
          "0 (no decay) or > warmup_steps", static_cast<double>(c.decay_steps));
  require(c.min_lr_ratio >= 0.0f && c.min_lr_ratio <= 1.0f, "min_lr_ratio", "in [0, 1]",
          c.min_lr_ratio);
  require(c.clip_norm >= 0.0f, "clip_norm", ">= 0 (0: no clipping)", c.clip_norm);
}

float AdamW::learning_rate(std::int64_t t) const {
  if (t < 1) {
    throw std::invalid_argument("AdamW::learning_rate: steps count from 1, got " +
                                std::to_string(t));
  }
  const auto& c = config_;
  const double peak = c.learning_rate;
  if (t <= c.warmup_steps) {
    return static_cast<float>(peak * static_cast<double>(t) / static_cast<double>(c.warmup_steps));
  }
  if (c.decay_steps == 0) return c.learning_rate;
  const double floor = peak * c.min_lr_ratio;
  if (t >= c.decay_steps) return static_cast<float>(floor);
  const double progress =
      static_cast<double>(t - c.warmup_steps) / static_cast<double>(c.decay_steps - c.warmup_steps);
  return static_cast<float>(floor +
                            (peak - floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
}

void AdamW::set_state(std::span<const float> m, std::span<const float> v, std::int64_t steps) {
  if (m.size() != m_.size() || v.size() != v_.size() || steps < 0) {
    throw std::invalid_argument("AdamW::set_state: need two moments of " +
                                std::to_string(m_.size()) + " floats and steps >= 0, got " +
                                std::to_string(m.size()) + ", " + std::to_string(v.size()) +
                                " and " + std::to_string(steps));
  }
  std::copy(m.begin(), m.end(), m_.begin());
  std::copy(v.begin(), v.end(), v_.begin());
  steps_ = steps;
}

float AdamW::step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
                  float lr_scale) {
  if (from.size() != m_.size() || to.size() != m_.size() || grad.size() != m_.size()) {
    throw std::invalid_argument("AdamW::step: params and grad need " + std::to_string(m_.size()) +
                                " floats, got " + std::to_string(from.size()) + ", " +
                                std::to_string(to.size()) + " and " + std::to_string(grad.size()));
  }
  double sq = 0.0;
  for (const float g : grad) sq += static_cast<double>(g) * g;
  const double norm = std::sqrt(sq);
  const auto& c = config_;
  const float scale = c.clip_norm > 0.0f && norm + 1e-6 > c.clip_norm
                          ? static_cast<float>(c.clip_norm / (norm + 1e-6))
                          : 1.0f;
  ++steps_;
  const float lr = learning_rate(steps_) * lr_scale;
  const auto t = static_cast<double>(steps_);
  const auto correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(c.beta1), t));
  const auto correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(c.beta2), t));
  const float sqrt_correction2 = std::sqrt(correction2);
  const float decay = 1.0f - lr * c.weight_decay;
  for (std::size_t i = 0; i < from.size(); ++i) {
    const float g = grad[i] * scale;
    m_[i] = c.beta1 * m_[i] + (1.0f - c.beta1) * g;
    v_[i] = c.beta2 * v_[i] + (1.0f - c.beta2) * g * g;
    // PyTorch's order: (m / c1) / (sqrt(v) / sqrt(c2) + eps).
    const float denom = std::sqrt(v_[i]) / sqrt_correction2 + c.eps;
    to[i] = from[i] * decay - lr * (m_[i] / correction1) / denom;
  }
  return static_cast<float>(norm);
}

}  // namespace failsim::models
