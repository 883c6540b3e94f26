// Stochastic gradient descent with momentum and weight decay (the rules for applying several
// stale gradients at once are models/apply_pending.hpp's).
#pragma once

#include <span>

#include "models/scratch.hpp"

namespace failsim::models {

struct SgdConfig {
  float learning_rate = 0.01f;  ///< the study's 0.01
  float momentum = 0.0f;        ///< heavy-ball momentum mu (0: plain SGD, as in the study)
  float weight_decay = 0.0f;    ///< L2 coefficient lambda added to the gradient
};

/// SGD with momentum and weight decay, in PyTorch's formulation:
///   g' = g + lambda p;  v = mu v + g' (v = g' on the first step);  p -= lr v.
/// The velocity is part of the optimiser state a checkpoint must save.
class Sgd {
 public:
  Sgd(SgdConfig config, std::size_t num_params);

  /// One step with gradient g and learning rate `lr` (the configured one unless a rule scales
  /// it), from parameters `from` into `to`: to = from - lr v. `to` may be `from` itself (a step
  /// in place); a server steps into the buffer of its next snapshot, which spares it a copy.
  void step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
            float lr);
  void step(std::span<float> params, std::span<const float> grad, float lr) {
    step(params, params, grad, lr);
  }
  void step(std::span<float> params, std::span<const float> grad) {
    step(params, grad, config_.learning_rate);
  }

  const SgdConfig& config() const { return config_; }
  std::span<const float> velocity() const { return velocity_; }
  void set_velocity(std::span<const float> v);

 private:
  SgdConfig config_;
  FloatBuffer velocity_;  // empty while momentum is 0: plain SGD keeps no state
  bool first_step_ = true;
  FloatBuffer decayed_;  // scratch for g + lambda p
};

}  // namespace failsim::models
