// One optimiser, SGD or AdamW, behind one call: what a parameter server and a collective replica
// step with, and the state (SGD's velocity; AdamW's moments and steps) that checkpoints save and
// the recovery designs copy, in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <variant>
#include <vector>

#include "models/adamw.hpp"
#include "models/scratch.hpp"
#include "models/sgd.hpp"

namespace failsim::models {

/// The optimiser state a checkpoint saves: one vector of the parameters' size per moment (SGD
/// with momentum: its velocity; AdamW: its first and second moments) and the steps taken (AdamW's
/// t; 0 for SGD, whose step does not depend on it).
struct OptimizerState {
  std::vector<FloatBuffer> moments;
  std::int64_t steps = 0;
};

class Optimizer {
 public:
  Optimizer(SgdConfig config, std::size_t num_params);
  Optimizer(AdamWConfig config, std::size_t num_params);

  /// One step with gradient `grad` from parameters `from` into `to` (which may be `from`) at
  /// learning rate `lr` in SGD's terms: SGD takes it as it is; AdamW takes its schedule's rate
  /// times lr / learning_rate() (1, its schedule bit for bit, unless a server's rule for stale
  /// gradients lowers lr). Returns the learning rate the step applied.
  float step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
             float lr);
  /// A step in place at the configured learning rate.
  float step(std::span<float> params, std::span<const float> grad) {
    return step(params, params, grad, learning_rate());
  }

  /// SGD's learning rate, AdamW's peak.
  float learning_rate() const;
  /// Vectors of the parameters' size the state holds (0: SGD without momentum, 1: with it,
  /// 2: AdamW): what a checkpoint writes beside the parameters.
  std::size_t moments() const;
  /// A copy of the state; null when there is none (SGD without momentum).
  std::shared_ptr<const OptimizerState> state() const;
  /// Restores a state that state() gave (a checkpoint, a replica's copy). Throws
  /// std::invalid_argument when its moments do not match this optimiser's.
  void set_state(const OptimizerState& state);
  /// Back to the optimiser of version 0, which has taken no step.
  void reset();

 private:
  std::variant<Sgd, AdamW> impl_;
  std::size_t num_params_;
};

}  // namespace failsim::models
