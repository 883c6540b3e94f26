// Test loss and accuracy of a parameter vector over (part of) a data set.
#pragma once

#include <span>
#include <vector>

#include "models/dataset.hpp"
#include "models/model.hpp"
#include "models/scratch.hpp"

namespace failsim::models {

struct EvalResult {
  double loss = 0.0;      ///< mean cross-entropy
  double accuracy = 0.0;  ///< fraction of samples whose arg-max logit is the label
  int samples = 0;
};

/// Evaluates in chunks with its own model clone and buffers: after the first call on a given
/// chunk size, evaluation allocates nothing.
class Evaluator {
 public:
  explicit Evaluator(const Model& model, int chunk = 256);

  /// Over the first `limit` samples of `data` (all when limit <= 0 or beyond the size).
  EvalResult evaluate(std::span<const float> params, const Dataset& data, int limit = 0);

 private:
  std::unique_ptr<Model> model_;
  int chunk_;
  FloatBuffer logits_;
};

}  // namespace failsim::models
