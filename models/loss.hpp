// Softmax cross-entropy shared by every model's last layer.
#pragma once

#include <cstdint>

namespace failsim::models {

/// Mean over n rows of -log softmax(logits_i)[y_i]. When dlogits is not null it receives
/// dL/dlogits = (softmax(logits_i) - onehot(y_i)) / n. Rows are `classes` wide, row-major.
/// Numerically stable (max subtracted). dlogits may alias logits.
float softmax_cross_entropy(const float* logits, const std::int32_t* y, int n, int classes,
                            float* dlogits);

}  // namespace failsim::models
