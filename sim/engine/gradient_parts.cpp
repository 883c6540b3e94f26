#include "sim/engine/gradient_parts.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "models/rng.hpp"

namespace failsim::sim {

/// One part of the batch: its mean loss and gradient, computed by the source in the slot that
/// runs it.
class GradientParts::PartJob : public MathJob {
 public:
  explicit PartJob(std::size_t own_floats) : own(own_floats) {}

  GradientSource* source = nullptr;
  int begin = 0, end = 0;
  std::uint64_t seed = 0;
  std::vector<float> own;  // part p > 0's gradient (part 0 writes into the caller's)
  std::span<float> grad;
  float loss = 0.0f;

 protected:
  void run(int slot) override { loss = source->part_gradient(slot, begin, end, seed, grad); }
};

GradientParts::GradientParts(int parts, std::size_t num_params) {
  if (parts < 1) {
    throw std::invalid_argument("GradientParts: need at least 1 part, got " +
                                std::to_string(parts));
  }
  for (int p = 0; p < parts; ++p)
    jobs_.push_back(std::make_unique<PartJob>(p == 0 ? 0 : num_params));
}

GradientParts::~GradientParts() = default;

void GradientParts::start(MathPool& pool, GradientSource& source, int rows,
                          std::uint64_t dropout_seed, std::span<float> grad) {
  if (rows < 1) throw std::invalid_argument("GradientParts: empty batch");
  if (parts() > 1 && grad.size() != jobs_[1]->own.size()) {
    throw std::invalid_argument("GradientParts: grad has " + std::to_string(grad.size()) +
                                " floats, the parts " + std::to_string(jobs_[1]->own.size()));
  }
  rows_ = rows;
  used_ = std::min(parts(), rows);
  for (int p = 0; p < used_; ++p) {
    PartJob& job = *jobs_[static_cast<std::size_t>(p)];
    job.source = &source;
    job.begin = p * rows / used_;
    job.end = (p + 1) * rows / used_;
    job.seed = used_ == 1 ? dropout_seed
                          : models::derive_seed(dropout_seed, static_cast<std::uint64_t>(p));
    job.grad = p == 0 ? grad : std::span<float>(job.own);
    pool.submit(job);
  }
}

void GradientParts::wait(MathPool& pool) {
  // Every part is waited for, even after one threw, so none is still writing when we return.
  std::exception_ptr error;
  for (int p = 0; p < used_; ++p) {
    try {
      pool.wait(*jobs_[static_cast<std::size_t>(p)]);
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

float GradientParts::sum(std::span<float> grad) const {
  // grad = sum_p w_p g_p and loss = sum_p w_p loss_p, in part order, w_p = n_p / n; part 0's
  // gradient is already in grad.
  double loss = 0.0;
  for (int p = 0; p < used_; ++p) {
    const PartJob& job = *jobs_[static_cast<std::size_t>(p)];
    const float w = static_cast<float>(job.end - job.begin) / static_cast<float>(rows_);
    loss += static_cast<double>(w) * job.loss;
    if (used_ == 1) return job.loss;  // the unsplit step: w = 1, nothing to scale
    if (p == 0) {
      std::transform(grad.begin(), grad.end(), grad.begin(), [w](float g) { return w * g; });
    } else {
      std::transform(job.own.begin(), job.own.end(), grad.begin(), grad.begin(),
                     [w](float g, float sum) { return sum + w * g; });
    }
  }
  return static_cast<float>(loss);
}

void GradientParts::abandon(MathPool& pool) {
  for (int p = 0; p < used_; ++p) pool.abandon(*jobs_[static_cast<std::size_t>(p)]);
}

}  // namespace failsim::sim
