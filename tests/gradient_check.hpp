// Central finite differences against a model's analytic gradient, shared by the model tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/model.hpp"
#include "models/rng.hpp"

namespace failsim::testing {

struct GradientCheck {
  double max_rel_error = 0.0;  ///< over the checked coordinates
  int checked = 0;
};

/// Checks `samples` coordinates drawn uniformly (plus the first and last) of the gradient of
/// `model` at `params` on `batch`. Each coordinate: (L(p + h e_i) - L(p - h e_i)) / 2h against
/// the analytic value; relative error |a - n| / max(|a| + |n|, floor). The dropout seed is the
/// same for every evaluation, so the masks are fixed and the loss is a smooth function.
inline GradientCheck check_gradient(models::Model& model, std::vector<float> params,
                                    const models::Batch& batch, int samples, float h = 1e-3f,
                                    double floor = 1e-3, std::uint64_t dropout_seed = 7) {
  std::vector<float> grad(params.size()), scratch(params.size());
  model.loss_and_gradient(params, batch, grad, dropout_seed);
  models::Rng rng(123);
  std::vector<std::size_t> coords{0, params.size() - 1};
  for (int s = 0; s < samples; ++s) coords.push_back(rng.below(params.size()));
  GradientCheck result;
  for (std::size_t i : coords) {
    const float saved = params[i];
    params[i] = saved + h;
    const double up = model.loss_and_gradient(params, batch, scratch, dropout_seed);
    params[i] = saved - h;
    const double down = model.loss_and_gradient(params, batch, scratch, dropout_seed);
    params[i] = saved;
    const double numeric = (up - down) / (2.0 * h);
    const double analytic = grad[i];
    const double rel =
        std::abs(analytic - numeric) / std::max(std::abs(analytic) + std::abs(numeric), floor);
    result.max_rel_error = std::max(result.max_rel_error, rel);
    ++result.checked;
  }
  return result;
}

/// A batch of n standard-normal inputs with uniform labels, drawn from `seed`.
struct RandomBatch {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  RandomBatch(int n, int dim, int classes, std::uint64_t seed) {
    models::Rng rng(seed);
    for (int i = 0; i < n * dim; ++i) x.push_back(static_cast<float>(rng.normal()));
    for (int i = 0; i < n; ++i) {
      y.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(classes))));
    }
  }
  models::Batch view() const {
    return models::Batch{x.data(), y.data(), static_cast<int>(y.size())};
  }
};

/// The model's seeded initial parameters.
inline std::vector<float> initial(const models::Model& model, std::uint64_t seed) {
  std::vector<float> p(model.num_params());
  model.init(p, seed);
  return p;
}

}  // namespace failsim::testing
