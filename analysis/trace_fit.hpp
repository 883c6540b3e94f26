// What a per-node fault log says about failures (`failsim trace fit`, docs/failures.md "Fitting
// a fault trace"): the per-node MTBF, Weibull fits of the times between faults by maximum
// likelihood with 95% confidence intervals, the repair-time distribution and the faults that hit
// several nodes at once. Engine-free and model-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/node_rate_fit.hpp"
#include "input/fault_trace.hpp"

namespace failsim::analysis {

/// A Weibull distribution fitted by maximum likelihood: density
///   f(x) = (k / lambda) (x / lambda)^(k-1) exp(-(x / lambda)^k).
/// The shape k solves the profile likelihood equation
///   g(k) = sum x^k ln x / sum x^k - 1/k - mean(ln x) = 0
/// (g increases with k: bracketing and bisection, then Newton), and lambda = (mean x^k)^(1/k).
/// The 95% intervals are Wald intervals on the log scale, k exp(+-1.96 se(k)/k), with the
/// standard errors from the inverse of the observed Fisher information at the estimate.
struct WeibullFit {
  std::size_t n = 0;
  double shape = 0.0;
  double scale = 0.0;
  double shape_se = 0.0;
  double scale_se = 0.0;
  double shape_lo = 0.0, shape_hi = 0.0;  ///< 95% interval
  double scale_lo = 0.0, scale_hi = 0.0;  ///< 95% interval
  double mean = 0.0;                      ///< lambda Gamma(1 + 1/k)
};

/// The fit of `x` (every value > 0, at least 2 values not all equal; std::invalid_argument
/// otherwise).
WeibullFit fit_weibull(const std::vector<double>& x);
/// The maximum-likelihood scale for a given shape: (mean x^k)^(1/k) (the sample mean for k = 1).
double weibull_scale(const std::vector<double>& x, double shape);
/// g(k) of the profile likelihood equation above (zero at the estimate).
double weibull_profile_equation(const std::vector<double>& x, double shape);

/// A lognormal fitted by maximum likelihood: mu and sigma are the mean and the standard
/// deviation (divisor n) of ln x.
struct LognormalFit {
  double mu = 0.0;
  double sigma = 0.0;
  double median = 0.0;  ///< exp(mu)
  double mean = 0.0;    ///< exp(mu + sigma^2 / 2)
};
LognormalFit fit_lognormal(const std::vector<double>& x);

/// The p-quantile by linear interpolation between order statistics (type 7 of Hyndman & Fan,
/// numpy's default). `x` non-empty, p in [0, 1].
double quantile(std::vector<double> x, double p);

struct TraceFit {
  std::size_t trace_nodes = 0;  ///< nodes the trace names (only nodes that failed)
  std::size_t nodes = 0;        ///< nodes counted: --nodes, else trace_nodes
  bool nodes_given = false;
  double span_days = 0.0;  ///< from day 0 to the last event
  std::size_t faults = 0;
  std::size_t repaired = 0;
  /// Hours from the first fault start to the last over the faults less one: the mean time
  /// between fault starts across the cluster.
  double cluster_mtbf_hours = 0.0;
  double node_mtbf_hours = 0.0;  ///< nodes x span / faults
  /// Hours between successive distinct fault-start instants across the cluster (simultaneous
  /// faults are one instant: a gap of 0 has no Weibull likelihood).
  WeibullFit between_instants;
  /// Hours between successive fault starts of one node, over every node that failed twice (none
  /// when fewer than 2 such gaps, or all equal: no Weibull fit exists).
  std::optional<WeibullFit> per_node;
  std::size_t repairs_zero = 0;  ///< repairs of 0 h (left out of the repair fits)
  double repair_median = 0.0, repair_mean = 0.0, repair_p90 = 0.0, repair_p99 = 0.0,
         repair_max = 0.0;  ///< hours
  /// Fits of the repairs of more than 0 h (none when fewer than 2, or all equal).
  std::optional<WeibullFit> repair_weibull;
  std::optional<LognormalFit> repair_lognormal;
  std::size_t instants = 0;               ///< distinct fault-start times
  std::size_t simultaneous_instants = 0;  ///< instants where 2 or more nodes fail
  std::size_t simultaneous_faults = 0;    ///< faults in them
  std::size_t max_nodes_at_once = 0;
  /// Each node's faults over the span fitted to equal and to gamma-spread rates (the nodes
  /// counted less the trace's fault none); none below 2 nodes.
  std::optional<NodeRateFit> node_rates;
};

/// Fits `trace`; `nodes` counts the cluster's nodes (a trace lists only nodes that failed).
TraceFit fit_trace(const input::FaultTrace& trace, std::optional<std::size_t> nodes);
nlohmann::json to_json(const TraceFit& fit);
/// The report `failsim trace fit` prints.
std::string format_trace_fit(const TraceFit& fit, const std::string& file);

}  // namespace failsim::analysis
