// Multi-layer perceptron: fully connected layers with ReLU between them, softmax output.
#pragma once

#include <vector>

#include "models/model.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

class Mlp final : public Model {
 public:
  /// hidden: sizes of the hidden layers, e.g. {128, 64}; empty is softmax regression.
  Mlp(int input_dim, std::vector<int> hidden, int classes);

  std::unique_ptr<Model> clone() const override;
  std::string name() const override;
  std::size_t num_params() const override { return num_params_; }
  int input_dim() const override { return sizes_.front(); }
  int num_classes() const override { return sizes_.back(); }
  std::vector<Tensor> tensors() const override;
  void init(std::span<float> params, std::uint64_t seed) const override;
  float loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad,
                          std::uint64_t dropout_seed) override;
  void logits(std::span<const float> params, const float* x, int n, float* out) override;
  double forward_flops_per_sample() const override;
  double train_flops_per_sample() const override;

 private:
  /// Runs the forward pass into acts_ (acts_[l] is layer l's post-ReLU output); returns logits.
  const float* forward(const float* params, const float* x, int n);

  std::vector<int> sizes_;            // input, hidden..., classes
  std::vector<std::size_t> offsets_;  // start of layer l's W in the flat vector; b follows W
  std::size_t num_params_ = 0;
  std::vector<FloatBuffer> acts_;   // scratch: outputs of each layer, [n x sizes_[l+1]]
  FloatBuffer delta_, delta_prev_;  // scratch: gradient wrt a layer's output
};

}  // namespace failsim::models
