// Gaussian blobs: a synthetic classification data set small enough for fast tests and with a
// known best achievable accuracy, so a test can ask "did training get close to optimal?".
//
// Class k has mean m_k = r q_k, where q_0..q_{K-1} are orthonormal directions in R^dim (a
// random rotation drawn from the seed) and r = separation / sqrt(2), so every pair of means
// is exactly `separation` apart. Samples are x = m_y + sigma z with z ~ N(0, I) and y uniform
// over the K classes. With equal priors and equal isotropic covariances the Bayes-optimal
// classifier is the nearest mean (a linear classifier), and its accuracy depends only on
// K and a = r / sigma:
//
//     P(correct) = integral phi(t) Phi(t + a)^(K-1) dt       (K = 2: Phi(separation / 2 sigma))
//
// because projecting x onto the q_j leaves K independent normals, the true one shifted by a.
#pragma once

#include <cstdint>
#include <vector>

#include "models/dataset.hpp"

namespace failsim::models {

/// The distribution of a Gaussian-blobs data set.
struct BlobSpec {
  int num_classes = 10;    ///< K, at most dim (orthonormal means need K directions)
  int dim = 32;            ///< input dimension
  double separation = 3;   ///< distance between any two class means
  double sigma = 1;        ///< standard deviation of the isotropic noise, per coordinate
  std::uint64_t seed = 1;  ///< draws the means (the rotation) and, derived, each split
};

/// The true class means, num_classes x dim, row-major. Throws std::invalid_argument for a
/// spec that is not 2 <= num_classes <= dim, separation >= 0, sigma > 0.
std::vector<double> blob_means(const BlobSpec& spec);

/// n samples of the split. Train and test come from the same distribution through separate
/// streams (derive_seed(spec.seed, 1) and derive_seed(spec.seed, 2)), so they never share
/// samples; the same spec, split and n always give the same data. The Dataset is shaped
/// channels = 1, height = 1, width = dim.
Dataset make_gaussian_blobs(const BlobSpec& spec, Split split, int n);

/// The Bayes-optimal accuracy, computed from the formula above by quadrature (error < 1e-9).
double bayes_accuracy(const BlobSpec& spec);

/// The accuracy of the Bayes-optimal classifier (nearest true mean) on `data`: an unbiased
/// Monte Carlo estimate of bayes_accuracy(spec) when data come from make_gaussian_blobs, and
/// the reference a trained model's accuracy on the same samples should approach.
double nearest_mean_accuracy(const BlobSpec& spec, const Dataset& data);

}  // namespace failsim::models
