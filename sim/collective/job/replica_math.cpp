#include "sim/collective/job/replica_math.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/engine/optimizer_config.hpp"

namespace failsim::sim {

ReplicaMath::ReplicaMath(TrainingMath& math, const OptimizerConfig& optimizer, int replicas)
    : math_(math),
      optimizer_(make_optimizer(optimizer, math.model().num_params())),
      current_(math.initial_snapshot()),
      // As many gradients in flight as there are threads: memory does not grow with dp.
      grads_(static_cast<std::size_t>(std::min(replicas, math.threads())),
             std::vector<float>(math.model().num_params())),
      jobs_(grads_.size()),
      sum_(math.model().num_params()) {
  for (int r = 0; r < replicas; ++r) {
    streams_.push_back(math.batch_stream(r));
    all_.push_back(r);
  }
}

double ReplicaMath::step() { return step(all_); }

double ReplicaMath::step(const std::vector<int>& streams) {
  std::fill(sum_.begin(), sum_.end(), 0.0f);
  double loss = 0.0;
  const int n = static_cast<int>(streams.size());
  if (n == 0) throw std::logic_error("a step needs at least one batch");
  const int window = static_cast<int>(jobs_.size());
  const std::int64_t v = current_->version;
  const auto start = [&](int i) {
    const auto slot = static_cast<std::size_t>(i % window);
    const int r = streams[static_cast<std::size_t>(i)];
    math_.start_gradient(jobs_[slot], *current_, streams_[static_cast<std::size_t>(r)].next(),
                         math_.dropout_seed(r, v), grads_[slot]);
  };
  for (int i = 0; i < std::min(window, n); ++i) start(i);
  for (int i = 0; i < n; ++i) {
    const auto slot = static_cast<std::size_t>(i % window);
    loss += math_.finish_gradient(jobs_[slot]);
    const std::vector<float>& g = grads_[slot];
    math_.timed([&] {
      for (std::size_t k = 0; k < sum_.size(); ++k) sum_[k] += g[k];
    });
    if (i + window < n) start(i + window);
  }
  auto next = pool_.take(sum_.size());
  math_.timed([&] {
    const float inverse = 1.0f / static_cast<float>(n);
    for (float& x : sum_) x *= inverse;
    optimizer_.step(current_->params, next->params, sum_, optimizer_.learning_rate());
  });
  next->version = v + 1;
  next->gradients = current_->gradients + n;
  current_ = std::move(next);
  return loss / n;
}

ReplicaMath::State ReplicaMath::save() const {
  return State{current_, optimizer_.state(), streams_};
}

void ReplicaMath::restore(const State& state) {
  current_ = state.parameters;
  streams_ = state.streams;
  if (state.parameters->version == 0) {
    // Version 0 has taken no step: a fresh optimizer (its first step starts the velocity, or
    // AdamW's count of steps).
    optimizer_.reset();
  } else if (state.optimizer) {
    optimizer_.set_state(*state.optimizer);
  }
}

}  // namespace failsim::sim
