// One model's gradient of one batch computed in parts on the threads of a MathPool, in one call
// (gradient_parts.hpp holds the cut, the seeds and the sum): the benchmark's and the tests' way to
// the split without a run. TrainingMath splits a run's gradients with GradientParts directly.
//
// Each part runs on the model copy of the thread that runs it (its own scratch), so the bits do
// not depend on the pool's threads (tests/test_split_gradient.cpp checks 1, 2 and 3). Nothing
// allocates per call once constructed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/dataset.hpp"
#include "models/model.hpp"
#include "sim/engine/gradient_parts.hpp"
#include "sim/engine/math_pool.hpp"

namespace failsim::sim {

class SplitGradient : private GradientSource {
 public:
  /// `parts` >= 1 (std::invalid_argument otherwise); one clone of `model` per thread of `pool`,
  /// which must outlive this.
  SplitGradient(const models::Model& model, int parts, MathPool& pool);

  int parts() const { return parts_.parts(); }

  /// The batch's mean loss, and its gradient written to `grad` (GradientParts::sum). Rethrows
  /// what a part threw (after every part has finished). Called by the pool's owner (the
  /// simulation thread), never from inside a job: a job waiting here computes whatever is queued
  /// in its own slot meanwhile, possibly a job using the same slot's scratch as the waiting job.
  float loss_and_gradient(std::span<const float> params, const models::Batch& batch,
                          std::span<float> grad, std::uint64_t dropout_seed);

 private:
  float part_gradient(int slot, int begin, int end, std::uint64_t seed,
                      std::span<float> grad) override;

  MathPool& pool_;
  std::vector<std::unique_ptr<models::Model>> models_;  // one per pool slot
  GradientParts parts_;
  std::span<const float> params_;  // the call's
  models::Batch batch_;
};

}  // namespace failsim::sim
