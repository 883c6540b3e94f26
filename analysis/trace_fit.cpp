// Fitting a fault trace (trace_fit.hpp).
#include "analysis/trace_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/stats.hpp"

namespace failsim::analysis {
namespace {

constexpr double HOURS_PER_DAY = 24.0;

/// sum x^k and sum x^k ln x, each divided by max(x)^k (no overflow for any k).
struct PowerSums {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;  // sum w, sum w ln x, sum w (ln x)^2
  double log_max = 0.0;
};

PowerSums power_sums(const std::vector<double>& logs, double k) {
  PowerSums p;
  p.log_max = *std::max_element(logs.begin(), logs.end());
  for (double l : logs) {
    const double w = std::exp(k * (l - p.log_max));
    p.s0 += w;
    p.s1 += w * l;
    p.s2 += w * l * l;
  }
  return p;
}

std::vector<double> logs_of(const std::vector<double>& x) {
  std::vector<double> logs;
  for (double v : x) {
    if (!(v > 0.0) || !std::isfinite(v)) {
      throw std::invalid_argument(fmt::format("a Weibull fit needs values > 0, found {}", v));
    }
    logs.push_back(std::log(v));
  }
  return logs;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double profile(const std::vector<double>& logs, double mean_log, double k) {
  const PowerSums p = power_sums(logs, k);
  return p.s1 / p.s0 - 1.0 / k - mean_log;
}

}  // namespace

double weibull_profile_equation(const std::vector<double>& x, double shape) {
  const std::vector<double> logs = logs_of(x);
  return profile(logs, mean_of(logs), shape);
}

double weibull_scale(const std::vector<double>& x, double shape) {
  const std::vector<double> logs = logs_of(x);
  const PowerSums p = power_sums(logs, shape);
  return std::exp(p.log_max + std::log(p.s0 / static_cast<double>(x.size())) / shape);
}

WeibullFit fit_weibull(const std::vector<double>& x) {
  const std::vector<double> logs = logs_of(x);
  if (x.size() < 2 ||
      *std::max_element(logs.begin(), logs.end()) == *std::min_element(logs.begin(), logs.end())) {
    throw std::invalid_argument("a Weibull fit needs at least 2 values, not all equal");
  }
  const double mean_log = mean_of(logs);
  // g(k) -> -inf as k -> 0 and -> max ln x - mean ln x > 0 as k -> inf, increasing: bracket it.
  double lo = 1.0, hi = 1.0;
  while (profile(logs, mean_log, lo) > 0.0) lo /= 2.0;
  while (profile(logs, mean_log, hi) < 0.0) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (profile(logs, mean_log, mid) < 0.0 ? lo : hi) = mid;
  }
  double k = 0.5 * (lo + hi);
  // Newton polish: g'(k) = Var_w(ln x) + 1/k^2 with weights x^k.
  for (int i = 0; i < 3; ++i) {
    const PowerSums p = power_sums(logs, k);
    const double m1 = p.s1 / p.s0;
    const double g = m1 - 1.0 / k - mean_log;
    const double dg = p.s2 / p.s0 - m1 * m1 + 1.0 / (k * k);
    const double next = k - g / dg;
    if (next > lo && next < hi) k = next;
  }
  WeibullFit f;
  f.n = x.size();
  f.shape = k;
  f.scale = weibull_scale(x, k);
  // Observed information at the estimate (sum z^k = n there), z = x / lambda:
  //   I_kk = n/k^2 + sum z^k (ln z)^2,  I_ll = n k^2 / lambda^2,
  //   I_kl = -(k / lambda) sum z^k ln z.
  const double n = static_cast<double>(x.size());
  double a = 0.0, b = 0.0;
  for (double l : logs) {
    const double lz = l - std::log(f.scale);
    const double zk = std::exp(k * lz);
    a += zk * lz * lz;
    b += zk * lz;
  }
  const double i_kk = n / (k * k) + a;
  const double i_ll = n * k * k / (f.scale * f.scale);
  const double i_kl = -(k / f.scale) * b;
  const double det = i_kk * i_ll - i_kl * i_kl;
  f.shape_se = std::sqrt(i_ll / det);
  f.scale_se = std::sqrt(i_kk / det);
  f.shape_lo = k * std::exp(-Z_975 * f.shape_se / k);
  f.shape_hi = k * std::exp(Z_975 * f.shape_se / k);
  f.scale_lo = f.scale * std::exp(-Z_975 * f.scale_se / f.scale);
  f.scale_hi = f.scale * std::exp(Z_975 * f.scale_se / f.scale);
  f.mean = f.scale * std::tgamma(1.0 + 1.0 / k);
  return f;
}

LognormalFit fit_lognormal(const std::vector<double>& x) {
  const std::vector<double> logs = logs_of(x);
  LognormalFit f;
  f.mu = mean_of(logs);
  double ss = 0.0;
  for (double l : logs) ss += (l - f.mu) * (l - f.mu);
  f.sigma = std::sqrt(ss / static_cast<double>(logs.size()));
  f.median = std::exp(f.mu);
  f.mean = std::exp(f.mu + 0.5 * f.sigma * f.sigma);
  return f;
}

double quantile(std::vector<double> x, double p) {
  if (x.empty() || !(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("quantile of nothing");
  std::sort(x.begin(), x.end());
  const double h = p * static_cast<double>(x.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= x.size()) return x.back();
  return x[i] + (h - static_cast<double>(i)) * (x[i + 1] - x[i]);
}

namespace {
/// Whether fit_weibull() has an answer for `x`: at least 2 finite values > 0 whose logarithms
/// are not all equal (gaps of 1e-300 h that differ can have one logarithm).
bool fittable(const std::vector<double>& x) {
  const auto usable = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (x.size() < 2 || !std::all_of(x.begin(), x.end(), usable)) return false;
  const double first = std::log(x.front());
  return std::any_of(x.begin(), x.end(), [&](double v) { return std::log(v) != first; });
}
}  // namespace

TraceFit fit_trace(const input::FaultTrace& trace, std::optional<std::size_t> nodes) {
  TraceFit f;
  f.trace_nodes = trace.nodes.size();
  f.nodes_given = nodes.has_value();
  f.nodes = nodes.value_or(trace.nodes.size());
  f.span_days = trace.last_event;
  f.faults = trace.faults.size();
  if (f.faults < 3) {
    throw std::invalid_argument(fmt::format(
        "expected a trace of at least 3 faults (2 gaps between them to fit), found {}", f.faults));
  }

  std::map<double, std::size_t> at_instant;  // fault starts per distinct time (days)
  std::vector<std::vector<double>> starts_of(trace.nodes.size());
  std::vector<double> repairs;
  for (const input::TraceFault& fault : trace.faults) {
    ++at_instant[fault.start];
    starts_of[fault.node].push_back(fault.start);
    if (!fault.end) continue;
    ++f.repaired;
    repairs.push_back((*fault.end - fault.start) * HOURS_PER_DAY);
  }
  const double first = trace.faults.front().start;
  const double last = trace.faults.back().start;
  f.cluster_mtbf_hours = (last - first) * HOURS_PER_DAY / static_cast<double>(f.faults - 1);
  f.node_mtbf_hours =
      static_cast<double>(f.nodes) * f.span_days * HOURS_PER_DAY / static_cast<double>(f.faults);

  std::vector<double> gaps;
  double previous = -1.0;
  for (const auto& [day, count] : at_instant) {
    if (previous >= 0.0) gaps.push_back((day - previous) * HOURS_PER_DAY);
    previous = day;
    ++f.instants;
    if (count < 2) continue;
    ++f.simultaneous_instants;
    f.simultaneous_faults += count;
    f.max_nodes_at_once = std::max(f.max_nodes_at_once, count);
  }
  if (!fittable(gaps)) {
    throw std::invalid_argument(fmt::format(
        "expected faults at 3 or more distinct instants, not all equally spaced, whose gaps are "
        "finite in hours (a Weibull fit of the times between instants), found {} instant(s){}",
        f.instants, gaps.empty() ? "" : fmt::format(", every gap {} h", gaps.front())));
  }
  f.between_instants = fit_weibull(gaps);

  std::vector<double> node_gaps;
  for (const auto& starts : starts_of) {
    for (std::size_t i = 1; i < starts.size(); ++i) {
      if (starts[i] > starts[i - 1])
        node_gaps.push_back((starts[i] - starts[i - 1]) * HOURS_PER_DAY);
    }
  }
  if (fittable(node_gaps)) f.per_node = fit_weibull(node_gaps);

  // Faults per node: the trace's nodes, and the counted nodes it never names, with none.
  std::vector<std::size_t> counts;
  for (const auto& starts : starts_of) counts.push_back(starts.size());
  if (f.nodes >= 2 && f.span_days > 0.0)
    f.node_rates = fit_node_rates(counts, f.span_days, f.nodes - f.trace_nodes);

  if (!repairs.empty()) {
    f.repair_median = quantile(repairs, 0.5);
    f.repair_mean = mean_of(repairs);
    f.repair_p90 = quantile(repairs, 0.9);
    f.repair_p99 = quantile(repairs, 0.99);
    f.repair_max = *std::max_element(repairs.begin(), repairs.end());
    std::vector<double> positive;
    for (double r : repairs) (r > 0.0 ? positive.push_back(r) : void(++f.repairs_zero));
    if (fittable(positive)) {
      f.repair_weibull = fit_weibull(positive);
      f.repair_lognormal = fit_lognormal(positive);
    }
  }
  return f;
}

namespace {
nlohmann::json weibull_json(const WeibullFit& w) {
  return {{"n", w.n},
          {"shape", w.shape},
          {"shape_ci95", {w.shape_lo, w.shape_hi}},
          {"scale_hours", w.scale},
          {"scale_ci95_hours", {w.scale_lo, w.scale_hi}},
          {"mean_hours", w.mean}};
}
std::string weibull_line(const WeibullFit& w) {
  return fmt::format(
      "shape {:.3f} [{:.3f}, {:.3f}], scale {:.2f} h [{:.2f}, {:.2f}] (n = {}, "
      "mean {:.2f} h)",
      w.shape, w.shape_lo, w.shape_hi, w.scale, w.scale_lo, w.scale_hi, w.n, w.mean);
}
}  // namespace

nlohmann::json to_json(const TraceFit& f) {
  nlohmann::json out{
      {"trace_nodes", f.trace_nodes},
      {"nodes", f.nodes},
      {"nodes_given", f.nodes_given},
      {"span_days", f.span_days},
      {"faults", f.faults},
      {"repaired", f.repaired},
      {"cluster_mtbf_hours", f.cluster_mtbf_hours},
      {"node_mtbf_hours", f.node_mtbf_hours},
      {"between_instants_weibull", weibull_json(f.between_instants)},
      {"per_node_weibull", f.per_node ? weibull_json(*f.per_node) : nlohmann::json(nullptr)},
      {"repair_hours",
       {{"median", f.repair_median},
        {"mean", f.repair_mean},
        {"p90", f.repair_p90},
        {"p99", f.repair_p99},
        {"max", f.repair_max},
        {"zero", f.repairs_zero}}},
      {"repair_weibull", f.repair_weibull ? weibull_json(*f.repair_weibull) : nlohmann::json()},
      {"repair_lognormal", f.repair_lognormal
                               ? nlohmann::json{{"mu", f.repair_lognormal->mu},
                                                {"sigma", f.repair_lognormal->sigma},
                                                {"median_hours", f.repair_lognormal->median},
                                                {"mean_hours", f.repair_lognormal->mean}}
                               : nlohmann::json()},
      {"instants", f.instants},
      {"simultaneous_instants", f.simultaneous_instants},
      {"simultaneous_faults", f.simultaneous_faults},
      {"simultaneous_fraction",
       static_cast<double>(f.simultaneous_faults) / static_cast<double>(f.faults)},
      {"max_nodes_at_once", f.max_nodes_at_once}};
  out["node_rates"] = f.node_rates ? to_json(*f.node_rates) : nlohmann::json(nullptr);
  return out;
}

std::string format_trace_fit(const TraceFit& f, const std::string& file) {
  std::string out = fmt::format("trace: {}\n", file);
  out += fmt::format(
      "nodes: {} in the trace (only nodes that failed); {} counted{}\n", f.trace_nodes, f.nodes,
      f.nodes_given ? " (--nodes)" : " (the trace's: give the cluster's with --nodes N)");
  out += fmt::format("span: {:.2f} days (day 0 to the last event)\n", f.span_days);
  out += fmt::format("faults: {} ({} repaired, {} never)\n", f.faults, f.repaired,
                     f.faults - f.repaired);
  out += fmt::format("mean time between fault starts (cluster): {:.2f} h\n", f.cluster_mtbf_hours);
  out += fmt::format("per-node MTBF ({} nodes x span / faults): {:.0f} h = {:.1f} days\n", f.nodes,
                     f.node_mtbf_hours, f.node_mtbf_hours / HOURS_PER_DAY);
  out += "Weibull by maximum likelihood, 95% intervals (observed information, log scale):\n";
  out += fmt::format("  between distinct fault instants (cluster): {}\n",
                     weibull_line(f.between_instants));
  if (f.per_node) {
    out += fmt::format("  between faults of one node (pooled): {}\n", weibull_line(*f.per_node));
  }
  out += fmt::format(
      "repair: median {:.1f} h, mean {:.1f} h, p90 {:.1f} h, p99 {:.1f} h, max {:.1f} h{}\n",
      f.repair_median, f.repair_mean, f.repair_p90, f.repair_p99, f.repair_max,
      f.repairs_zero ? fmt::format(" ({} of 0 h, left out of the fits)", f.repairs_zero) : "");
  if (f.repair_lognormal) {
    out += fmt::format("  lognormal: mu {:.3f}, sigma {:.3f} (median {:.1f} h, mean {:.1f} h)\n",
                       f.repair_lognormal->mu, f.repair_lognormal->sigma,
                       f.repair_lognormal->median, f.repair_lognormal->mean);
  }
  if (f.repair_weibull) out += fmt::format("  Weibull: {}\n", weibull_line(*f.repair_weibull));
  out += fmt::format(
      "several nodes at once: {} of {} instants, {} of {} faults ({:.1f}%), up to {} nodes\n",
      f.simultaneous_instants, f.instants, f.simultaneous_faults, f.faults,
      100.0 * static_cast<double>(f.simultaneous_faults) / static_cast<double>(f.faults),
      f.max_nodes_at_once);
  if (f.node_rates) {
    if (!f.nodes_given)
      out += "(the nodes' rates below count only the nodes that failed: give --nodes N)\n";
    // The snippet's repair: the lognormal fit of the repairs, when there is one.
    const std::string repair =
        f.repair_lognormal
            ? fmt::format(R"({{"distribution": "lognormal", "mean": "{:.4g}h", "sigma": {:.4g}}})",
                          f.repair_lognormal->mean, f.repair_lognormal->sigma)
            : "";
    out += format_node_rate_fit(*f.node_rates, repair);
  }
  return out;
}

}  // namespace failsim::analysis
