#include "sim/engine/optimizer_config.hpp"

namespace failsim::sim {

models::SgdConfig sgd_config(const OptimizerConfig& o) {
  return {static_cast<float>(o.learning_rate), static_cast<float>(o.momentum),
          static_cast<float>(o.weight_decay)};
}

models::AdamWConfig adamw_config(const OptimizerConfig& o) {
  models::AdamWConfig c;
  c.learning_rate = static_cast<float>(o.learning_rate);
  c.beta1 = static_cast<float>(o.beta1);
  c.beta2 = static_cast<float>(o.beta2);
  c.eps = static_cast<float>(o.eps);
  c.weight_decay = static_cast<float>(o.weight_decay);
  c.warmup_steps = o.warmup_steps;
  c.decay_steps = o.decay_steps;
  c.min_lr_ratio = static_cast<float>(o.min_lr_ratio);
  c.clip_norm = static_cast<float>(o.clip_norm);
  return c;
}

models::Optimizer make_optimizer(const OptimizerConfig& o, std::size_t num_params) {
  if (o.kind == OptimizerKind::ADAMW) return {adamw_config(o), num_params};
  return {sgd_config(o), num_params};
}

}  // namespace failsim::sim
