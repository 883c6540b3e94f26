// Student's t interval. The quantiles are tabulated rather than computed by inverting the
// incomplete beta function: the tables have at most a few dozen seeds, so a table is exact
// where it matters and needs no numerical library.
#include "analysis/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace failsim::analysis {
namespace {

// t_{0.975, df} for df = 1..30 (index df - 1), to 12 significant digits (mpmath, inverting the
// regularised incomplete beta function).
constexpr std::array<double, 30> T_975 = {
    12.7062047362, 4.30265272975, 3.18244630528, 2.7764451052,  2.57058183564, 2.44691185114,
    2.36462425159, 2.3060041352,  2.2621571628,  2.22813885199, 2.20098516009, 2.17881282967,
    2.16036865646, 2.14478668792, 2.13144954556, 2.11990529922, 2.10981557783, 2.10092204024,
    2.09302405441, 2.08596344727, 2.07961384473, 2.0738730679,  2.06865761042, 2.06389856163,
    2.05953855275, 2.05552943864, 2.05183051648, 2.0484071418,  2.04522964213, 2.0422724563,
};

// Abramowitz & Stegun 26.7.5: t ~ z + g1/df + g2/df^2 + g3/df^3 + g4/df^4.
double cornish_fisher(int df) {
  const double z = Z_975, z2 = z * z, v = df;
  const double g1 = (z2 + 1.0) * z / 4.0;
  const double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
  const double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
  const double g4 =
      ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

}  // namespace

double t_quantile_975(int df) {
  if (df < 1)
    throw std::invalid_argument("t_quantile_975: df must be >= 1, got " + std::to_string(df));
  if (df <= 30) return T_975[static_cast<std::size_t>(df - 1)];
  if (df == 40) return 2.02107539031;
  if (df == 60) return 2.00029782201;
  if (df == 120) return 1.97993040508;
  return cornish_fisher(df);
}

MeanInterval mean_interval(const std::vector<double>& values) {
  MeanInterval r;
  r.n = values.size();
  if (r.n == 0) return r;
  double sum = 0.0;
  for (double v : values) sum += v;
  r.mean = sum / static_cast<double>(r.n);
  if (r.n < 2) return r;
  // Equal values have no spread; the rounded mean could make one up (3 x (x/3) != x).
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; })) {
    r.mean = values[0];
    r.half_width = 0.0;
    return r;
  }
  // Two passes: the squared deviations from the mean, not sum(x^2) - n mean^2, which cancels
  // catastrophically for large values with a small spread (gradient counts, costs).
  double squares = 0.0;
  for (double v : values) squares += (v - r.mean) * (v - r.mean);
  r.stddev = std::sqrt(squares / static_cast<double>(r.n - 1));
  r.half_width =
      t_quantile_975(static_cast<int>(r.n - 1)) * r.stddev / std::sqrt(static_cast<double>(r.n));
  return r;
}

}  // namespace failsim::analysis
