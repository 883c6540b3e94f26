// Statistics over seeds: the mean and the two-sided 95% confidence interval of Student's t,
// the interval every table reports. Engine-free and dependency-free.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace failsim::analysis {

/// The 0.975 quantile of the standard normal distribution: the factor of a two-sided 95%
/// interval for large samples.
inline constexpr double Z_975 = 1.959963984540054;

/// The 0.975 quantile of Student's t distribution with `df` degrees of freedom, the factor of a
/// two-sided 95% interval. df 1..30, 40, 60 and 120 come from an exact table (computed to 12
/// digits, matching printed tables to their 3 decimals); other df > 30 use the Cornish-Fisher
/// expansion of Abramowitz & Stegun 26.7.5 in 1/df (error below 1e-7 there). Throws
/// std::invalid_argument for df < 1.
double t_quantile_975(int df);

/// Mean and 95% confidence interval of a sample.
struct MeanInterval {
  std::size_t n = 0;    ///< values summarised
  double mean = 0.0;    ///< arithmetic mean; 0 when n = 0
  double stddev = 0.0;  ///< sample standard deviation s (divisor n - 1); 0 when n < 2
  /// Half-width of the two-sided 95% interval, t_{0.975, n-1} x s / sqrt(n); none when n < 2.
  std::optional<double> half_width;
};

/// Summarises `values` (any order; n = 0 gives an empty summary).
MeanInterval mean_interval(const std::vector<double>& values);

}  // namespace failsim::analysis
