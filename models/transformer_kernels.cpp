#include "models/transformer_kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "models/gemm.hpp"

namespace failsim::models::transformer {
namespace {

constexpr float LAYER_NORM_EPS = 1e-5f;
constexpr float GELU_C = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float GELU_A = 0.044715f;
// Causal attention's products run over blocks of this many query rows, each against the keys up
// to its own last row: the masked upper triangle is skipped but for the blocks on the diagonal,
// so at T = 256 a head's four products cost 9/16 of the square's (one product per block stays
// long enough for the GEMM kernel; at T <= 32 it is the square itself).
constexpr int ATTENTION_BLOCK = 32;

/// db = the column sums of the row-major [rows x cols] matrix d.
void column_sums(const float* d, int rows, int cols, float* db) {
  std::fill(db, db + cols, 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* row = d + static_cast<std::ptrdiff_t>(r) * cols;
    for (int c = 0; c < cols; ++c) db[c] += row[c];
  }
}

// tanh dominated the step (45% of it in libm's scalar tanhf): Eigen's vectorised tanh takes GELU
// to a few percent. Blocks of GELU_BLOCK values on the stack, so the backward pass computes each
// tanh once without a buffer of its own.
constexpr std::size_t GELU_BLOCK = 256;
using GeluBlock = Eigen::Array<float, Eigen::Dynamic, 1, 0, GELU_BLOCK, 1>;

/// tanh(sqrt(2/pi) (x + 0.044715 x^3)) for the m <= GELU_BLOCK values at x.
GeluBlock gelu_tanh(const float* x, std::size_t m) {
  const Eigen::Map<const Eigen::ArrayXf> v(x, static_cast<Eigen::Index>(m));
  return (GELU_C * (v + GELU_A * v.cube())).tanh();
}

}  // namespace

void linear(const float* x, int rows, int in, const float* w, const float* b, int out, float* y,
            Pack pack) {
  gemm<RowMajor, ColMajor>(rows, out, in, x, in, w, in, y, out, false, pack.a, pack.b);
  if (b == nullptr) return;
  for (int r = 0; r < rows; ++r) {
    float* row = y + static_cast<std::ptrdiff_t>(r) * out;
    for (int c = 0; c < out; ++c) row[c] += b[c];
  }
}

void linear_backward(const float* x, const float* dy, int rows, int in, const float* w, int out,
                     float* dw, float* db, float* dx, bool accumulate_dx, Pack pack) {
  gemm<ColMajor, RowMajor>(out, in, rows, dy, out, x, in, dw, in, false, pack.a, pack.b);
  if (db != nullptr) column_sums(dy, rows, out, db);
  if (dx != nullptr) {
    gemm<RowMajor, RowMajor>(rows, in, out, dy, out, w, in, dx, in, accumulate_dx, pack.a, pack.b);
  }
}

void layer_norm(const float* x, int rows, int d, const float* g, const float* b, float* y,
                float* mean, float* rstd) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::ptrdiff_t>(r) * d;
    float* yr = y + static_cast<std::ptrdiff_t>(r) * d;
    // Two passes in double: the variance of a row with a large mean loses no bits.
    double sum = 0.0;
    for (int c = 0; c < d; ++c) sum += xr[c];
    const double m = sum / d;
    double sq = 0.0;
    for (int c = 0; c < d; ++c) sq += (xr[c] - m) * (xr[c] - m);
    const auto s = static_cast<float>(1.0 / std::sqrt(sq / d + LAYER_NORM_EPS));
    const auto mf = static_cast<float>(m);
    for (int c = 0; c < d; ++c) yr[c] = (xr[c] - mf) * s * g[c] + b[c];
    mean[r] = mf;
    rstd[r] = s;
  }
}

void layer_norm_backward(const float* x, const float* dy, int rows, int d, const float* g,
                         const float* mean, const float* rstd, float* dg, float* db, float* dx) {
  std::fill(dg, dg + d, 0.0f);
  std::fill(db, db + d, 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::ptrdiff_t>(r) * d;
    const float* dyr = dy + static_cast<std::ptrdiff_t>(r) * d;
    float* dxr = dx + static_cast<std::ptrdiff_t>(r) * d;
    const float m = mean[r];
    const float s = rstd[r];
    double sum_dxhat = 0.0, sum_dxhat_xhat = 0.0;
    for (int c = 0; c < d; ++c) {
      const float xhat = (xr[c] - m) * s;
      const float dxhat = dyr[c] * g[c];
      dg[c] += dyr[c] * xhat;
      db[c] += dyr[c];
      sum_dxhat += dxhat;
      sum_dxhat_xhat += static_cast<double>(dxhat) * xhat;
    }
    const auto mean_dxhat = static_cast<float>(sum_dxhat / d);
    const auto mean_dxhat_xhat = static_cast<float>(sum_dxhat_xhat / d);
    for (int c = 0; c < d; ++c) {
      const float xhat = (xr[c] - m) * s;
      dxr[c] += s * (dyr[c] * g[c] - mean_dxhat - xhat * mean_dxhat_xhat);
    }
  }
}

void gelu(const float* x, std::size_t n, float* y) {
  for (std::size_t at = 0; at < n; at += GELU_BLOCK) {
    const std::size_t m = std::min(GELU_BLOCK, n - at);
    const auto em = static_cast<Eigen::Index>(m);
    const Eigen::Map<const Eigen::ArrayXf> v(x + at, em);
    Eigen::Map<Eigen::ArrayXf>(y + at, em) = 0.5f * v * (1.0f + gelu_tanh(x + at, m));
  }
}

void gelu_backward(const float* x, std::size_t n, float* dy) {
  for (std::size_t at = 0; at < n; at += GELU_BLOCK) {
    const std::size_t m = std::min(GELU_BLOCK, n - at);
    const auto em = static_cast<Eigen::Index>(m);
    const Eigen::Map<const Eigen::ArrayXf> v(x + at, em);
    const GeluBlock t = gelu_tanh(x + at, m);
    Eigen::Map<Eigen::ArrayXf>(dy + at, em) *=
        0.5f * (1.0f + t) +
        0.5f * v * (1.0f - t.square()) * GELU_C * (1.0f + 3.0f * GELU_A * v.square());
  }
}

void causal_attention(const float* qkv, AttentionShape s, float* probs, float* out, Pack pack) {
  const int d = s.width();
  const int ld = 3 * d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.head));
  for (int b = 0; b < s.n; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const float* q = qkv + static_cast<std::ptrdiff_t>(b) * s.t * ld + h * s.head;
      const float* k = q + d;
      const float* v = q + 2 * d;
      float* p = probs + (static_cast<std::ptrdiff_t>(b) * s.heads + h) * s.t * s.t;
      // Scores of each block of query rows against the keys up to its last row only (the
      // masked square above them is never computed), then each row's softmax over its first
      // i + 1 entries.
      for (int r0 = 0; r0 < s.t; r0 += ATTENTION_BLOCK) {
        const int rows = std::min(ATTENTION_BLOCK, s.t - r0);
        gemm<RowMajor, ColMajor>(rows, r0 + rows, s.head, q + r0 * ld, ld, k, ld, p + r0 * s.t, s.t,
                                 false, pack.a, pack.b);
      }
      for (int i = 0; i < s.t; ++i) {
        float* row = p + static_cast<std::ptrdiff_t>(i) * s.t;
        float m = row[0] * scale;
        for (int j = 0; j <= i; ++j) m = std::max(m, row[j] * scale);
        double sum = 0.0;
        for (int j = 0; j <= i; ++j) {
          row[j] = std::exp(row[j] * scale - m);
          sum += row[j];
        }
        const auto inv = static_cast<float>(1.0 / sum);
        for (int j = 0; j <= i; ++j) row[j] *= inv;
        std::fill(row + i + 1, row + s.t, 0.0f);
      }
      float* o = out + static_cast<std::ptrdiff_t>(b) * s.t * d + h * s.head;
      for (int r0 = 0; r0 < s.t; r0 += ATTENTION_BLOCK) {
        const int rows = std::min(ATTENTION_BLOCK, s.t - r0);
        gemm<RowMajor, RowMajor>(rows, s.head, r0 + rows, p + r0 * s.t, s.t, v, ld, o + r0 * d, d,
                                 false, pack.a, pack.b);
      }
    }
  }
}

void causal_attention_backward(const float* qkv, const float* probs, const float* dout,
                               AttentionShape s, float* dqkv, float* scratch, Pack pack) {
  const int d = s.width();
  const int ld = 3 * d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.head));
  for (int b = 0; b < s.n; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(b) * s.t * ld + h * s.head;
      const float* q = qkv + at;
      const float* k = q + d;
      const float* v = q + 2 * d;
      float* dq = dqkv + at;
      float* dk = dq + d;
      float* dv = dq + 2 * d;
      const float* p = probs + (static_cast<std::ptrdiff_t>(b) * s.heads + h) * s.t * s.t;
      const float* dy = dout + static_cast<std::ptrdiff_t>(b) * s.t * d + h * s.head;
      float* ds = scratch;
      // dp = dy v^T on and below the diagonal blocks (row blocks as in the forward pass), and
      // dv = p^T dy, where block c of dv's rows sums over the rows of p from c's first on.
      for (int r0 = 0; r0 < s.t; r0 += ATTENTION_BLOCK) {
        const int rows = std::min(ATTENTION_BLOCK, s.t - r0);
        gemm<RowMajor, ColMajor>(rows, r0 + rows, s.head, dy + r0 * d, d, v, ld, ds + r0 * s.t, s.t,
                                 false, pack.a, pack.b);
        gemm<ColMajor, RowMajor>(rows, s.head, s.t - r0, p + r0 * s.t + r0, s.t, dy + r0 * d, d,
                                 dv + r0 * ld, ld, false, pack.a, pack.b);
      }
      // Through the softmax: ds_ij = p_ij (dp_ij - sum_j' p_ij' dp_ij') * scale, which is 0
      // wherever p is (above the diagonal).
      for (int i = 0; i < s.t; ++i) {
        const float* pr = p + static_cast<std::ptrdiff_t>(i) * s.t;
        float* row = ds + static_cast<std::ptrdiff_t>(i) * s.t;
        double dot = 0.0;
        for (int j = 0; j <= i; ++j) dot += static_cast<double>(pr[j]) * row[j];
        const auto dotf = static_cast<float>(dot);
        for (int j = 0; j <= i; ++j) row[j] = pr[j] * (row[j] - dotf) * scale;
        std::fill(row + i + 1, row + s.t, 0.0f);
      }
      // dq = ds k and dk = ds^T q over the same blocks.
      for (int r0 = 0; r0 < s.t; r0 += ATTENTION_BLOCK) {
        const int rows = std::min(ATTENTION_BLOCK, s.t - r0);
        gemm<RowMajor, RowMajor>(rows, s.head, r0 + rows, ds + r0 * s.t, s.t, k, ld, dq + r0 * ld,
                                 ld, false, pack.a, pack.b);
        gemm<ColMajor, RowMajor>(rows, s.head, s.t - r0, ds + r0 * s.t + r0, s.t, q + r0 * ld, ld,
                                 dk + r0 * ld, ld, false, pack.a, pack.b);
      }
    }
  }
}

}  // namespace failsim::models::transformer
