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

#include "models/loss.hpp"
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

/// The adjoint of im2col_3x3 for CNHW images: out(c, s, y, x) = the sum over the 9 rows
/// (c, ky, kx) of cols at the column whose shifted pixel is (y, x). cols is
/// [channels*9 x n*h*w]; image (c, s) of out starts at c*out_channel + s*h*w. Overwrites out.
void col2im_3x3(const float* cols, int channels, int n, int h, int w, const float* edge_mask,
                float* out, std::ptrdiff_t out_channel) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const std::ptrdiff_t row_len = n * hw;
  for (int c = 0; c < channels; ++c) {
    for (int s = 0; s < n; ++s) {
      // One image at a time, so its pixels stay in L1 while the 9 shifted images are added.
      float* __restrict img = out + c * out_channel + s * hw;
      std::fill(img, img + hw, 0.0f);
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) {
          const TapShift t = tap_shift(ky, kx, h, w, edge_mask);
          const float* __restrict src =
              cols + (static_cast<std::ptrdiff_t>(c) * 9 + ky * 3 + kx) * row_len + s * hw;
          const std::ptrdiff_t d = t.offset;
          if (t.mask == nullptr) {
            for (std::ptrdiff_t i = t.lo; i < t.hi; ++i) img[i + d] += src[i];
          } else {
            for (std::ptrdiff_t i = t.lo; i < t.hi; ++i) img[i + d] += src[i] * t.mask[i];
          }
        }
      }
    }
  }
}

/// The sum of x[0, len) in an order fixed by len alone: 16 interleaved partial sums (which
/// vectorise without reassociating anything), combined in order. Eigen's vectorised sum depends
/// on the alignment of x, so two model instances would not give the same bits.
float stable_sum(const float* x, std::ptrdiff_t len) {
  constexpr int LANES = 16;
  float acc[LANES] = {};
  std::ptrdiff_t i = 0;
  for (; i + LANES <= len; i += LANES) {
    for (int l = 0; l < LANES; ++l) acc[l] += x[i + l];
  }
  for (int l = 0; l < LANES && i < len; ++l, ++i) acc[l] += x[i];
  float total = 0.0f;
  for (float a : acc) total += a;
  return total;
}

/// out(c, s, p) = relu(max over the 2x2 window p of conv(c, s, .) + bias[c]). The bias is added
/// after the max since max(a + b) = max(a) + b. conv is CNHW [channels x n*h*w]; out has the
/// strides `ost` (h/2 x w/2 images). Branch-free so that it vectorises: on real data the
/// winner of a window is unpredictable.
void bias_relu_maxpool(const float* conv, const float* bias, int channels, int n, int h, int w,
                       float* out, Strides ost) {
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const int ph = h / 2;
  const int pw = w / 2;
  for (int c = 0; c < channels; ++c) {
    const float b = bias[c];
    for (int s = 0; s < n; ++s) {
      const float* img = conv + (static_cast<std::ptrdiff_t>(c) * n + s) * hw;
      float* o = out + c * ost.channel + s * ost.sample;
      for (int py = 0; py < ph; ++py) {
        const float* __restrict r0 = img + static_cast<std::ptrdiff_t>(2 * py) * w;
        const float* __restrict r1 = r0 + w;
        float* __restrict orow = o + static_cast<std::ptrdiff_t>(py) * pw;
        for (int px = 0; px < pw; ++px) {
          const float m =
              std::max(std::max(r0[2 * px], r0[2 * px + 1]), std::max(r1[2 * px], r1[2 * px + 1]));
          orow[px] = std::max(m + b, 0.0f);
        }
      }
    }
  }
}

/// The adjoint of bias_relu_maxpool, from the same conv and bias (the winners are recomputed,
/// not stored): dconv (CNHW, every element written) receives dout at each window's winner where
/// the ReLU was on and 0 elsewhere; dbias[c] is set (or, if `accumulate`, incremented) by the
/// sum of those gradients over channel c. `tmp` holds 3 * n*h*w/2 floats.
///
/// Written as three flat passes rather than one loop over windows because the one loop, with
/// its stride-2 stores into two rows, does not vectorise and cost a third of a training step:
/// (1) per row pair, the vertical winner of each column; (2) per window, the horizontal winner
/// of the two column winners and the gradient routed to that column; (3) per row pair, the
/// column's gradient routed to its vertical winner. The tournament keeps the first maximum in
/// row-major window order (a b / c d), as PyTorch: a column's bottom wins only if strictly
/// greater, the right column only if strictly greater or if equal with its top (b) against a
/// left bottom (c), since b precedes c.
///
/// Every choice is arithmetic on 0/1 flags (x * 1 = x, x - x = 0 exactly), not a conditional:
/// where a row is too short for the vector loop (W/2 = 14 < 16 lanes) the compiler's scalar code
/// would otherwise branch, and on unpredictable winners that cost ten cycles per pixel.
template <int FIXED_W>
void maxpool_backward_w(const float* conv, const float* bias, const float* dout, Strides ost,
                        int channels, int n, int h, int runtime_w, float* dconv, float* dbias,
                        bool accumulate, float* tmp) {
  const int w = FIXED_W > 0 ? FIXED_W : runtime_w;
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const int ph = h / 2;
  const int pw = w / 2;
  const std::ptrdiff_t pairs = static_cast<std::ptrdiff_t>(n) * ph;  // row pairs per channel
  const std::ptrdiff_t half = pairs * w;
  const std::ptrdiff_t windows = static_cast<std::ptrdiff_t>(ph) * pw;  // per image
  float* __restrict vmax = tmp;
  float* __restrict vbot = tmp + half;
  float* __restrict gcol = tmp + 2 * half;
  for (int c = 0; c < channels; ++c) {
    const float* img = conv + static_cast<std::ptrdiff_t>(c) * n * hw;
    for (std::ptrdiff_t rp = 0; rp < pairs; ++rp) {
      const float* __restrict r0 = img + rp * 2 * w;
      const float* __restrict r1 = r0 + w;
      float* __restrict vm = vmax + rp * w;
      float* __restrict vb = vbot + rp * w;
      for (int x = 0; x < w; ++x) {
        vm[x] = std::max(r0[x], r1[x]);  // r0 on a tie
        vb[x] = static_cast<float>(r1[x] > r0[x]);
      }
    }
    const float b = bias[c];
    for (int s = 0; s < n; ++s) {
      const float* __restrict d = dout + c * ost.channel + s * ost.sample;
      const float* __restrict vm = vmax + s * 2 * windows;
      const float* __restrict vb = vbot + s * 2 * windows;
      float* __restrict gc = gcol + s * 2 * windows;
      for (std::ptrdiff_t k = 0; k < windows; ++k) {
        const float left = vm[2 * k];
        const float right = vm[2 * k + 1];
        const float take_right = static_cast<float>(
            (right > left) | ((right == left) & (vb[2 * k + 1] == 0.0f) & (vb[2 * k] != 0.0f)));
        const float g = d[k] * static_cast<float>(std::max(left, right) + b > 0.0f);
        gc[2 * k + 1] = g * take_right;
        gc[2 * k] = g - gc[2 * k + 1];
      }
    }
    float* dimg = dconv + static_cast<std::ptrdiff_t>(c) * n * hw;
    for (std::ptrdiff_t rp = 0; rp < pairs; ++rp) {
      float* __restrict d0 = dimg + rp * 2 * w;
      float* __restrict d1 = d0 + w;
      const float* __restrict vb = vbot + rp * w;
      const float* __restrict gc = gcol + rp * w;
      for (int x = 0; x < w; ++x) {
        d1[x] = gc[x] * vb[x];
        d0[x] = gc[x] - d1[x];
      }
    }
    // Summed apart: a float reduction inside the loops above would keep them scalar (the
    // compiler may not reassociate).
    const float db = stable_sum(gcol, half);
    dbias[c] = accumulate ? dbias[c] + db : db;
  }
}

/// maxpool_backward_w with conv2's row width in the study (14 pixels, for 28 x 28 images) known
/// at compile time: the row loops of passes (1) and (3) then compile to one masked vector per
/// row instead of a vector loop plus a scalar tail. Measured on conv2 at n = 32: 231 -> 172 us
/// per call. Not done for conv1's 28-pixel rows (no measurable gain), for the height (309 us:
/// pass (2) gets unrolled badly) or for the forward pooling (no gain).
void maxpool_backward(const float* conv, const float* bias, const float* dout, Strides ost,
                      int channels, int n, int h, int w, float* dconv, float* dbias,
                      bool accumulate, float* tmp) {
  if (w == 14) {
    maxpool_backward_w<14>(conv, bias, dout, ost, channels, n, h, w, dconv, dbias, accumulate, tmp);
  } else {
    maxpool_backward_w<0>(conv, bias, dout, ost, channels, n, h, w, dconv, dbias, accumulate, tmp);
  }
}

// Matrix products call Eigen's GEMM kernel directly rather than through `C.noalias() = A * B`,
// because the expression API allocates its packing buffers on the heap at every product once
// they exceed EIGEN_STACK_ALLOCATION_LIMIT (128 KB), which ours do. Here they live in the
// model's scratch, so the steady state never allocates. The kernel is internal API, whose
// signature is Eigen 3.4's.
static_assert(EIGEN_VERSION_AT_LEAST(3, 4, 0) && !EIGEN_VERSION_AT_LEAST(3, 5, 0),
              "cnn.cpp calls Eigen 3.4's internal general_matrix_matrix_product");

using Eigen::ColMajor;
using Eigen::Index;
using Eigen::RowMajor;

/// Eigen's block sizes for one product, with the packing buffers taken from `a` and `b`
/// (grown if needed, aligned for the widest SIMD loads).
class GemmBlocking : public Eigen::internal::level3_blocking<float, float> {
 public:
  GemmBlocking(Index rows, Index cols, Index depth, std::vector<float>& a, std::vector<float>& b) {
    // A row-major result is computed by Eigen as the column-major C^T = B^T A^T, hence the swap
    // (as in Eigen's own gemm_blocking_space).
    this->m_mc = cols;
    this->m_nc = rows;
    this->m_kc = depth;
    Eigen::internal::computeProductBlockingSizes<float, float, 1>(this->m_kc, this->m_mc,
                                                                  this->m_nc, Index{1});
    this->m_blockA = aligned(a, this->m_mc * this->m_kc);
    this->m_blockB = aligned(b, this->m_kc * this->m_nc);
  }

 private:
  static float* aligned(std::vector<float>& buffer, Index size) {
    constexpr std::size_t ALIGN = 64;  // bytes
    const std::size_t need = static_cast<std::size_t>(size) + ALIGN / sizeof(float);
    if (buffer.size() < need) buffer.resize(need);
    const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
    return reinterpret_cast<float*>((address + ALIGN - 1) & ~(ALIGN - 1));
  }
};

/// C = op(A) op(B), or C += op(A) op(B) when `accumulate`, for a row-major C [m x n] with row
/// stride ldc. A is [m x k] stored in LhsOrder with stride lda (element (i, p) at a[i*lda + p]
/// if RowMajor, a[p*lda + i] if ColMajor), B is [k x n] likewise: the transpose of a row-major
/// matrix is the same memory read as ColMajor, so no operand is ever copied transposed.
template <int LhsOrder, int RhsOrder>
void gemm(Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb, float* c,
          Index ldc, bool accumulate, std::vector<float>& pack_a, std::vector<float>& pack_b) {
  if (!accumulate) {
    for (Index i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
  }
  GemmBlocking blocking(m, n, k, pack_a, pack_b);
  Eigen::internal::general_matrix_matrix_product<Index, float, LhsOrder, false, float, RhsOrder,
                                                 false, RowMajor, 1>::run(m, n, k, a, lda, b, ldb,
                                                                          c, 1, ldc, 1.0f, blocking,
                                                                          nullptr);
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

std::unique_ptr<Model> make_cnn(int channels, int height, int width, int classes, float dropout) {
  return std::make_unique<Cnn>(dropout, channels, height, width, classes);
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
  dconv2_.resize(CONV2_FILTERS * m * q);
  dcols2_.resize(CONV1_FILTERS * 9 * std::min(m, std::size_t{CONV2_GROUP}) * q);
  dpool1_.resize(CONV1_FILTERS * m * q);
  dconv1_.resize(CONV1_FILTERS * g1 * hw);
  // maxpool_backward's: 3 x (row pairs x width) for a conv1 group or for conv2's whole chunk.
  pool_tmp_.resize(std::max(3 * g1 * hw / 2, 3 * m * hw / 8));
  capacity_ = n;
}

void Cnn::forward_chunk(const float* params, const float* x, int n, Rng* rng) {
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
    bias_relu_maxpool(conv1_.data(), params + layout_.conv1_b, CONV1_FILTERS, g, h, w,
                      pool1_.data() + s0 * q, Strides{n * q, q});
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
  bias_relu_maxpool(conv2_.data(), params + layout_.conv2_b, CONV2_FILTERS, n, h / 2, w / 2,
                    flat_.data(), Strides{p, features});

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
  const int h = height_, w = width_;
  const std::ptrdiff_t hw = static_cast<std::ptrdiff_t>(h) * w;
  const std::ptrdiff_t q = hw / 4;
  const std::ptrdiff_t p = hw / 16;
  const int features = CONV2_FILTERS * static_cast<int>(p);
  const int k1 = channels_ * 9;
  const int k2 = CONV1_FILTERS * 9;

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

  // fc1: dW = dhidden^T flat, db, dflat = dhidden W.
  gemm<ColMajor, RowMajor>(HIDDEN, features, n, dh, HIDDEN, flat_.data(), features,
                           grad + layout_.fc1_w, features, accumulate, pack_a_, pack_b_);
  add_column_sums(dh, n, HIDDEN, grad + layout_.fc1_b, accumulate);
  gemm<RowMajor, RowMajor>(n, features, HIDDEN, dh, HIDDEN, params + layout_.fc1_w, features,
                           dflat_.data(), features, false, pack_a_, pack_b_);

  // pool2 and conv2: dW = dconv2 cols2^T, dcols2 = W^T dconv2, then back to pool1's layout.
  maxpool_backward(conv2_.data(), params + layout_.conv2_b, dflat_.data(), Strides{p, features},
                   CONV2_FILTERS, n, h / 2, w / 2, dconv2_.data(), grad + layout_.conv2_b,
                   accumulate, pool_tmp_.data());
  // By groups of samples, as in the forward pass: the group's im2col is rebuilt, and both it
  // and dcols2 stay in L2 between the GEMMs and col2im.
  for (int s0 = 0; s0 < n; s0 += CONV2_GROUP) {
    const int g = std::min(CONV2_GROUP, n - s0);
    im2col_3x3(pool1_.data() + s0 * q, Strides{n * q, q}, CONV1_FILTERS, g, h / 2, w / 2,
               edge_mask2_.data(), cols2_.data());
    gemm<RowMajor, ColMajor>(CONV2_FILTERS, k2, g * q, dconv2_.data() + s0 * q, n * q,
                             cols2_.data(), g * q, grad + layout_.conv2_w, k2, accumulate || s0 > 0,
                             pack_a_, pack_b_);
    gemm<ColMajor, RowMajor>(k2, g * q, CONV2_FILTERS, params + layout_.conv2_w, k2,
                             dconv2_.data() + s0 * q, n * q, dcols2_.data(), g * q, false, pack_a_,
                             pack_b_);
    col2im_3x3(dcols2_.data(), CONV1_FILTERS, g, h / 2, w / 2, edge_mask2_.data(),
               dpool1_.data() + s0 * q, n * q);
  }

  // pool1 and conv1 by groups, recomputing the forward pass's conv1 (no gradient with respect
  // to the image).
  for (int s0 = 0; s0 < n; s0 += CONV1_GROUP) {
    const int g = std::min(CONV1_GROUP, n - s0);
    conv1_group(params, x, s0, g);
    maxpool_backward(conv1_.data(), params + layout_.conv1_b, dpool1_.data() + s0 * q,
                     Strides{n * q, q}, CONV1_FILTERS, g, h, w, dconv1_.data(),
                     grad + layout_.conv1_b, accumulate || s0 > 0, pool_tmp_.data());
    gemm<RowMajor, ColMajor>(CONV1_FILTERS, k1, g * hw, dconv1_.data(), g * hw, cols1_.data(),
                             g * hw, grad + layout_.conv1_w, k1, accumulate || s0 > 0, pack_a_,
                             pack_b_);
  }
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
