// The interface every model implements. Parameters live outside the model in one flat float32
// vector, so the simulator can snapshot, send, checkpoint and replicate them as plain bytes; a
// model object holds only its architecture and its scratch buffers (so it is cheap to clone
// one per thread, and its hot paths never allocate).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/dataset.hpp"

namespace failsim::models {

/// One parameter tensor inside the flat vector: floats [offset, offset + size), stored in rows
/// of `row` floats (a weight [out, in...] has rows of the product of its trailing dimensions; a
/// bias has rows of 1). What a partition of the vector may cut at (sim/ps/sharding.hpp).
struct Tensor {
  std::string name;
  std::size_t offset = 0;
  std::size_t size = 0;
  std::size_t row = 1;
};

class Model {
 public:
  virtual ~Model() = default;

  /// A fresh model with the same architecture and its own scratch buffers.
  virtual std::unique_ptr<Model> clone() const = 0;
  /// Short description, e.g. "cnn" or "mlp[128,64]".
  virtual std::string name() const = 0;
  virtual std::size_t num_params() const = 0;
  std::size_t param_bytes() const { return num_params() * sizeof(float); }
  virtual int input_dim() const = 0;
  virtual int num_classes() const = 0;
  /// The parameter tensors in flat-vector order; they tile [0, num_params()).
  virtual std::vector<Tensor> tensors() const = 0;

  /// Fills `params` with the initial values drawn from `seed` (fan-in uniform schemes).
  virtual void init(std::span<float> params, std::uint64_t seed) const = 0;

  /// Mean cross-entropy loss L = -(1/n) sum_i log softmax(f(x_i))_{y_i} over the batch, and its
  /// gradient dL/dparams written to `grad` (same size as params). `dropout_seed` seeds the
  /// dropout masks, so the same (params, batch, seed) always gives the same gradient.
  virtual float loss_and_gradient(std::span<const float> params, const Batch& batch,
                                  std::span<float> grad, std::uint64_t dropout_seed) = 0;

  /// Logits (n x num_classes, row-major) for n inputs, in inference mode (no dropout).
  /// Scratch buffers grow to the largest batch seen and are reused: steady state never allocates.
  virtual void logits(std::span<const float> params, const float* x, int n, float* out) = 0;

  /// Floating-point operations per sample: one forward pass, and forward + backward.
  virtual double forward_flops_per_sample() const = 0;
  virtual double train_flops_per_sample() const = 0;
};

}  // namespace failsim::models
