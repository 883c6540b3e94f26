// One gradient computed on several threads of a MathPool (issue 35): the batch is cut into a
// fixed number of parts, each part's mean loss and gradient is a job of the pool, and the parts
// are summed in part order, weighted by their share of the batch. A run with one worker (or one
// data-parallel replica) has one gradient in flight, so the pool's threads would otherwise idle
// while the transformer, whose step is long, computes it on one.
//
// Deterministic by construction: the cut depends on the batch size and `parts` only, each part is
// computed the same way whichever thread runs it (on that thread's own model, i.e. its own
// scratch), and the sum runs in one fixed order on the calling thread. So the bits do not depend
// on the pool's threads (tests/test_split_gradient.cpp checks 1, 2 and 3). They do depend on
// `parts`: the sum of part means rounds differently from one product over the whole batch.
//
// Nothing allocates per call once constructed. Part p uses dropout seed derive_seed(seed, p), so
// a model with dropout draws distinct masks for its parts.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/dataset.hpp"
#include "models/model.hpp"
#include "sim/engine/math_pool.hpp"

namespace failsim::sim {

class SplitGradient {
 public:
  /// `parts` >= 1 (std::invalid_argument otherwise); one clone of `model` per thread of `pool`,
  /// which must outlive this.
  SplitGradient(const models::Model& model, int parts, MathPool& pool);
  ~SplitGradient();
  SplitGradient(const SplitGradient&) = delete;
  SplitGradient& operator=(const SplitGradient&) = delete;

  int parts() const { return static_cast<int>(jobs_.size()); }

  /// The batch's mean loss, and its gradient written to `grad`: min(parts, batch.n) parts of
  /// rows [p n / P, (p + 1) n / P), summed as sum_p (n_p / n) x (part p's mean). Rethrows what
  /// a part threw (after every part has finished). Called by the pool's owner (the simulation
  /// thread), never from inside a job: a job waiting here computes whatever is queued in its own
  /// slot meanwhile, possibly a job using the same slot's scratch as the waiting job.
  float loss_and_gradient(std::span<const float> params, const models::Batch& batch,
                          std::span<float> grad, std::uint64_t dropout_seed);

 private:
  class PartJob;
  MathPool& pool_;
  std::vector<std::unique_ptr<models::Model>> models_;  // one per pool slot
  std::vector<std::unique_ptr<PartJob>> jobs_;          // one per part, with its gradient
};

}  // namespace failsim::sim
