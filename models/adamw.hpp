// AdamW with a linear warm-up, a cosine decay and global-norm gradient clipping: the optimiser
// language models are trained with (GPT-2/3, nanoGPT), beside SGD (models/sgd.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "models/scratch.hpp"

namespace failsim::models {

struct AdamWConfig {
  float learning_rate = 6e-4f;  ///< the peak learning rate, reached at the end of the warm-up
  float beta1 = 0.9f;
  float beta2 = 0.95f;  ///< GPT-3's (PyTorch's default is 0.999)
  float eps = 1e-8f;
  float weight_decay = 0.1f;  ///< decoupled: p -= lr * weight_decay * p, not added to g
  std::int64_t warmup_steps = 0;
  /// The step at which the cosine reaches min_lr_ratio; 0: no decay (the peak after warm-up).
  std::int64_t decay_steps = 0;
  float min_lr_ratio = 0.1f;  ///< the floor, as a fraction of learning_rate
  float clip_norm = 1.0f;     ///< the gradient's largest global L2 norm; 0: no clipping
};

/// Adam with decoupled weight decay (Loshchilov & Hutter), in PyTorch's torch.optim.AdamW
/// formulation, at step t = 1, 2, ... with learning rate lr_t (learning_rate()):
///   g <- g * min(1, clip_norm / (||g||_2 + 1e-6))   (torch.nn.utils.clip_grad_norm_, over all
///                                                     parameters at once)
///   p <- p (1 - lr_t wd);  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
///   p <- p - lr_t (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
/// Weight decay applies to every parameter given (excluding biases and gains, as nanoGPT does,
/// is the caller's choice of which vector it passes). The moments m, v and the step count are
/// the optimiser state a checkpoint must save.
class AdamW {
 public:
  /// Throws std::invalid_argument unless learning_rate > 0, beta1 and beta2 in [0, 1), eps > 0,
  /// weight_decay >= 0, warmup_steps >= 0, decay_steps 0 or > warmup_steps, min_lr_ratio in [0, 1]
  /// and clip_norm >= 0; the message names the field and the value found.
  AdamW(AdamWConfig config, std::size_t num_params);

  /// The learning rate of step t >= 1: learning_rate * t / warmup_steps while t <= warmup_steps,
  /// then the cosine min + (max - min) (1 + cos(pi (t - warmup) / (decay - warmup))) / 2 down to
  /// min = min_lr_ratio * learning_rate at t = decay_steps, and min after it (nanoGPT's
  /// schedule; training past decay_steps continues at the floor); learning_rate after the warm-up
  /// when decay_steps is 0. Throws std::invalid_argument for t < 1.
  float learning_rate(std::int64_t t) const;

  /// One step with gradient `grad` (left unchanged: the clipping scales it on the fly). Returns
  /// the gradient's global norm before clipping. Throws std::invalid_argument when the sizes
  /// differ from the optimiser's.
  float step(std::span<float> params, std::span<const float> grad) {
    return step(params, params, grad, 1.0f);
  }
  /// The same step from parameters `from` into `to` (which may be `from`), at lr_scale times the
  /// schedule's learning rate (a server's rule for stale gradients may lower it; 1: the
  /// schedule's, bit for bit).
  float step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
             float lr_scale);

  /// Steps taken so far (the next step is steps() + 1).
  std::int64_t steps() const { return steps_; }
  std::span<const float> first_moment() const { return m_; }
  std::span<const float> second_moment() const { return v_; }
  const AdamWConfig& config() const { return config_; }
  /// Restores the state a checkpoint saved: the moments and the steps taken. Throws
  /// std::invalid_argument when a moment's size differs from the optimiser's or steps < 0.
  void set_state(std::span<const float> m, std::span<const float> v, std::int64_t steps);

 private:
  AdamWConfig config_;
  FloatBuffer m_, v_;
  std::int64_t steps_ = 0;
};

}  // namespace failsim::models
