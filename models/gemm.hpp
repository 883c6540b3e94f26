// Dense float matrix products on Eigen's GEMM kernel with caller-owned packing buffers, shared by
// the models whose steady state must not allocate (the CNN, the transformer).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace failsim::models {

// Matrix products call Eigen's GEMM kernel directly rather than through `C.noalias() = A * B`,
// because the expression API allocates its packing buffers on the heap at every product once
// they exceed EIGEN_STACK_ALLOCATION_LIMIT (128 KB), which ours do. Here they live in the
// caller's scratch, so a model's steady state never allocates. The kernel is internal API, whose
// signature is Eigen 3.4's.
static_assert(EIGEN_VERSION_AT_LEAST(3, 4, 0) && !EIGEN_VERSION_AT_LEAST(3, 5, 0),
              "models/gemm.hpp calls Eigen 3.4's internal general_matrix_matrix_product");

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
inline void gemm(Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb,
                 float* c, Index ldc, bool accumulate, std::vector<float>& pack_a,
                 std::vector<float>& pack_b) {
  if (!accumulate) {
    for (Index i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
  }
  GemmBlocking blocking(m, n, k, pack_a, pack_b);
  Eigen::internal::general_matrix_matrix_product<Index, float, LhsOrder, false, float, RhsOrder,
                                                 false, RowMajor, 1>::run(m, n, k, a, lda, b, ldb,
                                                                          c, 1, ldc, 1.0f, blocking,
                                                                          nullptr);
}

}  // namespace failsim::models
