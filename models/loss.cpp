#include "models/loss.hpp"

#include <algorithm>
#include <cmath>

namespace failsim::models {

float softmax_cross_entropy(const float* logits, const std::int32_t* y, int n, int classes,
                            float* dlogits) {
  double total = 0.0;
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int i = 0; i < n; ++i) {
    const float* row = logits + static_cast<std::ptrdiff_t>(i) * classes;
    const float m = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c] - m));
    const double log_sum = std::log(sum);
    total += log_sum - static_cast<double>(row[y[i]] - m);
    if (dlogits != nullptr) {
      float* d = dlogits + static_cast<std::ptrdiff_t>(i) * classes;
      for (int c = 0; c < classes; ++c) {
        const double p = std::exp(static_cast<double>(row[c] - m) - log_sum);
        d[c] = static_cast<float>(p) * inv_n;
      }
      d[y[i]] -= inv_n;
    }
  }
  return static_cast<float>(total / n);
}

}  // namespace failsim::models
