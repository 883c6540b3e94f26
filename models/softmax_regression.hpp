// Multinomial logistic regression: logits = x W^T + b. The smallest real model, for fast tests
// and for scale benchmarks with thousands of workers.
#pragma once

#include <vector>

#include "models/model.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

class SoftmaxRegression : public Model {
 public:
  SoftmaxRegression(int input_dim, int classes);

  std::unique_ptr<Model> clone() const override;
  std::string name() const override { return "softmax"; }
  std::size_t num_params() const override;
  int input_dim() const override { return in_; }
  int num_classes() const override { return classes_; }
  std::vector<Tensor> tensors() const override;
  void init(std::span<float> params, std::uint64_t seed) const override;
  float loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad,
                          std::uint64_t dropout_seed) override;
  void logits(std::span<const float> params, const float* x, int n, float* out) override;
  double forward_flops_per_sample() const override;
  double train_flops_per_sample() const override;

 private:
  int in_;
  int classes_;
  FloatBuffer logits_;  // scratch: [batch x classes], grown once
};

}  // namespace failsim::models
