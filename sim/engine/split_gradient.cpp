#include "sim/engine/split_gradient.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "models/rng.hpp"

namespace failsim::sim {

/// One part of the batch: its mean loss and gradient on the model of the slot that runs it.
class SplitGradient::PartJob : public MathJob {
 public:
  PartJob(std::vector<std::unique_ptr<models::Model>>& models, std::size_t num_params)
      : grad(num_params), models_(models) {}

  std::span<const float> params;
  models::Batch batch;
  std::uint64_t seed = 0;
  std::vector<float> grad;
  float loss = 0.0f;

 protected:
  void run(int slot) override {
    loss = models_[static_cast<std::size_t>(slot)]->loss_and_gradient(params, batch, grad, seed);
  }

 private:
  std::vector<std::unique_ptr<models::Model>>& models_;
};

SplitGradient::SplitGradient(const models::Model& model, int parts, MathPool& pool) : pool_(pool) {
  if (parts < 1) {
    throw std::invalid_argument("SplitGradient: need at least 1 part, got " +
                                std::to_string(parts));
  }
  for (int t = 0; t < pool.threads(); ++t) models_.push_back(model.clone());
  for (int p = 0; p < parts; ++p) {
    jobs_.push_back(std::make_unique<PartJob>(models_, model.num_params()));
  }
}

SplitGradient::~SplitGradient() = default;

float SplitGradient::loss_and_gradient(std::span<const float> params, const models::Batch& batch,
                                       std::span<float> grad, std::uint64_t dropout_seed) {
  if (batch.n < 1) throw std::invalid_argument("SplitGradient: empty batch");
  if (grad.size() != models_[0]->num_params()) {
    throw std::invalid_argument("SplitGradient: grad has " + std::to_string(grad.size()) +
                                " floats, the model " + std::to_string(models_[0]->num_params()));
  }
  const int used = std::min(parts(), batch.n);
  const auto width = static_cast<std::ptrdiff_t>(models_[0]->input_dim());
  for (int p = 0; p < used; ++p) {
    PartJob& job = *jobs_[static_cast<std::size_t>(p)];
    const int begin = p * batch.n / used;
    const int end = (p + 1) * batch.n / used;
    job.params = params;
    job.batch = models::Batch{batch.x + begin * width, batch.y + begin, end - begin};
    job.seed = models::derive_seed(dropout_seed, static_cast<std::uint64_t>(p));
    pool_.submit(job);
  }
  // Every part is waited for, even after one threw, so none is still writing when we return.
  std::exception_ptr error;
  for (int p = 0; p < used; ++p) {
    try {
      pool_.wait(*jobs_[static_cast<std::size_t>(p)]);
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);

  // grad = sum_p w_p g_p and loss = sum_p w_p loss_p, in part order, w_p = n_p / n.
  double loss = 0.0;
  for (int p = 0; p < used; ++p) {
    const PartJob& job = *jobs_[static_cast<std::size_t>(p)];
    const float w = static_cast<float>(job.batch.n) / static_cast<float>(batch.n);
    loss += static_cast<double>(w) * job.loss;
    if (p == 0) {
      std::transform(job.grad.begin(), job.grad.end(), grad.begin(),
                     [w](float g) { return w * g; });
    } else {
      std::transform(job.grad.begin(), job.grad.end(), grad.begin(), grad.begin(),
                     [w](float g, float sum) { return sum + w * g; });
    }
  }
  return static_cast<float>(loss);
}

}  // namespace failsim::sim
