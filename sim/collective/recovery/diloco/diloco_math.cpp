#include "sim/collective/recovery/diloco/diloco_math.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/engine/optimizer_config.hpp"

namespace failsim::sim {

DilocoMath::DilocoMath(TrainingMath& math, const OptimizerConfig& inner, const DilocoConfig& outer,
                       int groups)
    : math_(math),
      inner_(inner),
      outer_config_(outer),
      groups_count_(groups),
      // As many gradients in flight as there are threads: memory does not grow with dp.
      grads_(static_cast<std::size_t>(std::min(groups, math.threads())),
             std::vector<float>(math.model().num_params())),
      jobs_(grads_.size()),
      delta_(math.model().num_params()) {
  reset();
}

void DilocoMath::reset() {
  outer_ = math_.initial_snapshot();
  groups_.clear();
  for (int g = 0; g < groups_count_; ++g) {
    groups_.push_back(Group{*outer_, make_optimizer(inner_, delta_.size()), math_.batch_stream(g)});
  }
  outer_velocity_.clear();
  steps_ = 0;
}

std::span<const float> DilocoMath::group_parameters(int g) const {
  return groups_.at(static_cast<std::size_t>(g)).params.params;
}

const models::Optimizer& DilocoMath::inner_optimizer(int g) const {
  return groups_.at(static_cast<std::size_t>(g)).optimizer;
}

double DilocoMath::inner_step(const std::vector<int>& groups) {
  const int n = static_cast<int>(groups.size());
  if (n == 0) throw std::logic_error("an inner step needs at least one group");
  const int window = static_cast<int>(jobs_.size());
  const std::int64_t v = steps_;
  const auto start = [&](int i) {
    const auto slot = static_cast<std::size_t>(i % window);
    const int g = groups[static_cast<std::size_t>(i)];
    Group& group = groups_[static_cast<std::size_t>(g)];
    math_.start_gradient(jobs_[slot], group.params, group.stream.next(), math_.dropout_seed(g, v),
                         grads_[slot]);
  };
  double loss = 0.0;
  for (int i = 0; i < std::min(window, n); ++i) start(i);
  for (int i = 0; i < n; ++i) {
    const auto slot = static_cast<std::size_t>(i % window);
    loss += math_.finish_gradient(jobs_[slot]);
    Group& group = groups_[static_cast<std::size_t>(groups[static_cast<std::size_t>(i)])];
    // Only this group's gradient reads its parameters, and it is collected: step in place.
    math_.timed([&] { group.optimizer.step(group.params.params, grads_[slot]); });
    ++group.params.gradients;
    if (i + window < n) start(i + window);
  }
  ++steps_;
  return loss / n;
}

void DilocoMath::outer_step(const std::vector<int>& groups, std::int64_t version) {
  const std::size_t n = groups.size();
  if (n == 0) throw std::logic_error("an outer step needs at least one group");
  const float lr = static_cast<float>(outer_config_.outer_learning_rate);
  const float mu = static_cast<float>(outer_config_.outer_momentum);
  const auto& theta = outer_->params;
  auto next = pool_.take(theta.size());
  std::int64_t gradients = 0;
  math_.timed([&] {
    std::fill(delta_.begin(), delta_.end(), 0.0f);
    for (int g : groups) {  // in group order: the same sum for any number of threads
      const Group& group = groups_[static_cast<std::size_t>(g)];
      for (std::size_t k = 0; k < delta_.size(); ++k)
        delta_[k] += theta[k] - group.params.params[k];
      gradients += group.params.gradients;
    }
    const float inverse = 1.0f / static_cast<float>(n);
    for (float& d : delta_) d *= inverse;
    if (mu > 0.0f && outer_velocity_.empty()) outer_velocity_.assign(delta_.size(), 0.0f);
    for (std::size_t k = 0; k < delta_.size(); ++k) {
      float step = delta_[k];
      if (mu > 0.0f) {
        float& v = outer_velocity_[k];
        v = mu * v + delta_[k];
        step = outer_config_.nesterov ? delta_[k] + mu * v : v;
      }
      next->params[k] = theta[k] - lr * step;
    }
  });
  next->version = version;
  next->gradients = outer_->gradients + gradients;
  outer_ = std::move(next);
  for (int g : groups) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    std::copy(outer_->params.begin(), outer_->params.end(), group.params.params.begin());
    group.params.gradients = 0;
  }
}

void DilocoMath::rejoin(int g, const models::Optimizer& inner) {
  Group& group = groups_.at(static_cast<std::size_t>(g));
  std::copy(outer_->params.begin(), outer_->params.end(), group.params.params.begin());
  group.params.gradients = 0;
  group.optimizer = inner;
}

}  // namespace failsim::sim
