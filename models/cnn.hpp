// The study's convolutional network for Fashion-MNIST, written out by hand on Eigen so one
// training step at batch 32 costs a few milliseconds on one core (the simulator computes every
// gradient of every simulated worker for real, so this is the cost that bounds a run).
//
//   input C x H x W (default 1 x 28 x 28; H and W divisible by 4)
//   conv1 3x3, 16 filters, padding 1 -> ReLU -> max-pool 2x2 stride 2 -> 16 x H/2 x W/2
//   conv2 3x3, 32 filters, padding 1 -> ReLU -> max-pool 2x2 stride 2 -> 32 x H/4 x W/4
//   flatten (c, h, w) -> fc1 (32*H*W/16 -> 512) -> ReLU -> dropout p -> fc2 (512 -> classes)
//
// Parameters are PyTorch's, in PyTorch's order, in one flat float vector: conv1.weight
// [16,C,3,3], conv1.bias [16], conv2.weight [32,16,3,3], conv2.bias [32], fc1.weight [512,F],
// fc1.bias [512], fc2.weight [classes,512], fc2.bias [classes], with F = 32*(H/4)*(W/4).
//
// Speed (bench/bench_models.cpp; PyTorch's own step is bench/pytorch_cnn_step.py): in the
// forward pass each convolution is im2col + one GEMM over a group of samples, and pooling is
// fused with bias and ReLU; the training forward pass also records each pooling window's
// winner, so the backward pass works on nonzeros only (the pixels that won their window with the
// ReLU on, the units dropout and the ReLU kept) instead of dense products over mostly zeros.
// Every data-dependent choice is arithmetic rather than a branch, and all buffers are members
// that only grow, so after the first call with the largest batch nothing allocates.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

class Rng;

/// Offsets and sizes of each parameter tensor inside the flat vector (PyTorch order).
struct CnnLayout {
  std::size_t conv1_w = 0, conv1_b = 0, conv2_w = 0, conv2_b = 0;
  std::size_t fc1_w = 0, fc1_b = 0, fc2_w = 0, fc2_b = 0;
  std::size_t total = 0;
};

class Cnn : public Model {
 public:
  static constexpr int CONV1_FILTERS = 16;
  static constexpr int CONV2_FILTERS = 32;
  static constexpr int HIDDEN = 512;
  /// Samples processed per pass: scratch memory is bounded by this, whatever n the caller asks.
  static constexpr int MAX_CHUNK = 256;
  /// Samples per step of conv2's im2col, GEMMs and col2im (so their buffers stay in L2).
  static constexpr int CONV2_GROUP = 4;
  /// Samples per step of conv1's im2col, GEMMs and pooling.
  static constexpr int CONV1_GROUP = 4;

  /// Throws std::invalid_argument unless 0 <= dropout < 1, channels >= 1, classes >= 2 and
  /// height and width are positive multiples of 4.
  explicit Cnn(float dropout = 0.25f, int channels = 1, int height = 28, int width = 28,
               int classes = 10);

  std::unique_ptr<Model> clone() const override;
  std::string name() const override { return "cnn"; }
  std::size_t num_params() const override { return layout_.total; }
  int input_dim() const override { return channels_ * height_ * width_; }
  int num_classes() const override { return classes_; }
  std::vector<Tensor> tensors() const override;
  float dropout() const { return dropout_; }
  const CnnLayout& layout() const { return layout_; }

  /// PyTorch's default initialisation (kaiming_uniform with a = sqrt(5) for weights, and the
  /// matching bias rule): every weight and bias of a layer is uniform in
  /// [-1/sqrt(fan_in), 1/sqrt(fan_in)], fan_in = in_channels*3*3 (conv) or in_features (fc).
  /// Drawn in parameter order from Rng(seed).uniform_float() as (2u - 1) / sqrt(fan_in).
  void init(std::span<float> params, std::uint64_t seed) const override;

  /// Mean cross-entropy and its gradient. Dropout (training only) is inverted dropout on fc1's
  /// output: unit j of sample i is dropped if u < p and otherwise scaled by 1/(1-p), where u is
  /// the (512 i + j)-th Rng(dropout_seed).uniform_float(), so the mask depends only on the seed
  /// and the sample's position in the batch. Batches above MAX_CHUNK samples are processed in
  /// chunks whose gradients are summed with weights m/n (same result up to rounding). Throws
  /// std::invalid_argument when params or grad has the wrong size or the batch is empty.
  float loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad,
                          std::uint64_t dropout_seed) override;

  /// Inference (no dropout), MAX_CHUNK samples at a time. Throws std::invalid_argument when
  /// params has the wrong size.
  void logits(std::span<const float> params, const float* x, int n, float* out) override;

  /// Multiply-adds counted as 2 FLOPs, for the convolutions and fully connected layers only
  /// (bias, ReLU, pooling, dropout and softmax are O(activations) and left out):
  ///   conv1: 2*16*(C*9)*H*W,  conv2: 2*32*(16*9)*(H/2)*(W/2),  fc1: 2*F*512,  fc2: 2*512*K.
  /// For 1x28x28 and 10 classes: 225,792 + 1,806,336 + 1,605,632 + 10,240 = 3,648,000.
  double forward_flops_per_sample() const override;
  /// Forward + backward as the math requires: every layer's weight gradient (same multiply-adds
  /// as its forward) and the input gradient of every layer but conv1 (the image needs none):
  /// 3 * forward - conv1 = 10,718,208 for 1x28x28. This is what the simulated time model charges;
  /// the implementation does fewer, since its backward pass skips zeros (see the top of this file).
  double train_flops_per_sample() const override;

 private:
  /// Forward pass of n <= MAX_CHUNK samples into the member buffers; `rng` draws the dropout
  /// masks (null: inference, no dropout). Leaves the logits in logits_.
  void forward_chunk(const float* params, const float* x, int n, Rng* rng);
  /// Backward pass of the last forward_chunk (same params and x) given dL/dlogits in logits_.
  /// The parameter gradients are written to grad when `accumulate` is false and added to it
  /// otherwise.
  void backward_chunk(const float* params, const float* x, int n, float* grad, bool accumulate);
  /// fc1's weight gradient (written, or added when `accumulate`) and dL/dflat into dflat_, from
  /// dL/dhidden in dhidden_: sums over its nonzeros only. Dropout and the ReLU leave about a
  /// third of them, so this does a third of the two dense products' multiply-adds.
  void fc1_backward(const float* params, int n, float* grad, bool accumulate);
  /// The convolutional layers' backward pass, sample by sample, from dL/dflat in dflat_ and the
  /// winners the training forward pass recorded: only the pixels that won their pooling window
  /// with the ReLU on carry a gradient (at most a quarter), so both convolutions' weight
  /// gradients and conv2's input gradient are sums over those pixels alone. Writes (or adds,
  /// when `accumulate`) the conv1 and conv2 weight and bias gradients.
  void conv_backward(const float* params, const float* x, int n, float* grad, bool accumulate);
  /// conv1 without bias for samples [s0, s0 + g) of x into conv1_ (and their im2col in cols1_).
  void conv1_group(const float* params, const float* x, int s0, int g);
  /// Grows the scratch buffers to hold n samples (never shrinks: steady state never allocates).
  void reserve(int n);

  float dropout_;
  int channels_, height_, width_, classes_;
  CnnLayout layout_;

  // Scratch, per chunk of n samples. "CNHW" means [channels x (n * H * W)] row-major: one row
  // per channel holding all samples' images one after the other, which is what im2col + GEMM
  // produces and consumes without transposing.
  std::vector<float> edge_mask1_, edge_mask2_;  // edge_masks() of conv1's and conv2's inputs
  int capacity_ = 0;
  std::vector<float> cols1_;     // [C*9 x CONV1_GROUP*H*W] im2col of the input
  std::vector<float> conv1_;     // [16 x CONV1_GROUP*H*W] conv1 without bias (CNHW)
  std::vector<float> pool1_;     // [16 x n*H*W/4] relu(maxpool(conv1) + b) (CNHW)
  std::vector<float> cols2_;     // [144 x CONV2_GROUP*H*W/4] im2col of pool1
  std::vector<float> conv2_;     // [32 x n*H*W/4] conv2 without bias (CNHW)
  std::vector<float> flat_;      // [n x F] relu(maxpool(conv2) + b), flattened (c, h, w)
  std::vector<float> hidden_t_;  // [512 x n] fc1 without bias, transposed
  std::vector<float> hidden_;    // [n x 512] dropout(relu(fc1))
  std::vector<float> logits_;    // [n x classes], then dL/dlogits in the backward pass
  std::vector<float> dhidden_;   // [n x 512]
  std::vector<float> dflat_;     // [n x F]
  // fc1_backward's lists of the nonzeros of dhidden_: by unit (rows [begin[j], begin[j+1]) of
  // unit_sample_/unit_value_) and by sample.
  std::vector<std::int32_t> unit_begin_, unit_sample_, sample_begin_, sample_unit_;
  std::vector<float> unit_value_, sample_value_;
  // Recorded by the training forward pass (see bias_relu_maxpool in cnn.cpp): per pooled pixel,
  // the top-left corner of its winner's 3x3 patch in the zero-padded input, or -1 (ReLU off).
  std::vector<std::int32_t> win1_;  // [16 x n*H*W/4] like pool1_, in the padded (H+2)x(W+2) image
  std::vector<std::int32_t> win2_;  // [n x F] like flat_, in the padded (H/2+2)x(W/2+2) pool1
  // conv_backward's, per sample (channel-last "HWC": one pixel's 16 channels are one vector).
  FloatBuffer p1_;                       // pool1, zero-padded, [(H/2+2)*(W/2+2) x 16]
  FloatBuffer dp1_;                      // dL/dpool1, same layout
  std::vector<float> xpad_;              // the input, zero-padded, [C x (H+2)*(W+2)]
  std::vector<std::int32_t> active_at_;  // the winners of one channel whose ReLU is on
  std::vector<float> active_g_;          // and their gradients
  FloatBuffer w2t_, dw2t_;               // conv2's weights and their gradient, [32 x 9 x 16]
  std::vector<float> dw1_;               // conv1's weight gradient, PyTorch's layout
  std::vector<float> pack_a_, pack_b_;   // Eigen's GEMM packing buffers (see cnn.cpp)
};

}  // namespace failsim::models
