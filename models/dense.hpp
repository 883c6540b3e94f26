// Fully connected layer kernels on row-major batches, shared by the softmax regression and the
// MLP. Weights use PyTorch's layout: W is [out x in] row-major, followed by b [out].
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace failsim::models::dense {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowMap = Eigen::Map<RowMatrix>;

/// y = x W^T + b for a batch x [n x in]; y is [n x out].
inline void forward(const float* x, int n, int in, const float* w, const float* b, int out,
                    float* y) {
  RowMap Y(y, n, out);
  Y.noalias() = ConstRowMap(x, n, in) * ConstRowMap(w, out, in).transpose();
  Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, out);
}

/// Given dy = dL/dy [n x out]: dW = dy^T x, db = sum over rows of dy, and, when dx is not null,
/// dx = dy W [n x in]. dW and db are overwritten, not accumulated.
inline void backward(const float* x, const float* dy, int n, int in, const float* w, int out,
                     float* dw, float* db, float* dx) {
  const ConstRowMap DY(dy, n, out);
  RowMap(dw, out, in).noalias() = DY.transpose() * ConstRowMap(x, n, in);
  Eigen::Map<Eigen::RowVectorXf>(db, out) = DY.colwise().sum();
  if (dx != nullptr) RowMap(dx, n, in).noalias() = DY * ConstRowMap(w, out, in);
}

/// PyTorch's nn.Linear default initialisation: W and b uniform in [-1/sqrt(in), 1/sqrt(in)].
template <class Rng>
void init_uniform_fan_in(float* w, float* b, int in, int out, Rng& rng) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(in));
  for (long i = 0; i < static_cast<long>(out) * in; ++i)
    w[i] = (2.0f * rng.uniform_float() - 1.0f) * bound;
  for (int i = 0; i < out; ++i) b[i] = (2.0f * rng.uniform_float() - 1.0f) * bound;
}

}  // namespace failsim::models::dense
