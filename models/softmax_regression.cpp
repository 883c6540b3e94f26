#include "models/softmax_regression.hpp"

#include <cmath>
#include <stdexcept>

#include "models/dense.hpp"
#include "models/loss.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

SoftmaxRegression::SoftmaxRegression(int input_dim, int classes)
    : in_(input_dim), classes_(classes) {
  if (input_dim <= 0 || classes < 2) {
    throw std::invalid_argument("SoftmaxRegression needs input_dim > 0 and at least 2 classes");
  }
}

std::unique_ptr<Model> SoftmaxRegression::clone() const {
  return std::make_unique<SoftmaxRegression>(in_, classes_);
}

std::vector<Tensor> SoftmaxRegression::tensors() const {
  const auto in = static_cast<std::size_t>(in_);
  const auto classes = static_cast<std::size_t>(classes_);
  return {{"weight", 0, classes * in, in}, {"bias", classes * in, classes, 1}};
}

std::size_t SoftmaxRegression::num_params() const {
  return static_cast<std::size_t>(classes_) * in_ + classes_;
}

void SoftmaxRegression::init(std::span<float> params, std::uint64_t seed) const {
  Rng rng(seed);
  float* w = params.data();
  dense::init_uniform_fan_in(w, w + static_cast<std::ptrdiff_t>(classes_) * in_, in_, classes_,
                             rng);
}

float SoftmaxRegression::loss_and_gradient(std::span<const float> params, const Batch& batch,
                                           std::span<float> grad, std::uint64_t /*no dropout*/) {
  const float* w = params.data();
  const float* b = w + static_cast<std::ptrdiff_t>(classes_) * in_;
  float* z = scratch(logits_, static_cast<std::size_t>(batch.n) * classes_);
  dense::forward(batch.x, batch.n, in_, w, b, classes_, z);
  const float loss = softmax_cross_entropy(z, batch.y, batch.n, classes_, z);
  float* dw = grad.data();
  dense::backward(batch.x, z, batch.n, in_, w, classes_, dw,
                  dw + static_cast<std::ptrdiff_t>(classes_) * in_, nullptr);
  return loss;
}

void SoftmaxRegression::logits(std::span<const float> params, const float* x, int n, float* out) {
  const float* w = params.data();
  dense::forward(x, n, in_, w, w + static_cast<std::ptrdiff_t>(classes_) * in_, classes_, out);
}

double SoftmaxRegression::forward_flops_per_sample() const {
  return 2.0 * in_ * classes_ + classes_;
}

double SoftmaxRegression::train_flops_per_sample() const {
  // Forward, plus dW = dy^T x (2 in classes); no input gradient is needed.
  return forward_flops_per_sample() + 2.0 * in_ * classes_ + classes_;
}

std::unique_ptr<Model> make_softmax_regression(const ModelSpec& /*spec*/, const DataShape& data) {
  return std::make_unique<SoftmaxRegression>(data.channels * data.height * data.width,
                                             data.num_classes);
}

}  // namespace failsim::models
