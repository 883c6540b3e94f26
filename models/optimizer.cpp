#include "models/optimizer.hpp"

#include <stdexcept>
#include <string>

namespace failsim::models {

Optimizer::Optimizer(SgdConfig config, std::size_t num_params)
    : impl_(Sgd(config, num_params)), num_params_(num_params) {}

Optimizer::Optimizer(AdamWConfig config, std::size_t num_params)
    : impl_(AdamW(config, num_params)), num_params_(num_params) {}

float Optimizer::step(std::span<const float> from, std::span<float> to, std::span<const float> grad,
                      float lr) {
  if (auto* sgd = std::get_if<Sgd>(&impl_)) {
    sgd->step(from, to, grad, lr);
    return lr;
  }
  auto& adam = std::get<AdamW>(impl_);
  const float scale = lr / adam.config().learning_rate;  // exactly 1 at the configured rate
  adam.step(from, to, grad, scale);
  return adam.learning_rate(adam.steps()) * scale;
}

float Optimizer::learning_rate() const {
  return std::visit([](const auto& o) { return o.config().learning_rate; }, impl_);
}

std::size_t Optimizer::moments() const {
  if (const auto* sgd = std::get_if<Sgd>(&impl_)) return sgd->velocity().empty() ? 0 : 1;
  return 2;
}

std::shared_ptr<const OptimizerState> Optimizer::state() const {
  if (const auto* sgd = std::get_if<Sgd>(&impl_)) {
    if (sgd->velocity().empty()) return nullptr;
    const auto v = sgd->velocity();
    return std::make_shared<const OptimizerState>(
        OptimizerState{{FloatBuffer(v.begin(), v.end())}, 0});
  }
  const auto& adam = std::get<AdamW>(impl_);
  const auto m = adam.first_moment();
  const auto v = adam.second_moment();
  return std::make_shared<const OptimizerState>(OptimizerState{
      {FloatBuffer(m.begin(), m.end()), FloatBuffer(v.begin(), v.end())}, adam.steps()});
}

void Optimizer::set_state(const OptimizerState& state) {
  if (state.moments.size() != moments()) {
    throw std::invalid_argument("Optimizer::set_state: a state of " +
                                std::to_string(state.moments.size()) +
                                " moments for an optimiser of " + std::to_string(moments()));
  }
  if (auto* sgd = std::get_if<Sgd>(&impl_)) {
    if (!state.moments.empty()) sgd->set_velocity(state.moments.front());
    return;
  }
  std::get<AdamW>(impl_).set_state(state.moments[0], state.moments[1], state.steps);
}

void Optimizer::reset() {
  std::visit([&](auto& o) { o = std::decay_t<decltype(o)>(o.config(), num_params_); }, impl_);
}

}  // namespace failsim::models
