// One gradient cut into a fixed number of parts, each part a job of a MathPool (issue 35): the
// one place that decides the cut, each part's dropout seed and the order of the sum, for
// TrainingMath's split gradients (training_math.hpp) and SplitGradient (split_gradient.hpp).
//
// A run with one worker (or one data-parallel replica) has one gradient in flight, so the pool's
// threads would otherwise idle while the transformer, whose step is long, computes it on one.
// Deterministic by construction: the cut depends on the batch's rows and `parts` only, each part
// is computed the same way whichever thread runs it, and the sum runs in part order on the
// caller's thread. So the bits do not depend on the pool's threads; they do depend on `parts`
// (the sum of part means rounds differently from one product over the whole batch).
//
// Started and collected apart, like a single job: the caller simulates meanwhile. Nothing
// allocates once constructed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/engine/math_pool.hpp"

namespace failsim::sim {

/// What computes the parts: whoever holds the batch and the parameters.
class GradientSource {
 public:
  /// The mean loss over rows [begin, end) of the batch, and their mean gradient written to
  /// `grad`, computed in the thread of `slot` (its own scratch) with dropout seed `seed`.
  virtual float part_gradient(int slot, int begin, int end, std::uint64_t seed,
                              std::span<float> grad) = 0;

 protected:
  ~GradientSource() = default;
};

class GradientParts {
 public:
  /// `parts` >= 1 (std::invalid_argument otherwise); gradients of `num_params` floats.
  GradientParts(int parts, std::size_t num_params);
  ~GradientParts();
  GradientParts(const GradientParts&) = delete;
  GradientParts& operator=(const GradientParts&) = delete;

  int parts() const { return static_cast<int>(jobs_.size()); }

  /// Submits min(parts, rows) parts of a batch of `rows` >= 1 rows: part p is rows
  /// [p rows / P, (p + 1) rows / P) with dropout seed derive_seed(dropout_seed, p), or
  /// dropout_seed itself when there is one part (the unsplit step, bit for bit). Part 0 writes
  /// into `grad`; `source` and `grad` must stay valid until wait() or abandon() returns.
  void start(MathPool& pool, GradientSource& source, int rows, std::uint64_t dropout_seed,
             std::span<float> grad);
  /// Returns once every part has finished (computing queued jobs meanwhile); rethrows what the
  /// first failing part threw.
  void wait(MathPool& pool);
  /// After wait(): grad = sum_p (n_p / n) x (part p's gradient) and the loss likewise, in part
  /// order.
  float sum(std::span<float> grad) const;
  /// The result is not wanted: every part is dequeued or waited for.
  void abandon(MathPool& pool);

 private:
  class PartJob;
  std::vector<std::unique_ptr<PartJob>> jobs_;  // one per part; part p > 0 with its gradient
  int rows_ = 0;
  int used_ = 0;
};

}  // namespace failsim::sim
