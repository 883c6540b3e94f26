// The CNN's forward and backward passes (see cnn.hpp for the architecture and parameter
// layout). Convolutions are im2col + Eigen GEMM over groups of a few samples, sized so a group's
// buffers stay in L2; bias + ReLU + max-pool is one pass; the fully connected layers are one
// GEMM each over the whole chunk. What decided each choice was measured on one core of the
// development machine (AMD EPYC, AVX-512): see the comments at each.
#include "models/cnn.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/gemm.hpp"
#include "models/loss.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"

namespace failsim::models {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowVecMap = Eigen::Map<Eigen::RowVectorXf>;
using ConstRowVecMap = Eigen::Map<const Eigen::RowVectorXf>;

/// Where element (c, s, y, x) of a batch of images lives: base + c*channel + s*sample + y*W + x.
/// Sample-major inputs (NCHW) and the channel-major scratch (CNHW) differ only in these strides.
struct Strides {
  std::ptrdiff_t channel;
  std::ptrdiff_t sample;
};

/// 0/1 masks of the pixels of an h x w image whose left (row 0) or right (row 1) neighbour
/// exists: [2 x h*w]. A 3x3 tap's column shift dx = -1 or +1 reads padding exactly where its mask
/// is 0, which lets im2col and col2im work on whole flattened images with long, vectorised,
/// branch-free loops instead of rows of 14 pixels.
std::vector<float> edge_masks(int h, int w) {
  std::vector<float> mask(2 * static_cast<std::size_t>(h) * w, 1.0f);
  for (int y = 0; y < h; ++y) {
    mask[static_cast<std::size_t>(y) * w] = 0.0f;
    mask[(static_cast<std::size_t>(h) + y) * w + (w - 1)] = 0.0f;
  }
  return mask;
}

/// The tap (ky, kx) reads pixel i + offset of the flattened image for output pixel i, valid for
/// i in [lo, hi) (rows above or below the image excluded) and where `mask` is 1 (null: dx = 0).
struct TapShift {
  std::ptrdiff_t offset, lo, hi;
  const float* mask;
};

TapShift tap_shift(int ky, int kx, int h, int w, const float* edge_mask) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const int dx = kx - 1;
  TapShift t;
  t.offset = (ky - 1) * static_cast<std::ptrdiff_t>(w) + dx;
  t.lo = std::max<std::ptrdiff_t>(0, -t.offset);
  t.hi = std::min(hw, hw - t.offset);
  t.mask = dx < 0 ? edge_mask : dx > 0 ? edge_mask + hw : nullptr;
  return t;
}

/// im2col for a 3x3 kernel, stride 1, padding 1: row (c*9 + ky*3 + kx) of `cols`, column
/// (s*H*W + y*W + x) holds in(c, s, y+ky-1, x+kx-1), or 0 outside the image. Row-major, so each
/// row is the whole batch shifted by (ky-1, kx-1): within one image, a constant offset of the
/// flattened pixels, masked where it wraps around a row end. `edge_mask` is edge_masks(h, w).
void im2col_3x3(const float* in, Strides st, int channels, int n, int h, int w,
                const float* edge_mask, float* cols) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const std::ptrdiff_t row_len = n * hw;
  for (int c = 0; c < channels; ++c) {
    for (int ky = 0; ky < 3; ++ky) {
      for (int kx = 0; kx < 3; ++kx) {
        float* row = cols + (static_cast<std::ptrdiff_t>(c) * 9 + ky * 3 + kx) * row_len;
        const TapShift t = tap_shift(ky, kx, h, w, edge_mask);
        for (int s = 0; s < n; ++s) {
          // Indexed as img[i + offset], not through img + offset, which may point before img.
          const float* __restrict img = in + c * st.channel + s * st.sample;
          float* __restrict o = row + s * hw;
          const std::ptrdiff_t d = t.offset;
          std::fill(o, o + t.lo, 0.0f);
          if (t.mask == nullptr) {
            for (std::ptrdiff_t i = t.lo; i < t.hi; ++i) o[i] = img[i + d];
          } else {
            for (std::ptrdiff_t i = t.lo; i < t.hi; ++i) o[i] = img[i + d] * t.mask[i];
          }
          std::fill(o + t.hi, o + hw, 0.0f);
        }
      }
    }
  }
}

/// out(c, s, p) = relu(max over the 2x2 window p of conv(c, s, .) + bias[c]). The bias is added
/// after the max since max(a + b) = max(a) + b. conv is CNHW [channels x n*h*w]; out has the
/// strides `ost` (h/2 x w/2 images). Branch-free so that it vectorises: on real data the
/// winner of a window is unpredictable.
///
/// With WINNERS (training), `winners` (same strides as out) also receives, for each window, where
/// its gradient goes in the backward pass: the winning pixel (y, x) as y * winner_stride + x, or
/// -1 where the ReLU is off (no gradient at all). The winner is the first maximum in row-major
/// window order (a b / c d), as PyTorch's. Recording it here is what lets the backward pass touch
/// only the winners (a quarter of the pixels, fewer after the ReLU) instead of dense gradients
/// that are three quarters zeros.
template <bool WINNERS>
void bias_relu_maxpool(const float* conv, const float* bias, int channels, int n, int h, int w,
                       float* out, Strides ost, std::int32_t* winners, int winner_stride) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const int ph = h / 2;
  const int pw = w / 2;
  for (int c = 0; c < channels; ++c) {
    const float b = bias[c];
    for (int s = 0; s < n; ++s) {
      const float* img = conv + (static_cast<std::ptrdiff_t>(c) * n + s) * hw;
      const std::ptrdiff_t o = c * ost.channel + s * ost.sample;
      for (int py = 0; py < ph; ++py) {
        const float* __restrict r0 = img + static_cast<std::ptrdiff_t>(2 * py) * w;
        const float* __restrict r1 = r0 + w;
        float* __restrict orow = out + o + static_cast<std::ptrdiff_t>(py) * pw;
        std::int32_t* __restrict wrow = winners + o + static_cast<std::ptrdiff_t>(py) * pw;
        for (int px = 0; px < pw; ++px) {
          const float top = std::max(r0[2 * px], r0[2 * px + 1]);  // the left one on a tie
          const float bottom = std::max(r1[2 * px], r1[2 * px + 1]);
          const float m = std::max(top, bottom);  // top on a tie
          orow[px] = std::max(m + b, 0.0f);
          if constexpr (WINNERS) {
            // Arithmetic on 0/1 flags rather than conditionals, which would not vectorise.
            const std::int32_t down = bottom > top;
            const std::int32_t right =
                down * static_cast<std::int32_t>(r1[2 * px + 1] > r1[2 * px]) +
                (1 - down) * static_cast<std::int32_t>(r0[2 * px + 1] > r0[2 * px]);
            const std::int32_t on = m + b > 0.0f;
            wrow[px] = on * ((2 * py + down) * winner_stride + 2 * px + right + 1) - 1;
          }
        }
      }
    }
  }
}

/// C = A B for a small inner dimension k (conv1's C*9), written rather than accumulated: A is
/// [m x k] with element (i, p) at a[i*k + p], B is [k x n] at b[p*ldb + j], C is [m x n] at
/// c[i*ldc + j], all row-major, m a multiple of 4. Register tiles of 4 rows x 4 SIMD packets, each
/// element summed over p in order. Eigen's GEMM is made for large k: at k = 9 its packing and
/// the zeroing of C dominate, and this takes conv1's product for 4 samples from 11.5 to 6.7 us.
void gemm_small_k(Index m, Index n, Index k, const float* a, const float* b, Index ldb, float* c,
                  Index ldc) {
  using Eigen::internal::ploadu;
  using Eigen::internal::pmadd;
  using Eigen::internal::pset1;
  using Eigen::internal::pstoreu;
  using Packet = Eigen::internal::packet_traits<float>::type;
  constexpr Index L = Eigen::internal::packet_traits<float>::size;
  constexpr Index ROWS = 4, COLS = 4;
  Index j0 = 0;
  for (; j0 + COLS * L <= n; j0 += COLS * L) {
    for (Index i0 = 0; i0 < m; i0 += ROWS) {
      Packet acc[ROWS][COLS];
      for (auto& row : acc) {
        for (Packet& v : row) v = pset1<Packet>(0.0f);
      }
      for (Index p = 0; p < k; ++p) {
        Packet bv[COLS];
        for (Index t = 0; t < COLS; ++t) bv[t] = ploadu<Packet>(b + p * ldb + j0 + t * L);
        for (Index r = 0; r < ROWS; ++r) {
          const Packet av = pset1<Packet>(a[(i0 + r) * k + p]);
          for (Index t = 0; t < COLS; ++t) acc[r][t] = pmadd(av, bv[t], acc[r][t]);
        }
      }
      for (Index r = 0; r < ROWS; ++r) {
        for (Index t = 0; t < COLS; ++t) pstoreu(c + (i0 + r) * ldc + j0 + t * L, acc[r][t]);
      }
    }
  }
  for (; j0 + L <= n; j0 += L) {
    for (Index i = 0; i < m; ++i) {
      Packet acc = pset1<Packet>(0.0f);
      for (Index p = 0; p < k; ++p) {
        acc = pmadd(pset1<Packet>(a[i * k + p]), ploadu<Packet>(b + p * ldb + j0), acc);
      }
      pstoreu(c + i * ldc + j0, acc);
    }
  }
  for (; j0 < n; ++j0) {
    for (Index i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (Index p = 0; p < k; ++p) sum = std::fma(a[i * k + p], b[p * ldb + j0], sum);
      c[i * ldc + j0] = sum;
    }
  }
}

/// db (+)= the column sums of the row-major [n x cols] matrix d.
void add_column_sums(const float* d, int n, int cols, float* db, bool accumulate) {
  RowVecMap sums(db, cols);
  if (accumulate) {
    sums += ConstRowMap(d, n, cols).colwise().sum();
  } else {
    sums = ConstRowMap(d, n, cols).colwise().sum();
  }
}

/// The nonzeros of a matrix, row by row: row r (element (r, c) at m[r * row_stride + c *
/// col_stride]) owns entries [begin[r], begin[r + 1]) of index (their c, increasing) and value.
/// Branch-free: whether an element is zero is unpredictable.
void list_nonzeros(const float* m, int rows, int cols, std::ptrdiff_t row_stride,
                   std::ptrdiff_t col_stride, std::int32_t* begin, std::int32_t* index,
                   float* value) {
  begin[0] = 0;
  for (int r = 0; r < rows; ++r) {
    std::int32_t count = begin[r];
    for (int c = 0; c < cols; ++c) {
      const float v = m[r * row_stride + c * col_stride];
      index[count] = c;
      value[count] = v;
      count += v != 0.0f;
    }
    begin[r + 1] = count;
  }
}

/// Sums of scaled rows, the kernel of fc1's backward pass: for each output row r,
/// out[r][0, len) (+)= the sum over e in [begin[r], begin[r+1]) of value[e] * src[index[e]][0,
/// len), in that order (the same bits for the same inputs, wherever the buffers are), src rows `ld`
/// floats apart. len is a multiple of the packet size. Columns go by blocks of BLOCK packets,
/// held in registers while a row's terms are added; the blocks are the outer loop, so the block's
/// columns of src stay in cache while every output row uses them.
void sparse_row_sums(int rows, int len, const std::int32_t* begin, const std::int32_t* index,
                     const float* value, const float* src, std::ptrdiff_t ld, float* out,
                     std::ptrdiff_t ldo, bool accumulate) {
  using Eigen::internal::padd;
  using Eigen::internal::ploadu;
  using Eigen::internal::pmadd;
  using Eigen::internal::pset1;
  using Eigen::internal::pstoreu;
  using Packet = Eigen::internal::packet_traits<float>::type;
  constexpr int L = Eigen::internal::packet_traits<float>::size;
  constexpr int BLOCK = 8;
  auto block = [&](int r, int col, auto width) {
    constexpr int W = decltype(width)::value;
    Packet acc[W];
    for (Packet& a : acc) a = pset1<Packet>(0.0f);
    for (std::int32_t e = begin[r]; e < begin[r + 1]; ++e) {
      const Packet v = pset1<Packet>(value[e]);
      const float* s = src + index[e] * ld + col;
      for (int u = 0; u < W; ++u) acc[u] = pmadd(v, ploadu<Packet>(s + u * L), acc[u]);
    }
    float* o = out + r * ldo + col;
    for (int u = 0; u < W; ++u) {
      pstoreu(o + u * L, accumulate ? padd(ploadu<Packet>(o + u * L), acc[u]) : acc[u]);
    }
  };
  for (int col = 0; col < len; col += BLOCK * L) {
    if (col + BLOCK * L <= len) {
      for (int r = 0; r < rows; ++r) block(r, col, std::integral_constant<int, BLOCK>{});
    } else {
      for (int c = col; c < len; c += L) {
        for (int r = 0; r < rows; ++r) block(r, c, std::integral_constant<int, 1>{});
      }
    }
  }
}

// ---- The phases of Cnn::conv_backward, one helper each. The per-filter and per-channel kernels
// are forced inline, so the sample loop compiles as one function still; their pointers keep the
// __restrict promises that loop makes (its scratch buffers are disjoint).

constexpr int CI = Cnn::CONV1_FILTERS;  // conv2's input channels: one channel-last pixel

/// One sample's image sizes in conv_backward.
struct BackwardShape {
  int c_in, h, w;            // the input's channels, height and width
  int h2, w2;                // pool1's height and width
  int pw1, pw2;              // the widths of the zero-padded input and pool1
  std::ptrdiff_t padded_in;  // pixels of one zero-padded input channel
  std::ptrdiff_t q;          // pixels of a pool1 image
};

/// conv2's weights from PyTorch's [32 x 16 x 9 taps] to channel-last [32 x 9 taps x 16]: one
/// packet row per (filter, tap).
void conv2_weights_channel_last(const float* w, float* wt) {
  for (int c = 0; c < Cnn::CONV2_FILTERS; ++c) {
    for (int ci = 0; ci < CI; ++ci) {
      for (int t = 0; t < 9; ++t) wt[(c * 9 + t) * CI + ci] = w[(c * CI + ci) * 9 + t];
    }
  }
}

/// pool1 of sample s (channel-major, [16 x n x q]) into the interior of p1, channel-last and
/// zero-padded: conv2's 3x3 patch at a pixel is then 3 rows of 3 whole pixels, 16 channels each.
void pad_pool1_channel_last(const float* pool1, int n, int s, const BackwardShape& sh,
                            float* __restrict p1) {
  for (int ci = 0; ci < CI; ++ci) {
    const float* src = pool1 + ci * n * sh.q + s * sh.q;
    for (int y = 0; y < sh.h2; ++y) {
      for (int xx = 0; xx < sh.w2; ++xx) {
        p1[((y + 1) * sh.pw2 + xx + 1) * CI + ci] = src[y * sh.w2 + xx];
      }
    }
  }
}

/// Sample s of the input x (NCHW) into the interiors of xpad, zero-padded per channel.
void pad_input(const float* x, int s, const BackwardShape& sh, float* xpad) {
  for (int cin = 0; cin < sh.c_in; ++cin) {
    const float* src = x + (static_cast<std::ptrdiff_t>(s) * sh.c_in + cin) * sh.h * sh.w;
    float* dst = xpad + cin * sh.padded_in;
    for (int y = 0; y < sh.h; ++y) std::copy_n(src + y * sh.w, sh.w, dst + (y + 1) * sh.pw1 + 1);
  }
}

/// pool2 and conv2 for one filter of one sample, over its p windows whose ReLU is on: the
/// gradient g (d, from dL/dflat) reaches the winning pixel only (win, -1 where the ReLU is off),
/// whose 3x3 patch gives dW += g * patch and whose inputs receive g * W. The patch's top-left
/// corner in the padded pool1 p1 is the recorded winner. wc: the filter's channel-last weights,
/// dw: their gradient (added to); dp1 receives dL/dpool1. Returns the sum of the gradients (the
/// bias gradient's share). at and ag are scratch for the compacted winners.
[[gnu::always_inline]] inline float conv2_filter_backward(
    const std::int32_t* win, const float* d, int p, const float* wc, const float* __restrict p1,
    float* __restrict dp1, int pw2, std::int32_t* __restrict at, float* __restrict ag, float* dw) {
  using Eigen::internal::pload;
  using Eigen::internal::pmadd;
  using Eigen::internal::pset1;
  using Eigen::internal::pstore;
  using Packet = Eigen::internal::packet_traits<float>::type;
  constexpr int L = Eigen::internal::packet_traits<float>::size;
  constexpr int V = CI / L;  // packets per pixel
  static_assert(CI % L == 0, "a channel-last pixel of pool1 is whole packets");
  int count = 0;
  for (int k = 0; k < p; ++k) {  // branch-free compaction: a winner is on or off at random
    at[count] = win[k];
    ag[count] = d[k];
    count += win[k] >= 0;
  }
  Packet acc[9][V];
  for (auto& tap : acc) {
    for (Packet& v : tap) v = pset1<Packet>(0.0f);
  }
  float gsum = 0.0f;
  for (int e = 0; e < count; ++e) {
    gsum += ag[e];
    const Packet g = pset1<Packet>(ag[e]);
    const float* src = p1 + static_cast<std::ptrdiff_t>(at[e]) * CI;
    float* dst = dp1 + static_cast<std::ptrdiff_t>(at[e]) * CI;
    for (int ky = 0; ky < 3; ++ky) {
      for (int kx = 0; kx < 3; ++kx) {
        const int t = ky * 3 + kx;
        const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(ky * pw2 + kx) * CI;
        for (int v = 0; v < V; ++v) {
          acc[t][v] = pmadd(g, pload<Packet>(src + off + v * L), acc[t][v]);
          pstore(dst + off + v * L,
                 pmadd(g, pload<Packet>(wc + t * CI + v * L), pload<Packet>(dst + off + v * L)));
        }
      }
    }
  }
  for (int t = 0; t < 9; ++t) {
    for (int v = 0; v < V; ++v) {
      pstore(dw + t * CI + v * L,
             Eigen::internal::padd(pload<Packet>(dw + t * CI + v * L), acc[t][v]));
    }
  }
  return gsum;
}

/// pool1 and conv1 for channel ci of one sample: the same as conv2_filter_backward over conv1's
/// windows (win), with the gradient from dp1 and the padded input image xpad; no gradient with
/// respect to the image. dw: the channel's weight gradient [c_in x 9] (added to). Returns the sum
/// of the gradients (the bias gradient's share).
[[gnu::always_inline]] inline float conv1_channel_backward(
    const std::int32_t* win, int ci, const float* __restrict dp1, const float* xpad,
    const BackwardShape& sh, std::int32_t* __restrict at, float* __restrict ag, float* dw) {
  int count = 0;
  for (int y = 0; y < sh.h2; ++y) {
    for (int xx = 0; xx < sh.w2; ++xx) {
      const std::int32_t k = y * sh.w2 + xx;
      at[count] = win[k];
      ag[count] = dp1[((y + 1) * sh.pw2 + xx + 1) * CI + ci];
      count += win[k] >= 0;
    }
  }
  for (int cin = 0; cin < sh.c_in; ++cin) {
    const float* img = xpad + cin * sh.padded_in;
    float acc[9] = {};
    for (int e = 0; e < count; ++e) {
      const float* patch = img + at[e];
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) {
          acc[ky * 3 + kx] = std::fma(ag[e], patch[ky * sh.pw1 + kx], acc[ky * 3 + kx]);
        }
      }
    }
    for (int t = 0; t < 9; ++t) dw[cin * 9 + t] += acc[t];
  }
  float gsum = 0.0f;
  for (int e = 0; e < count; ++e) gsum += ag[e];
  return gsum;
}

/// The convolutions' gradients back in PyTorch's layouts, written into grad (added to it when
/// `accumulate`): dw2t channel-last [32 x 9 x 16], dw1 [16 x c_in x 9] already in order.
void put_conv_gradients(const CnnLayout& layout, const float* dw2t, const float* db2,
                        const float* dw1, const float* db1, int c_in, bool accumulate,
                        float* grad) {
  auto put = [accumulate](float& out, float value) { out = accumulate ? out + value : value; };
  for (int c = 0; c < Cnn::CONV2_FILTERS; ++c) {
    for (int ci = 0; ci < CI; ++ci) {
      for (int t = 0; t < 9; ++t) {
        put(grad[layout.conv2_w + (c * CI + ci) * 9 + t], dw2t[(c * 9 + t) * CI + ci]);
      }
    }
    put(grad[layout.conv2_b + c], db2[c]);
  }
  const int k1 = c_in * 9;
  for (int i = 0; i < CI * k1; ++i) put(grad[layout.conv1_w + i], dw1[i]);
  for (int ci = 0; ci < CI; ++ci) put(grad[layout.conv1_b + ci], db1[ci]);
}

}  // namespace

Cnn::Cnn(float dropout, int channels, int height, int width, int classes)
    : dropout_(dropout), channels_(channels), height_(height), width_(width), classes_(classes) {
  if (!(dropout >= 0.0f && dropout < 1.0f)) {
    throw std::invalid_argument("Cnn: dropout must be in [0, 1), got " + std::to_string(dropout));
  }
  if (channels < 1 || classes < 2) {
    throw std::invalid_argument("Cnn: need channels >= 1 and classes >= 2, got channels " +
                                std::to_string(channels) + ", classes " + std::to_string(classes));
  }
  if (height < 4 || width < 4 || height % 4 != 0 || width % 4 != 0) {
    throw std::invalid_argument("Cnn: height and width must be positive multiples of 4, got " +
                                std::to_string(height) + "x" + std::to_string(width));
  }
  const std::size_t features = static_cast<std::size_t>(CONV2_FILTERS) * (height / 4) * (width / 4);
  std::size_t at = 0;
  auto take = [&at](std::size_t size) {
    const std::size_t start = at;
    at += size;
    return start;
  };
  layout_.conv1_w = take(static_cast<std::size_t>(CONV1_FILTERS) * channels * 9);
  layout_.conv1_b = take(CONV1_FILTERS);
  layout_.conv2_w = take(static_cast<std::size_t>(CONV2_FILTERS) * CONV1_FILTERS * 9);
  layout_.conv2_b = take(CONV2_FILTERS);
  layout_.fc1_w = take(HIDDEN * features);
  layout_.fc1_b = take(HIDDEN);
  layout_.fc2_w = take(static_cast<std::size_t>(classes) * HIDDEN);
  layout_.fc2_b = take(static_cast<std::size_t>(classes));
  layout_.total = at;
  edge_mask1_ = edge_masks(height, width);
  edge_mask2_ = edge_masks(height / 2, width / 2);
}

std::vector<Tensor> Cnn::tensors() const {
  const auto k1 = static_cast<std::size_t>(channels_) * 9;
  const std::size_t k2 = static_cast<std::size_t>(CONV1_FILTERS) * 9;
  const std::size_t features = layout_.fc1_b - layout_.fc1_w;
  return {{"conv1.weight", layout_.conv1_w, layout_.conv1_b - layout_.conv1_w, k1},
          {"conv1.bias", layout_.conv1_b, layout_.conv2_w - layout_.conv1_b, 1},
          {"conv2.weight", layout_.conv2_w, layout_.conv2_b - layout_.conv2_w, k2},
          {"conv2.bias", layout_.conv2_b, layout_.fc1_w - layout_.conv2_b, 1},
          {"fc1.weight", layout_.fc1_w, features, features / HIDDEN},
          {"fc1.bias", layout_.fc1_b, layout_.fc2_w - layout_.fc1_b, 1},
          {"fc2.weight", layout_.fc2_w, layout_.fc2_b - layout_.fc2_w, HIDDEN},
          {"fc2.bias", layout_.fc2_b, layout_.total - layout_.fc2_b, 1}};
}

std::unique_ptr<Model> make_cnn(const ModelSpec& spec, const DataShape& data) {
  return std::make_unique<Cnn>(static_cast<float>(spec.dropout), data.channels, data.height,
                               data.width, data.num_classes);
}

std::unique_ptr<Model> Cnn::clone() const {
  return std::make_unique<Cnn>(dropout_, channels_, height_, width_, classes_);
}

void Cnn::init(std::span<float> params, std::uint64_t seed) const {
  if (params.size() != layout_.total) {
    throw std::invalid_argument("Cnn::init: params has " + std::to_string(params.size()) +
                                " values, the model " + std::to_string(layout_.total));
  }
  Rng rng(seed);
  auto fill = [&](std::size_t begin, std::size_t end, int fan_in) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    for (std::size_t i = begin; i < end; ++i) {
      params[i] = (2.0f * rng.uniform_float() - 1.0f) * bound;
    }
  };
  const int features = CONV2_FILTERS * (height_ / 4) * (width_ / 4);
  fill(layout_.conv1_w, layout_.conv2_w, channels_ * 9);
  fill(layout_.conv2_w, layout_.fc1_w, CONV1_FILTERS * 9);
  fill(layout_.fc1_w, layout_.fc2_w, features);
  fill(layout_.fc2_w, layout_.total, HIDDEN);
}

double Cnn::forward_flops_per_sample() const {
  const double hw = static_cast<double>(height_) * width_;
  const double conv1 = 2.0 * CONV1_FILTERS * channels_ * 9 * hw;
  const double conv2 = 2.0 * CONV2_FILTERS * CONV1_FILTERS * 9 * (hw / 4);
  const double fc1 = 2.0 * (CONV2_FILTERS * hw / 16) * HIDDEN;
  const double fc2 = 2.0 * HIDDEN * classes_;
  return conv1 + conv2 + fc1 + fc2;
}

double Cnn::train_flops_per_sample() const {
  const double conv1 = 2.0 * CONV1_FILTERS * channels_ * 9 * static_cast<double>(height_) * width_;
  return 3.0 * forward_flops_per_sample() - conv1;
}

void Cnn::reserve(int n) {
  if (n <= capacity_) return;
  const std::size_t hw = static_cast<std::size_t>(height_) * width_;
  const std::size_t q = hw / 4;  // pixels of a 1st-pool image
  const std::size_t features = CONV2_FILTERS * (hw / 16);
  const std::size_t m = static_cast<std::size_t>(n);
  const std::size_t g1 = std::min(m, std::size_t{CONV1_GROUP});
  cols1_.resize(static_cast<std::size_t>(channels_) * 9 * g1 * hw);
  conv1_.resize(CONV1_FILTERS * g1 * hw);
  pool1_.resize(CONV1_FILTERS * m * q);
  cols2_.resize(CONV1_FILTERS * 9 * std::min(m, std::size_t{CONV2_GROUP}) * q);
  conv2_.resize(CONV2_FILTERS * m * q);
  flat_.resize(m * features);
  hidden_.resize(m * HIDDEN);
  hidden_t_.resize(m * HIDDEN);
  logits_.resize(m * static_cast<std::size_t>(classes_));
  dhidden_.resize(m * HIDDEN);
  dflat_.resize(m * features);
  unit_begin_.resize(HIDDEN + 1);
  sample_begin_.resize(m + 1);
  for (auto* list : {&unit_sample_, &sample_unit_}) list->resize(m * HIDDEN + 1);
  for (auto* list : {&unit_value_, &sample_value_}) list->resize(m * HIDDEN + 1);
  win1_.resize(CONV1_FILTERS * m * q);
  win2_.resize(m * features);
  const std::size_t padded1 = (static_cast<std::size_t>(height_) / 2 + 2) * (width_ / 2 + 2);
  p1_.resize(padded1 * CONV1_FILTERS);
  dp1_.resize(padded1 * CONV1_FILTERS);
  xpad_.resize(static_cast<std::size_t>(channels_) * (height_ + 2) * (width_ + 2));
  active_at_.resize(q + 1);
  active_g_.resize(q + 1);
  w2t_.resize(CONV2_FILTERS * 9 * CONV1_FILTERS);
  dw2t_.resize(CONV2_FILTERS * 9 * CONV1_FILTERS);
  dw1_.resize(static_cast<std::size_t>(CONV1_FILTERS) * channels_ * 9);
  // Eigen's packing buffers, for every product of every chunk size up to n: its block sizes
  // are not monotonic in the matrix sizes, and a later, smaller chunk must not allocate.
  const Index f = static_cast<Index>(features), iq = static_cast<Index>(q);
  for (Index k = capacity_ + 1; k <= n; ++k) {
    if (k <= CONV2_GROUP) GemmBlocking(CONV2_FILTERS, k * iq, CONV1_FILTERS * 9, pack_a_, pack_b_);
    GemmBlocking(HIDDEN, k, f, pack_a_, pack_b_);         // fc1
    GemmBlocking(k, classes_, HIDDEN, pack_a_, pack_b_);  // fc2
    GemmBlocking(classes_, HIDDEN, k, pack_a_, pack_b_);  // fc2's weight gradient
    GemmBlocking(k, HIDDEN, classes_, pack_a_, pack_b_);  // dL/dhidden
  }
  capacity_ = n;
}

void Cnn::forward_chunk(const float* params, const float* x, int n, Rng* rng) {
  const bool training = rng != nullptr;
  const int h = height_, w = width_;
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const std::ptrdiff_t q = hw / 4;
  const std::ptrdiff_t p = hw / 16;
  const int features = CONV2_FILTERS * static_cast<int>(p);
  const int k2 = CONV1_FILTERS * 9;

  // conv1: [16 x C*9] * [C*9 x n*H*W] on the sample-major (NCHW) input, a group of samples at
  // a time so the group's im2col and output stay in L2 until pooled. The backward pass
  // recomputes them (7 MFLOP at n = 32) rather than keeping 2.5 MB through the other layers.
  for (int s0 = 0; s0 < n; s0 += CONV1_GROUP) {
    const int g = std::min(CONV1_GROUP, n - s0);
    conv1_group(params, x, s0, g);
    const Strides st{n * q, q};
    if (training) {
      bias_relu_maxpool<true>(conv1_.data(), params + layout_.conv1_b, CONV1_FILTERS, g, h, w,
                              pool1_.data() + s0 * q, st, win1_.data() + s0 * q, w + 2);
    } else {
      bias_relu_maxpool<false>(conv1_.data(), params + layout_.conv1_b, CONV1_FILTERS, g, h, w,
                               pool1_.data() + s0 * q, st, nullptr, 0);
    }
  }

  // conv2: [32 x 144] * [144 x n*H*W/4] on the CNHW pool1, a group of samples at a time so the
  // group's im2col ([144 x GROUP*q]) stays in L2 for its GEMM; the backward pass rebuilds it
  // rather than keeping the whole chunk's (3.6 MB at n = 32) through the fully connected layers.
  for (int s0 = 0; s0 < n; s0 += CONV2_GROUP) {
    const int g = std::min(CONV2_GROUP, n - s0);
    im2col_3x3(pool1_.data() + s0 * q, Strides{n * q, q}, CONV1_FILTERS, g, h / 2, w / 2,
               edge_mask2_.data(), cols2_.data());
    gemm<RowMajor, RowMajor>(CONV2_FILTERS, g * q, k2, params + layout_.conv2_w, k2, cols2_.data(),
                             g * q, conv2_.data() + s0 * q, n * q, false, pack_a_, pack_b_);
  }
  // Pooling writes straight into the sample-major (c, h, w) flattening that fc1 reads.
  if (training) {
    bias_relu_maxpool<true>(conv2_.data(), params + layout_.conv2_b, CONV2_FILTERS, n, h / 2, w / 2,
                            flat_.data(), Strides{p, features}, win2_.data(), w / 2 + 2);
  } else {
    bias_relu_maxpool<false>(conv2_.data(), params + layout_.conv2_b, CONV2_FILTERS, n, h / 2,
                             w / 2, flat_.data(), Strides{p, features}, nullptr, 0);
  }

  // fc1 + ReLU + dropout. The product is taken transposed, hidden^T = W flat^T, and the bias,
  // ReLU and dropout pass transposes it back: Eigen then packs the 512 x F weight matrix as a
  // column-major right-hand side instead of transposing it into its row-major left-hand-side
  // panels, which costs fc1's forward GEMM a third more (measured in isolation, one core:
  // 0.55 ms against 0.65-0.8 ms at n = 32; -3% on a training step).
  float* ht = hidden_t_.data();
  gemm<RowMajor, ColMajor>(HIDDEN, n, features, params + layout_.fc1_w, features, flat_.data(),
                           features, ht, n, false, pack_a_, pack_b_);
  const float* b1 = params + layout_.fc1_b;
  float* hd = hidden_.data();
  if (rng != nullptr && dropout_ > 0.0f) {
    // Multiplying by 0 or 1/(1-p) rather than branching: keep decisions are coin flips, which a
    // branch predictor gets wrong half the time (6x slower). A local copy of the generator lets
    // the compiler keep its state in registers.
    const float scale = 1.0f / (1.0f - dropout_);
    Rng local = *rng;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < HIDDEN; ++j) {
        const float keep = static_cast<float>(local.uniform_float() >= dropout_);
        hd[i * HIDDEN + j] = std::max(0.0f, ht[j * n + i] + b1[j]) * (keep * scale);
      }
    }
    *rng = local;
  } else {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < HIDDEN; ++j) hd[i * HIDDEN + j] = std::max(0.0f, ht[j * n + i] + b1[j]);
    }
  }

  // fc2.
  gemm<RowMajor, ColMajor>(n, classes_, HIDDEN, hidden_.data(), HIDDEN, params + layout_.fc2_w,
                           HIDDEN, logits_.data(), classes_, false, pack_a_, pack_b_);
  RowMap(logits_.data(), n, classes_).rowwise() += ConstRowVecMap(params + layout_.fc2_b, classes_);
}

void Cnn::backward_chunk(const float* params, const float* x, int n, float* grad, bool accumulate) {
  // fc2: dW = dlogits^T hidden, db = column sums, dhidden = dlogits W.
  const float* dlogits = logits_.data();
  gemm<ColMajor, RowMajor>(classes_, HIDDEN, n, dlogits, classes_, hidden_.data(), HIDDEN,
                           grad + layout_.fc2_w, HIDDEN, accumulate, pack_a_, pack_b_);
  add_column_sums(dlogits, n, classes_, grad + layout_.fc2_b, accumulate);
  gemm<RowMajor, RowMajor>(n, HIDDEN, classes_, dlogits, classes_, params + layout_.fc2_w, HIDDEN,
                           dhidden_.data(), HIDDEN, false, pack_a_, pack_b_);

  // Through dropout and ReLU: the stored output is positive exactly where the unit was kept and
  // active, and there its derivative is the dropout scale (1 without dropout).
  const float scale = 1.0f / (1.0f - dropout_);
  float* dh = dhidden_.data();
  const float* hd = hidden_.data();
  const std::ptrdiff_t units = static_cast<std::ptrdiff_t>(n) * HIDDEN;
  for (std::ptrdiff_t i = 0; i < units; ++i) dh[i] = hd[i] > 0.0f ? dh[i] * scale : 0.0f;

  // fc1: dW = dhidden^T flat, db, dflat = dhidden W, over the nonzeros of dhidden only.
  add_column_sums(dh, n, HIDDEN, grad + layout_.fc1_b, accumulate);
  fc1_backward(params, n, grad, accumulate);

  conv_backward(params, x, n, grad, accumulate);
}

void Cnn::fc1_backward(const float* params, int n, float* grad, bool accumulate) {
  const int features = CONV2_FILTERS * (height_ / 4) * (width_ / 4);
  const float* dh = dhidden_.data();
  // The nonzeros of dhidden [n x 512] listed twice, by unit (for dW) and by sample (for dflat),
  // each list in increasing order of the other index.
  std::int32_t* unit_begin = unit_begin_.data();
  std::int32_t* sample_begin = sample_begin_.data();
  list_nonzeros(dh, HIDDEN, n, 1, HIDDEN, unit_begin, unit_sample_.data(), unit_value_.data());
  list_nonzeros(dh, n, HIDDEN, HIDDEN, 1, sample_begin, sample_unit_.data(), sample_value_.data());
  // dW row j = the sum over the samples where unit j is on of dh[i][j] * flat row i; dflat row
  // i = the sum over the units on in sample i of dh[i][j] * W row j. Measured against Eigen's
  // dense products at a density of 0.4 (one core, n = 32, interleaved runs): -0.4 ms for dW,
  // whose block of flat (16 KB) stays in L1, and -0.15 ms for dflat, whose block of W (256 KB)
  // does not.
  sparse_row_sums(HIDDEN, features, unit_begin, unit_sample_.data(), unit_value_.data(),
                  flat_.data(), features, grad + layout_.fc1_w, features, accumulate);
  sparse_row_sums(n, features, sample_begin, sample_unit_.data(), sample_value_.data(),
                  params + layout_.fc1_w, features, dflat_.data(), features, false);
}

void Cnn::conv_backward(const float* params, const float* x, int n, float* grad, bool accumulate) {
  const int h = height_, w = width_;
  const BackwardShape sh{.c_in = channels_,
                         .h = h,
                         .w = w,
                         .h2 = h / 2,
                         .w2 = w / 2,
                         .pw1 = w + 2,
                         .pw2 = w / 2 + 2,
                         .padded_in = static_cast<std::ptrdiff_t>(h + 2) * (w + 2),
                         .q = static_cast<std::ptrdiff_t>(h / 2) * (w / 2)};
  const int p = (h / 4) * (w / 4);  // windows of a pool2 image
  const int features = CONV2_FILTERS * p;

  conv2_weights_channel_last(params + layout_.conv2_w, w2t_.data());
  std::fill(dw2t_.begin(), dw2t_.end(), 0.0f);
  std::fill(dw1_.begin(), dw1_.end(), 0.0f);
  float db1[CONV1_FILTERS] = {}, db2[CONV2_FILTERS] = {};
  // Zero borders are the padding; the interiors are overwritten for every sample.
  std::fill(p1_.begin(), p1_.end(), 0.0f);
  std::fill(xpad_.begin(), xpad_.end(), 0.0f);
  float* __restrict p1 = p1_.data();
  float* __restrict dp1 = dp1_.data();
  std::int32_t* __restrict at = active_at_.data();
  float* __restrict ag = active_g_.data();

  for (int s = 0; s < n; ++s) {
    pad_pool1_channel_last(pool1_.data(), n, s, sh, p1);
    std::fill(dp1_.begin(), dp1_.end(), 0.0f);
    for (int c = 0; c < CONV2_FILTERS; ++c) {
      db2[c] += conv2_filter_backward(
          win2_.data() + s * features + c * p, dflat_.data() + s * features + c * p, p,
          w2t_.data() + c * 9 * CI, p1, dp1, sh.pw2, at, ag, dw2t_.data() + c * 9 * CI);
    }
    pad_input(x, s, sh, xpad_.data());
    for (int ci = 0; ci < CI; ++ci) {
      db1[ci] += conv1_channel_backward(win1_.data() + ci * n * sh.q + s * sh.q, ci, dp1,
                                        xpad_.data(), sh, at, ag, dw1_.data() + ci * sh.c_in * 9);
    }
  }
  put_conv_gradients(layout_, dw2t_.data(), db2, dw1_.data(), db1, sh.c_in, accumulate, grad);
}

void Cnn::conv1_group(const float* params, const float* x, int s0, int g) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(height_) * width_;
  const int k1 = channels_ * 9;
  im2col_3x3(x + s0 * channels_ * hw, Strides{hw, channels_ * hw}, channels_, g, height_, width_,
             edge_mask1_.data(), cols1_.data());
  gemm_small_k(CONV1_FILTERS, g * hw, k1, params + layout_.conv1_w, cols1_.data(), g * hw,
               conv1_.data(), g * hw);
}

float Cnn::loss_and_gradient(std::span<const float> params, const Batch& batch,
                             std::span<float> grad, std::uint64_t dropout_seed) {
  if (params.size() != layout_.total || grad.size() != layout_.total || batch.n < 1) {
    throw std::invalid_argument("Cnn::loss_and_gradient: need " + std::to_string(layout_.total) +
                                " params and grads and n >= 1, got " +
                                std::to_string(params.size()) + ", " + std::to_string(grad.size()) +
                                ", n " + std::to_string(batch.n));
  }
  const int n = batch.n;
  reserve(std::min(n, MAX_CHUNK));
  Rng rng(dropout_seed);
  double total = 0.0;
  for (int start = 0; start < n; start += MAX_CHUNK) {
    const int m = std::min(MAX_CHUNK, n - start);
    forward_chunk(params.data(), batch.x + static_cast<std::ptrdiff_t>(start) * input_dim(), m,
                  &rng);
    const float loss =
        softmax_cross_entropy(logits_.data(), batch.y + start, m, classes_, logits_.data());
    if (m != n) {
      // The chunk's mean was taken over m samples; the batch's is over n.
      const float rescale = static_cast<float>(m) / static_cast<float>(n);
      for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(m) * classes_; ++i) {
        logits_[i] *= rescale;
      }
    }
    total += static_cast<double>(loss) * m;
    backward_chunk(params.data(), batch.x + static_cast<std::ptrdiff_t>(start) * input_dim(), m,
                   grad.data(), start > 0);
  }
  return static_cast<float>(total / n);
}

void Cnn::logits(std::span<const float> params, const float* x, int n, float* out) {
  if (params.size() != layout_.total || n < 0) {
    throw std::invalid_argument("Cnn::logits: need " + std::to_string(layout_.total) +
                                " params and n >= 0, got " + std::to_string(params.size()) +
                                ", n " + std::to_string(n));
  }
  reserve(std::min(n, MAX_CHUNK));
  for (int start = 0; start < n; start += MAX_CHUNK) {
    const int m = std::min(MAX_CHUNK, n - start);
    forward_chunk(params.data(), x + static_cast<std::ptrdiff_t>(start) * input_dim(), m, nullptr);
    std::copy_n(logits_.data(), static_cast<std::ptrdiff_t>(m) * classes_,
                out + static_cast<std::ptrdiff_t>(start) * classes_);
  }
}

}  // namespace failsim::models
