#include "analysis/node_rate_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace failsim::analysis {
namespace {

constexpr double TINY = 1e-300;
constexpr double MIN_EXPECTED = 5.0;  // nodes a bin expects at least (Cochran's rule)

/// P(X = k) for k = 0 .. max of a Poisson (a = infinity) or a negative binomial of mean `mean`
/// and shape `a`, by the ratio of successive terms.
std::vector<double> count_probabilities(double mean, std::optional<double> a, std::size_t max) {
  std::vector<double> p(max + 1);
  p[0] = a ? std::exp(*a * std::log(*a / (*a + mean))) : std::exp(-mean);
  for (std::size_t k = 0; k < max; ++k) {
    const auto kd = static_cast<double>(k);
    p[k + 1] = a ? p[k] * (kd + *a) / (kd + 1.0) * (mean / (*a + mean)) : p[k] * mean / (kd + 1.0);
  }
  return p;
}

/// Observed against expected, bins pooled upward until each expects MIN_EXPECTED nodes; the
/// last count observed takes the whole tail above it, and a last bin that expects fewer joins
/// the one before.
CountHistogram histogram(const std::vector<std::size_t>& counts, double n, double mean,
                         std::optional<double> a, int parameters) {
  const std::size_t max = *std::max_element(counts.begin(), counts.end());
  const std::vector<double> p = count_probabilities(mean, a, max);
  std::vector<double> observed(max + 1, 0.0), expected(max + 1, 0.0);
  for (const std::size_t c : counts) observed[c] += 1.0;
  observed[0] += n - static_cast<double>(counts.size());
  double below = 0.0;
  for (std::size_t k = 0; k < max; ++k) below += expected[k] = n * p[k];
  expected[max] = n - below;
  CountHistogram h;
  double e = 0.0, o = 0.0;
  std::size_t from = 0;
  for (std::size_t k = 0; k <= max; ++k) {
    e += expected[k];
    o += observed[k];
    if (e < MIN_EXPECTED && k < max) continue;
    h.from.push_back(from);
    h.observed.push_back(o);
    h.expected.push_back(e);
    from = k + 1;
    e = o = 0.0;
  }
  if (h.from.size() > 1 && h.expected.back() < MIN_EXPECTED) {
    h.observed[h.observed.size() - 2] += h.observed.back();
    h.expected[h.expected.size() - 2] += h.expected.back();
    h.from.pop_back();
    h.observed.pop_back();
    h.expected.pop_back();
  }
  for (std::size_t b = 0; b < h.observed.size(); ++b) {
    const double d = h.observed[b] - h.expected[b];
    h.chi_square += h.expected[b] > 0.0 ? d * d / h.expected[b] : 0.0;
  }
  h.degrees_of_freedom = static_cast<int>(h.observed.size()) - 1 - parameters;
  h.p_value = h.degrees_of_freedom >= 1 ? chi_square_tail(h.chi_square, h.degrees_of_freedom)
                                        : std::numeric_limits<double>::quiet_NaN();
  return h;
}

}  // namespace

double chi_square_tail(double x, double df) {
  const double s = df / 2.0, y = x / 2.0;
  if (y <= 0.0) return 1.0;
  const double front = std::exp(-y + s * std::log(y) - std::lgamma(s));
  if (y < s + 1.0) {
    // P(s, y) by its series, Q = 1 - P.
    double term = 1.0 / s, sum = term;
    for (int n = 1; n < 100000 && term > sum * 1e-16; ++n) {
      term *= y / (s + n);
      sum += term;
    }
    return std::max(0.0, 1.0 - sum * front);
  }
  // Q(s, y) by its continued fraction (modified Lentz).
  double b = y + 1.0 - s, c = 1.0 / TINY, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - s);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < TINY) d = TINY;
    c = b + an / c;
    if (std::fabs(c) < TINY) c = TINY;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < 1e-16) break;
  }
  return front * h;
}

double negative_binomial_score(const std::vector<std::size_t>& counts, double nodes, double mean,
                               double a) {
  // log1p: a / (a + mean) is within rounding of 1 when the mean is tiny beside a.
  double score = nodes * std::log1p(-mean / (a + mean));
  for (const std::size_t c : counts)
    for (std::size_t j = 0; j < c; ++j) score += 1.0 / (a + static_cast<double>(j));
  return score;
}

NodeRateFit fit_node_rates(const std::vector<std::size_t>& counts, double span_days,
                           std::size_t faultless) {
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  const double n = static_cast<double>(counts.size()) + static_cast<double>(faultless);
  if (n < 2.0 || total == 0 || !(span_days > 0.0)) {
    throw std::invalid_argument(
        fmt::format("expected at least 2 nodes, a fault and a span > 0 to fit the nodes' rates, "
                    "found {} node(s), {} fault(s), a span of {} days",
                    n, total, span_days));
  }
  NodeRateFit f;
  f.nodes = counts.size() + faultless;
  f.span_days = span_days;
  f.mean_count = static_cast<double>(total) / n;
  // The faultless nodes' squares: each (0 - mean)^2.
  double squares = static_cast<double>(faultless) * f.mean_count * f.mean_count;
  for (const std::size_t c : counts) {
    const double d = static_cast<double>(c) - f.mean_count;
    squares += d * d;
  }
  f.variance = squares / (n - 1.0);
  f.rate_per_node_day = f.mean_count / span_days;
  f.dispersion = f.variance / f.mean_count;
  f.dispersion_p_value = chi_square_tail((n - 1.0) * f.dispersion, n - 1.0);
  f.poisson = histogram(counts, n, f.mean_count, std::nullopt, 1);
  // The score tends to n (mean - population variance) / (2 a^2) as a grows: a root exists only
  // when the counts vary more than a Poisson's (it is +infinity as a -> 0).
  double lo = GAMMA_SHAPE_MIN, hi = GAMMA_SHAPE_MAX;
  // A root above GAMMA_SHAPE_MAX is a spread of variance below 1e-8: equal rates. One below
  // GAMMA_SHAPE_MIN is a spread beyond any the fit looks for, said so.
  const bool dispersed =
      squares / n > f.mean_count && negative_binomial_score(counts, n, f.mean_count, hi) < 0.0;
  f.gamma_out_of_range = dispersed && negative_binomial_score(counts, n, f.mean_count, lo) <= 0.0;
  if (dispersed && !f.gamma_out_of_range) {
    for (int i = 0; i < 200 && hi / lo > 1.0 + 1e-12; ++i) {
      const double mid = std::sqrt(lo * hi);
      (negative_binomial_score(counts, n, f.mean_count, mid) > 0.0 ? lo : hi) = mid;
    }
    f.gamma_shape = std::sqrt(lo * hi);
    f.gamma = histogram(counts, n, f.mean_count, f.gamma_shape, 2);
  }
  if (f.variance > f.mean_count) {
    f.moments_factor_variance = (f.variance - f.mean_count) / (f.mean_count * f.mean_count);
    f.lognormal_sigma = std::sqrt(std::log1p(*f.moments_factor_variance));
  }
  return f;
}

namespace {
nlohmann::json histogram_json(const CountHistogram& h) {
  nlohmann::json bins = nlohmann::json::array();
  for (std::size_t b = 0; b < h.from.size(); ++b)
    bins.push_back({{"from", h.from[b]}, {"observed", h.observed[b]}, {"expected", h.expected[b]}});
  return {{"bins", bins},
          {"chi_square", h.chi_square},
          {"degrees_of_freedom", h.degrees_of_freedom},
          {"p_value", std::isnan(h.p_value) ? nlohmann::json(nullptr) : nlohmann::json(h.p_value)}};
}

std::string histogram_lines(const CountHistogram& h) {
  std::string out = "    faults  observed  expected\n";
  for (std::size_t b = 0; b < h.from.size(); ++b) {
    const bool last = b + 1 == h.from.size();
    const std::string range = last ? fmt::format("{}+", h.from[b])
                                   : (h.from[b + 1] - 1 == h.from[b]
                                          ? fmt::format("{}", h.from[b])
                                          : fmt::format("{}-{}", h.from[b], h.from[b + 1] - 1));
    out += fmt::format("    {:>6}  {:>8.0f}  {:>8.1f}\n", range, h.observed[b], h.expected[b]);
  }
  out += h.degrees_of_freedom >= 1
             ? fmt::format("    chi-square {:.2f}, {} degrees of freedom, p = {:.3g}\n",
                           h.chi_square, h.degrees_of_freedom, h.p_value)
             : fmt::format("    chi-square {:.2f}, too few bins for a test\n", h.chi_square);
  return out;
}
}  // namespace

nlohmann::json to_json(const NodeRateFit& f) {
  const auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"nodes", f.nodes},
          {"span_days", f.span_days},
          {"mean_faults_per_node", f.mean_count},
          {"variance", f.variance},
          {"rate_per_node_day", f.rate_per_node_day},
          {"dispersion_index", f.dispersion},
          {"dispersion_p_value", f.dispersion_p_value},
          {"gamma_shape_ml", optional(f.gamma_shape)},
          {"gamma_out_of_range", f.gamma_out_of_range},
          {"factor_variance_moments", optional(f.moments_factor_variance)},
          {"lognormal_sigma_moments", optional(f.lognormal_sigma)},
          {"poisson", histogram_json(f.poisson)},
          {"gamma", f.gamma ? histogram_json(*f.gamma) : nlohmann::json(nullptr)}};
}

std::string format_node_rate_fit(const NodeRateFit& f, const std::string& repair) {
  std::string out = fmt::format(
      "nodes' rates ({} nodes over {:.2f} days): {:.3f} faults per node, variance {:.3f}; "
      "{:.4g} per node-day (a mean lifetime of {:.4g} days)\n",
      f.nodes, f.span_days, f.mean_count, f.variance, f.rate_per_node_day,
      1.0 / f.rate_per_node_day);
  out += fmt::format(
      "  dispersion index (variance / mean; 1 for equal nodes): {:.3f}, p = {:.3g} under equal "
      "rates\n",
      f.dispersion, f.dispersion_p_value);
  out += "  one rate for every node (Poisson):\n" + histogram_lines(f.poisson);
  if (f.gamma_out_of_range) {
    out += fmt::format(
        "  gamma-distributed rates: the shape's maximum likelihood lies below {:g} (no fit)\n",
        GAMMA_SHAPE_MIN);
    return out;
  }
  if (!f.gamma_shape) {
    out += "  no over-dispersion: equal rates fit best (no gamma or lognormal spread)\n";
    return out;
  }
  out += fmt::format(
      "  gamma-distributed rates (negative binomial, maximum likelihood): shape {:.4g} (rate "
      "factors of mean 1, variance {:.4g})\n",
      *f.gamma_shape, 1.0 / *f.gamma_shape);
  out += histogram_lines(*f.gamma);
  if (f.lognormal_sigma) {
    out += fmt::format(
        "  method of moments: factors' variance {:.4g} (gamma shape {:.4g}); lognormal sigma "
        "{:.4g}\n",
        *f.moments_factor_variance, 1.0 / *f.moments_factor_variance, *f.lognormal_sigma);
  }
  out += "scenario (failures.stochastic entry; the lifetime is the nodes' mean):\n";
  out += fmt::format(
      "  {{\"target\": \"node\", \"lifetime\": {{\"distribution\": \"exponential\", \"mean\": "
      "\"{:.4g}d\"}},\n   \"repair\": {},\n   \"heterogeneity\": {{\"spread\": "
      "{{\"distribution\": \"gamma\", \"shape\": {:.4g}}}}}}}\n",
      1.0 / f.rate_per_node_day, repair.empty() ? "<a repair distribution>" : repair,
      *f.gamma_shape);
  if (f.lognormal_sigma) {
    out += fmt::format(
        "  or \"heterogeneity\": {{\"spread\": {{\"distribution\": \"lognormal\", \"sigma\": "
        "{:.4g}}}}}\n",
        *f.lognormal_sigma);
  }
  return out;
}

}  // namespace failsim::analysis
