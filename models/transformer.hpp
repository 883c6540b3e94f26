// A decoder-only transformer language model (GPT-2's architecture, nanoGPT's layout), written
// out by hand on Eigen like the CNN: float32, one flat parameter vector, a training step that
// allocates nothing once its scratch has grown to the batch.
//
//   tokens [n x T] -> wte[token] + wpe[position]                         residual stream [n*T x D]
//   L pre-norm blocks:  x += attn(ln_1(x));  x += mlp(ln_2(x))
//     attn: c_attn (D -> 3D: q, k, v) -> H heads of causal softmax(q k^T / sqrt(D/H)) v -> c_proj
//     mlp:  c_fc (D -> F) -> GELU (tanh approximation, GPT-2's) -> c_proj (F -> D)
//   ln_f -> lm_head (D -> V, no bias; tied: wte itself) -> cross-entropy against the next tokens,
//   averaged over all n*T positions.
// LayerNorm has eps 1e-5 and a gain and bias per feature.
//
// Parameters, in this order (weights [out x in] row-major, PyTorch nn.Linear's layout, so a
// PyTorch model reads the same vector): wte [V x D], wpe [T x D]; per block l: ln_1.weight [D],
// ln_1.bias [D], attn.c_attn.weight [3D x D], attn.c_attn.bias [3D], attn.c_proj.weight [D x D],
// attn.c_proj.bias [D], ln_2.weight [D], ln_2.bias [D], mlp.c_fc.weight [F x D], mlp.c_fc.bias
// [F], mlp.c_proj.weight [D x F], mlp.c_proj.bias [D]; then ln_f.weight [D], ln_f.bias [D]; and,
// untied only, lm_head.weight [V x D]. c_attn's rows are q (heads one after the other), k, v.
//
// A sample is one window of T + 1 token ids stored as floats in one row of a Dataset/Batch
// (input_dim() = T + 1): the inputs are its first T ids and the targets its last T, the same
// row shifted by one. Why: Dataset and Batch hold one float row and one integer label per
// sample, and a language model's labels are its own inputs shifted, so keeping them in the row
// lets gathering, shuffling and sharding work unchanged (floats hold integers exactly up to
// 2^24, far above any vocabulary here). Batch::y is not read by the loss; by convention it is the
// window's last token, which is what logits() predicts, so evaluate()'s accuracy is next-token
// accuracy at the last position.
//
// In models/models.def as "transformer": make_transformer() builds it for the `text` data's
// windows (models/text_corpus.hpp), its vocabulary the data's and its sizes the scenario's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

struct TransformerConfig {
  int vocab = 256;     ///< V, token ids in [0, V)
  int sequence = 128;  ///< T, positions per window (the context length)
  int layers = 4;      ///< L blocks
  int hidden = 128;    ///< D, the residual stream's width
  int heads = 4;       ///< H, dividing D
  int mlp_ratio = 4;   ///< F = mlp_ratio * D (GPT-2's 4)
  bool tied = true;    ///< lm_head is wte (GPT-2) rather than a tensor of its own

  bool operator==(const TransformerConfig&) const = default;
};

/// Offsets of one block's tensors in the flat vector.
struct TransformerBlockLayout {
  std::size_t ln1_g = 0, ln1_b = 0, qkv_w = 0, qkv_b = 0, proj_w = 0, proj_b = 0;
  std::size_t ln2_g = 0, ln2_b = 0, fc_w = 0, fc_b = 0, out_w = 0, out_b = 0;
};

/// Offsets of every tensor; `head` is `wte` when tied.
struct TransformerLayout {
  std::size_t wte = 0, wpe = 0;
  std::vector<TransformerBlockLayout> blocks;
  std::size_t lnf_g = 0, lnf_b = 0, head = 0;
  std::size_t total = 0;
};

class Transformer : public Model {
 public:
  /// Throws std::invalid_argument unless vocab >= 2, sequence, layers, hidden, heads and
  /// mlp_ratio >= 1, and heads divides hidden.
  explicit Transformer(TransformerConfig config);

  std::unique_ptr<Model> clone() const override;
  std::string name() const override;
  std::size_t num_params() const override { return layout_.total; }
  int input_dim() const override { return config_.sequence + 1; }
  int num_classes() const override { return config_.vocab; }
  std::vector<Tensor> tensors() const override;
  const TransformerConfig& config() const { return config_; }
  const TransformerLayout& layout() const { return layout_; }

  /// GPT-2's initialisation: every weight matrix and both embeddings normal(0, 0.02), except the
  /// projections into the residual stream (attn.c_proj and mlp.c_proj weights), normal(0,
  /// 0.02 / sqrt(2L)) so the stream's variance does not grow with depth; biases 0, LayerNorm
  /// gains 1. Drawn in parameter order from Rng(seed).normal(), the weights and embeddings only.
  void init(std::span<float> params, std::uint64_t seed) const override;

  /// Mean next-token cross-entropy over the batch's n*T positions and its gradient. No dropout
  /// (dropout_seed is unused). Throws std::invalid_argument when params or grad has the wrong
  /// size, the batch is empty, or a token is not an integer in [0, V).
  float loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad,
                          std::uint64_t dropout_seed) override;

  /// The logits at each window's last input position (n x V): the prediction of the window's
  /// last token. Rows of x are input_dim() floats; only their first T ids are read.
  void logits(std::span<const float> params, const float* x, int n, float* out) override;

  /// The logits at every position of n windows, [n*T x V] row-major (row b*T + t predicts
  /// token t + 1 of window b), in the model's scratch: valid until the next call.
  const float* sequence_logits(std::span<const float> params, const float* x, int n);

  /// Multiply-adds of the matrix products as 2 FLOPs (LayerNorm, GELU, softmax and embeddings
  /// are O(activations) and left out), per window: per block 2T(3D^2 + D^2 + 2DF) for the
  /// linear layers and 2 * 2T^2 D for q k^T and p v (computed over the whole T x T square, the
  /// masked half included), plus 2TDV for lm_head.
  double forward_flops_per_sample() const override;
  /// Forward + backward: every product has a weight (or, in attention, a second operand)
  /// gradient and an input gradient of the forward's cost, so 3 x forward.
  double train_flops_per_sample() const override;

 private:
  /// Forward pass of n windows into the scratch buffers; reads and checks the token ids (and
  /// the targets when `targets`). Leaves the logits in logits_.
  void forward(const float* params, const float* x, int n, bool targets);
  /// Backward pass of the last forward (same params) given dL/dlogits in logits_; writes grad.
  void backward(const float* params, int n, float* grad);
  /// Grows the scratch buffers to n windows (never shrinks: steady state never allocates).
  void reserve(int n);

  TransformerConfig config_;
  TransformerLayout layout_;

  // Scratch for n windows, N = n*T rows. Per-block buffers hold all L blocks one after the other.
  int capacity_ = 0;
  std::vector<std::int32_t> tokens_, targets_;  // [N]
  FloatBuffer stream_;   // [(2L+1) x N x D]: block l's input (2l), after its attention (2l+1),
                         // the last block's output (2L)
  FloatBuffer mean_;     // [(2L+1) x N] LayerNorm statistics of each stream_ slice normalised
  FloatBuffer rstd_;     // same, 1/sqrt(var + eps)
  FloatBuffer normed_;   // [(2L+1) x N x D] LayerNorm outputs: ln_1 (2l), ln_2 (2l+1), ln_f (2L)
  FloatBuffer qkv_;      // [L x N x 3D]
  FloatBuffer probs_;    // [L x n x H x T x T] attention weights, 0 above the diagonal
  FloatBuffer att_;      // [L x N x D] heads' outputs, concatenated
  FloatBuffer fc_;       // [L x N x F] c_fc's output before GELU
  FloatBuffer gelu_;     // [L x N x F]
  FloatBuffer logits_;   // [N x V], then dL/dlogits
  FloatBuffer dstream_;  // [N x D] dL/d(the residual stream) at the current point
  FloatBuffer dnormed_;  // [N x D]
  FloatBuffer datt_;     // [N x D]
  FloatBuffer dqkv_;     // [N x 3D]
  FloatBuffer dfc_;      // [N x F]
  FloatBuffer dprobs_;   // [T x T] one head's dL/dprobs, then dL/dscores
  std::vector<float> pack_a_, pack_b_;  // GEMM packing (models/gemm.hpp)
};

}  // namespace failsim::models
