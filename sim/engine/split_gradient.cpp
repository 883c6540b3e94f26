#include "sim/engine/split_gradient.hpp"

#include <stdexcept>
#include <string>

namespace failsim::sim {

SplitGradient::SplitGradient(const models::Model& model, int parts, MathPool& pool)
    : pool_(pool), parts_(parts, model.num_params()) {
  for (int t = 0; t < pool.threads(); ++t) models_.push_back(model.clone());
}

float SplitGradient::part_gradient(int slot, int begin, int end, std::uint64_t seed,
                                   std::span<float> grad) {
  const auto width = static_cast<std::ptrdiff_t>(models_[0]->input_dim());
  const models::Batch part{batch_.x + begin * width, batch_.y + begin, end - begin};
  return models_[static_cast<std::size_t>(slot)]->loss_and_gradient(params_, part, grad, seed);
}

float SplitGradient::loss_and_gradient(std::span<const float> params, const models::Batch& batch,
                                       std::span<float> grad, std::uint64_t dropout_seed) {
  if (batch.n < 1) throw std::invalid_argument("SplitGradient: empty batch");
  if (grad.size() != models_[0]->num_params()) {
    throw std::invalid_argument("SplitGradient: grad has " + std::to_string(grad.size()) +
                                " floats, the model " + std::to_string(models_[0]->num_params()));
  }
  params_ = params;
  batch_ = batch;
  parts_.start(pool_, *this, batch.n, dropout_seed, grad);
  parts_.wait(pool_);
  return parts_.sum(grad);
}

}  // namespace failsim::sim
