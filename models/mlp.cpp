#include "models/mlp.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "models/dense.hpp"
#include "models/loss.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

Mlp::Mlp(int input_dim, std::vector<int> hidden, int classes) {
  if (input_dim <= 0 || classes < 2) {
    throw std::invalid_argument("Mlp needs input_dim > 0 and at least 2 classes");
  }
  sizes_.push_back(input_dim);
  for (int h : hidden) {
    if (h <= 0) throw std::invalid_argument(fmt::format("Mlp hidden size must be > 0, got {}", h));
    sizes_.push_back(h);
  }
  sizes_.push_back(classes);
  for (std::size_t l = 0; l + 1 < sizes_.size(); ++l) {
    offsets_.push_back(num_params_);
    num_params_ += static_cast<std::size_t>(sizes_[l + 1]) * sizes_[l] + sizes_[l + 1];
  }
  acts_.resize(offsets_.size());
}

std::vector<Tensor> Mlp::tensors() const {
  std::vector<Tensor> t;
  for (std::size_t l = 0; l < offsets_.size(); ++l) {
    const auto in = static_cast<std::size_t>(sizes_[l]);
    const auto out = static_cast<std::size_t>(sizes_[l + 1]);
    t.push_back({fmt::format("layer{}.weight", l), offsets_[l], out * in, in});
    t.push_back({fmt::format("layer{}.bias", l), offsets_[l] + out * in, out, 1});
  }
  return t;
}

std::unique_ptr<Model> Mlp::clone() const {
  return std::make_unique<Mlp>(
      sizes_.front(), std::vector<int>(sizes_.begin() + 1, sizes_.end() - 1), sizes_.back());
}

std::string Mlp::name() const {
  return fmt::format("mlp[{}]", fmt::join(sizes_.begin() + 1, sizes_.end() - 1, ","));
}

void Mlp::init(std::span<float> params, std::uint64_t seed) const {
  Rng rng(seed);
  for (std::size_t l = 0; l < offsets_.size(); ++l) {
    float* w = params.data() + offsets_[l];
    dense::init_uniform_fan_in(w, w + static_cast<std::ptrdiff_t>(sizes_[l + 1]) * sizes_[l],
                               sizes_[l], sizes_[l + 1], rng);
  }
}

const float* Mlp::forward(const float* params, const float* x, int n) {
  const float* in = x;
  const std::size_t layers = offsets_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    const int fan_in = sizes_[l], fan_out = sizes_[l + 1];
    const float* w = params + offsets_[l];
    float* out = scratch(acts_[l], static_cast<std::size_t>(n) * fan_out);
    dense::forward(in, n, fan_in, w, w + static_cast<std::ptrdiff_t>(fan_out) * fan_in, fan_out,
                   out);
    if (l + 1 < layers) {
      dense::RowMap(out, n, fan_out) = dense::RowMap(out, n, fan_out).cwiseMax(0.0f);
    }
    in = out;
  }
  return in;
}

float Mlp::loss_and_gradient(std::span<const float> params, const Batch& batch,
                             std::span<float> grad, std::uint64_t /*no dropout*/) {
  const int n = batch.n;
  const std::size_t layers = offsets_.size();
  forward(params.data(), batch.x, n);
  float* d = scratch(delta_, static_cast<std::size_t>(n) * sizes_.back());
  const float loss = softmax_cross_entropy(acts_.back().data(), batch.y, n, sizes_.back(), d);
  for (std::size_t l = layers; l-- > 0;) {
    const int fan_in = sizes_[l], fan_out = sizes_[l + 1];
    const float* w = params.data() + offsets_[l];
    float* dw = grad.data() + offsets_[l];
    const float* in = l == 0 ? batch.x : acts_[l - 1].data();
    float* d_in = l == 0 ? nullptr : scratch(delta_prev_, static_cast<std::size_t>(n) * fan_in);
    dense::backward(in, d, n, fan_in, w, fan_out, dw,
                    dw + static_cast<std::ptrdiff_t>(fan_out) * fan_in, d_in);
    if (d_in != nullptr) {
      // ReLU: the gradient passes where the activation was positive.
      dense::RowMap D(d_in, n, fan_in);
      D = (dense::ConstRowMap(in, n, fan_in).array() > 0.0f).select(D, 0.0f);
      std::swap(delta_, delta_prev_);
      d = delta_.data();
    }
  }
  return loss;
}

void Mlp::logits(std::span<const float> params, const float* x, int n, float* out) {
  const float* z = forward(params.data(), x, n);
  std::copy(z, z + static_cast<std::ptrdiff_t>(n) * sizes_.back(), out);
}

double Mlp::forward_flops_per_sample() const {
  double flops = 0;
  for (std::size_t l = 0; l + 1 < sizes_.size(); ++l)
    flops += 2.0 * sizes_[l] * sizes_[l + 1] + sizes_[l + 1];
  return flops;
}

double Mlp::train_flops_per_sample() const {
  // Forward, dW for every layer, and dx for every layer but the first.
  double flops = forward_flops_per_sample();
  for (std::size_t l = 0; l + 1 < sizes_.size(); ++l) {
    flops += 2.0 * sizes_[l] * sizes_[l + 1] + sizes_[l + 1];
    if (l > 0) flops += 2.0 * sizes_[l] * sizes_[l + 1];
  }
  return flops;
}

std::unique_ptr<Model> make_mlp(const ModelSpec& spec, const DataShape& data) {
  return std::make_unique<Mlp>(data.channels * data.height * data.width, spec.hidden,
                               data.num_classes);
}

}  // namespace failsim::models
