#include "models/sgd.hpp"

#include <Eigen/Core>
#include <stdexcept>

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

}  // namespace failsim::models
