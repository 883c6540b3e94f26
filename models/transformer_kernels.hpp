// The transformer's building blocks (models/transformer.hpp), each a forward and a backward
// pass over row-major activations, with GEMMs on caller-owned packing buffers so that nothing
// allocates once the buffers have grown.
#pragma once

#include <vector>

namespace failsim::models::transformer {

/// GEMM packing buffers (models/gemm.hpp), owned by the model.
struct Pack {
  std::vector<float>& a;
  std::vector<float>& b;
};

/// y = x W^T + b for x [rows x in], W [out x in] (PyTorch's layout), b [out] or null.
void linear(const float* x, int rows, int in, const float* w, const float* b, int out, float* y,
            Pack pack);

/// Given dy [rows x out]: dW = dy^T x and db = the column sums of dy (written, when db is not
/// null), and dx = dy W [rows x in] written (or added when `accumulate_dx`) when dx is not null.
void linear_backward(const float* x, const float* dy, int rows, int in, const float* w, int out,
                     float* dw, float* db, float* dx, bool accumulate_dx, Pack pack);

/// LayerNorm over each row of x [rows x d]: y = (x - mean) * rstd * g + b, rstd =
/// 1/sqrt(var + 1e-5) with the biased variance (PyTorch's). Records mean and rstd per row.
void layer_norm(const float* x, int rows, int d, const float* g, const float* b, float* y,
                float* mean, float* rstd);

/// Given dy: dg and db written, and dx += rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat *
/// xhat)) with xhat = (x - mean) * rstd and dxhat = dy * g (the row means over d features).
void layer_norm_backward(const float* x, const float* dy, int rows, int d, const float* g,
                         const float* mean, const float* rstd, float* dg, float* db, float* dx);

/// GPT-2's GELU, y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), elementwise over n values.
void gelu(const float* x, std::size_t n, float* y);
/// dx = dy * gelu'(x), in place in dy.
void gelu_backward(const float* x, std::size_t n, float* dy);

/// Shape of one block's attention: n windows of t positions, `heads` heads of width `head`.
struct AttentionShape {
  int n, t, heads, head;
  int width() const { return heads * head; }
};

/// Causal multi-head attention. qkv [n*t x 3D] holds each position's q, k, v (heads one after
/// the other within each); out [n*t x D] receives each head's softmax(q k^T / sqrt(head)) v,
/// position i attending to positions 0..i only. probs [n x heads x t x t] receives the weights,
/// exactly 0 above the diagonal.
void causal_attention(const float* qkv, AttentionShape s, float* probs, float* out, Pack pack);

/// Given dout [n*t x D], writes dqkv [n*t x 3D]. `scratch` holds t x t floats.
void causal_attention_backward(const float* qkv, const float* probs, const float* dout,
                               AttentionShape s, float* dqkv, float* scratch, Pack pack);

}  // namespace failsim::models::transformer
