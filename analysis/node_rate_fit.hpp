// How unequal the nodes of a fault log are (`failsim trace fit`, docs/cluster.md "Heterogeneous
// nodes"): each node's fault count over the log's span, fitted to a Poisson of one rate for
// every node and to a gamma-Poisson mixture (each node's rate a gamma of mean the cluster's, its
// count negative binomial) by maximum likelihood, a lognormal spread by the method of moments,
// and how well each fits. What failures.stochastic[i].heterogeneity.spread takes. Engine-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace failsim::analysis {

/// Observed against expected nodes with each fault count, in bins pooled until each expects at
/// least 5 nodes, and Pearson's chi-square over them.
struct CountHistogram {
  std::vector<std::size_t> from;  ///< each bin's lowest count (the last bin is open above)
  std::vector<double> observed;   ///< nodes
  std::vector<double> expected;   ///< nodes
  double chi_square = 0.0;
  int degrees_of_freedom = 0;  ///< bins - 1 - fitted parameters (< 1: no test)
  double p_value = 0.0;        ///< of the chi-square (NaN without a test)
};

/// The gamma shapes the fit looks among (rate factors' variance from 1e8 down to 1e-8).
constexpr double GAMMA_SHAPE_MIN = 1e-8;
constexpr double GAMMA_SHAPE_MAX = 1e8;

struct NodeRateFit {
  std::size_t nodes = 0;    ///< counted: the trace's and the nodes that never failed
  double span_days = 0.0;   ///< each node's exposure
  double mean_count = 0.0;  ///< faults per node
  double variance = 0.0;    ///< of the counts (divisor nodes - 1)
  double rate_per_node_day = 0.0;
  /// variance / mean: 1 for equal nodes (Poisson), above 1 when rates differ; its test:
  /// (nodes - 1) D is chi-square of nodes - 1 degrees of freedom under equal rates.
  double dispersion = 0.0;
  double dispersion_p_value = 0.0;
  /// The gamma's shape a by maximum likelihood of the negative binomial (rate factors of mean 1,
  /// variance 1/a); none when the counts are not over-dispersed (variance <= mean: the
  /// likelihood grows without bound in a, equal nodes fit best) or hardly (a above
  /// GAMMA_SHAPE_MAX).
  std::optional<double> gamma_shape;
  /// Over-dispersed, but the score's root lies below GAMMA_SHAPE_MIN (an absurd count of
  /// nodes): no gamma fit, said so rather than clamped. A root above GAMMA_SHAPE_MAX (factors'
  /// variance below 1e-8) counts as equal rates.
  bool gamma_out_of_range = false;
  /// Method of moments: the rate factors' variance (variance - mean) / mean^2, the gamma's shape
  /// its inverse and the lognormal's sigma sqrt(ln(1 + it)); none when not over-dispersed.
  std::optional<double> moments_factor_variance;
  std::optional<double> lognormal_sigma;
  CountHistogram poisson;               ///< one rate for every node (1 parameter)
  std::optional<CountHistogram> gamma;  ///< the negative binomial fit (2 parameters)
};

/// Fits `counts` (faults per node, every node observed over `span_days`) and `faultless` more
/// nodes without a fault (a trace names only the nodes that failed: they are counted, not
/// stored, so any --nodes fits in memory); at least 2 nodes and a fault (std::invalid_argument
/// otherwise).
NodeRateFit fit_node_rates(const std::vector<std::size_t>& counts, double span_days,
                           std::size_t faultless = 0);
/// The negative binomial's profile score in its shape a at mean `mean` over `nodes` nodes, the
/// others of `counts` with no fault (zero at the estimate): sum over nodes and j < count of
/// 1 / (a + j), plus nodes x ln(a / (a + mean)).
double negative_binomial_score(const std::vector<std::size_t>& counts, double nodes, double mean,
                               double a);
/// P(chi-square of `df` degrees of freedom > x): the regularised upper incomplete gamma
/// Q(df / 2, x / 2) (series below x / 2 < df / 2 + 1, continued fraction above).
double chi_square_tail(double x, double df);

nlohmann::json to_json(const NodeRateFit& fit);
/// The report's lines, with the scenario snippet to paste; `repair` is its repair's JSON (a
/// trace's fitted repairs), or "" for a placeholder.
std::string format_node_rate_fit(const NodeRateFit& fit, const std::string& repair = "");

}  // namespace failsim::analysis
