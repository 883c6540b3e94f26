// Gaussian blobs with a known Bayes accuracy (see synthetic.hpp for the math).
#include "models/synthetic.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "models/rng.hpp"

namespace failsim::models {

namespace {

// Stream ids under spec.seed: one for the means, one per split.
constexpr std::uint64_t MEANS_STREAM = 0;
constexpr std::uint64_t TRAIN_STREAM = 1;
constexpr std::uint64_t TEST_STREAM = 2;

void validate(const BlobSpec& spec) {
  if (spec.num_classes < 2 || spec.num_classes > spec.dim || !(spec.separation >= 0) ||
      !(spec.sigma > 0)) {
    throw std::invalid_argument(
        fmt::format("BlobSpec: expected 2 <= num_classes <= dim, separation >= 0, sigma > 0, found "
                    "num_classes {}, dim {}, separation {}, sigma {}",
                    spec.num_classes, spec.dim, spec.separation, spec.sigma));
  }
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

}  // namespace

std::vector<double> blob_means(const BlobSpec& spec) {
  validate(spec);
  const auto k = static_cast<std::size_t>(spec.num_classes);
  const auto dim = static_cast<std::size_t>(spec.dim);
  Rng rng(derive_seed(spec.seed, MEANS_STREAM));
  std::vector<double> q(k * dim);
  // Orthonormal directions by Gram-Schmidt on Gaussian vectors: a uniformly random rotation
  // of K axes, so the means are not axis-aligned (which would flatter some models). Gaussian
  // vectors in dim >= K are independent with probability one; the second pass of the
  // projection keeps rounding error from leaving the directions slightly skewed.
  for (std::size_t c = 0; c < k; ++c) {
    double* v = q.data() + c * dim;
    for (std::size_t j = 0; j < dim; ++j) v[j] = rng.normal();
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t p = 0; p < c; ++p) {
        const double* u = q.data() + p * dim;
        double dot = 0;
        for (std::size_t j = 0; j < dim; ++j) dot += v[j] * u[j];
        for (std::size_t j = 0; j < dim; ++j) v[j] -= dot * u[j];
      }
    }
    double norm = 0;
    for (std::size_t j = 0; j < dim; ++j) norm += v[j] * v[j];
    norm = std::sqrt(norm);
    for (std::size_t j = 0; j < dim; ++j) v[j] /= norm;
  }
  // Scale only now: the projections above need unit vectors.
  const double radius = spec.separation / std::numbers::sqrt2;
  for (double& v : q) v *= radius;
  return q;
}

Dataset make_gaussian_blobs(const BlobSpec& spec, Split split, int n) {
  validate(spec);
  if (n < 0) throw std::invalid_argument(fmt::format("make_gaussian_blobs: n = {} < 0", n));
  const std::vector<double> means = blob_means(spec);
  const auto dim = static_cast<std::size_t>(spec.dim);
  Dataset data;
  data.name = fmt::format("blobs-k{}-d{}-{}", spec.num_classes, spec.dim,
                          split == Split::TRAIN ? "train" : "test");
  data.width = spec.dim;
  data.num_classes = spec.num_classes;
  data.x.resize(static_cast<std::size_t>(n) * dim);
  data.y.resize(static_cast<std::size_t>(n));
  Rng rng(derive_seed(spec.seed, split == Split::TRAIN ? TRAIN_STREAM : TEST_STREAM));
  for (std::size_t i = 0; i < data.y.size(); ++i) {
    const auto label = rng.below(static_cast<std::uint64_t>(spec.num_classes));
    data.y[i] = static_cast<std::int32_t>(label);
    const double* mean = means.data() + label * dim;
    float* x = data.x.data() + i * dim;
    for (std::size_t j = 0; j < dim; ++j) {
      x[j] = static_cast<float>(mean[j] + spec.sigma * rng.normal());
    }
  }
  return data;
}

double bayes_accuracy(const BlobSpec& spec) {
  validate(spec);
  const double a = spec.separation / std::numbers::sqrt2 / spec.sigma;
  const double others = spec.num_classes - 1;
  const auto integrand = [&](double t) {
    return std::exp(-0.5 * t * t) / std::sqrt(2 * std::numbers::pi) *
           std::pow(normal_cdf(t + a), others);
  };
  // Composite Simpson on [-12, 12]: phi(t) < 1e-31 outside, and the integrand is smooth, so
  // 4000 intervals put the error far below 1e-9.
  constexpr int INTERVALS = 4000;
  constexpr double LO = -12, HI = 12;
  const double h = (HI - LO) / INTERVALS;
  double sum = integrand(LO) + integrand(HI);
  for (int i = 1; i < INTERVALS; ++i) sum += (i % 2 == 1 ? 4 : 2) * integrand(LO + i * h);
  return sum * h / 3;
}

double nearest_mean_accuracy(const BlobSpec& spec, const Dataset& data) {
  if (data.dim() != spec.dim || data.num_classes != spec.num_classes) {
    throw std::invalid_argument(fmt::format(
        "nearest_mean_accuracy: data set '{}' has dim {} and {} classes, spec has {} and {}",
        data.name, data.dim(), data.num_classes, spec.dim, spec.num_classes));
  }
  if (data.size() == 0) return 0;
  const std::vector<double> means = blob_means(spec);
  const auto dim = static_cast<std::size_t>(spec.dim);
  int correct = 0;
  for (int i = 0; i < data.size(); ++i) {
    const float* x = data.sample(i);
    int best = 0;
    double best_distance = INFINITY;
    for (int c = 0; c < spec.num_classes; ++c) {
      const double* mean = means.data() + static_cast<std::size_t>(c) * dim;
      double distance = 0;
      for (std::size_t j = 0; j < dim; ++j) {
        const double d = x[j] - mean[j];
        distance += d * d;
      }
      if (distance < best_distance) {
        best_distance = distance;
        best = c;
      }
    }
    if (best == data.y[static_cast<std::size_t>(i)]) ++correct;
  }
  return static_cast<double>(correct) / data.size();
}

}  // namespace failsim::models
