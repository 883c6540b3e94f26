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

/// One chunk's share of an evaluation: the sum of its samples' losses (the chunk's mean loss
/// times its size, in double) and how many it classified right.
struct EvalPart {
  double loss_sum = 0.0;
  long correct = 0;
};

/// Evaluates in chunks with its own model clone and buffers: after the first call on a given
/// chunk size, evaluation allocates nothing.
class Evaluator {
 public:
  explicit Evaluator(const Model& model, int chunk = 256);

  /// Over the first `limit` samples of `data` (all when limit <= 0 or beyond the size).
  EvalResult evaluate(std::span<const float> params, const Dataset& data, int limit = 0);

  /// Samples [start, start + m) of `data`, m <= chunk(). evaluate() is the sum of these over
  /// consecutive chunks, added in order, so chunks computed anywhere and summed in order give
  /// the same bits.
  EvalPart evaluate_part(std::span<const float> params, const Dataset& data, int start, int m);

  /// How many samples evaluate() takes at a time.
  int chunk() const { return chunk_; }
  /// How many samples evaluate() takes over for `limit` (see evaluate).
  static int samples(const Dataset& data, int limit);
  /// The result of `part_sum` (parts summed in order) over n samples.
  static EvalResult result(EvalPart part_sum, int n);

 private:
  std::unique_ptr<Model> model_;
  int chunk_;
  FloatBuffer logits_;
};

}  // namespace failsim::models
