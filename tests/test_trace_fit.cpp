// Fitting a fault trace (analysis/trace_fit.hpp): the Weibull maximum-likelihood estimate against
// samples of known shape and scale (fixed seeds), its standard error against the asymptotic
// 6 k^2 / (pi^2 n), the closed form at shape 1, the lognormal fit, quantiles, and a small trace
// counted by hand. Engine-free.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/node_rate_fit.hpp"
#include "analysis/trace_fit.hpp"
#include "input/fault_trace.hpp"

using failsim::analysis::fit_weibull;
using failsim::analysis::WeibullFit;

namespace {

std::vector<double> weibull_sample(double shape, double scale, std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x;
  // Inversion: F(x) = 1 - exp(-(x / scale)^shape).
  for (std::size_t i = 0; i < n; ++i)
    x.push_back(scale * std::pow(-std::log1p(-u(gen)), 1.0 / shape));
  return x;
}

}  // namespace

TEST_CASE("the Weibull fit recovers a known shape and scale within its interval", "[trace_fit]") {
  for (const double shape : {0.6, 1.0, 2.5}) {
    INFO("shape " << shape);
    const std::size_t n = 20000;
    const std::vector<double> x = weibull_sample(shape, 1000.0, n, 17);
    const WeibullFit f = fit_weibull(x);
    CHECK(f.n == n);
    CHECK(f.shape_lo < shape);
    CHECK(shape < f.shape_hi);
    CHECK(f.scale_lo < 1000.0);
    CHECK(1000.0 < f.scale_hi);
    // The estimate solves the profile likelihood equation.
    CHECK(std::abs(failsim::analysis::weibull_profile_equation(x, f.shape)) < 1e-9);
    // The asymptotic variance of the shape estimate is 6 k^2 / (pi^2 n), whatever the scale.
    const double se = std::sqrt(6.0 / (M_PI * M_PI * static_cast<double>(n))) * f.shape;
    CHECK(f.shape_se == Approx(se).epsilon(0.05));
    CHECK(f.mean == Approx(1000.0 * std::tgamma(1.0 + 1.0 / shape)).epsilon(0.03));
  }
}

TEST_CASE("an exponential sample fits shape 1, and at shape 1 the scale is the mean",
          "[trace_fit]") {
  std::mt19937_64 gen(5);
  std::exponential_distribution<double> e(1.0 / 50.0);
  std::vector<double> x;
  for (int i = 0; i < 5000; ++i) x.push_back(e(gen));
  const WeibullFit f = fit_weibull(x);
  CHECK(f.shape_lo < 1.0);
  CHECK(1.0 < f.shape_hi);
  CHECK(f.shape == Approx(1.0).margin(0.05));
  double mean = 0.0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  CHECK(failsim::analysis::weibull_scale(x, 1.0) == Approx(mean).epsilon(1e-12));
  CHECK_THROWS_AS(fit_weibull({1.0, 1.0}), std::invalid_argument);
  CHECK_THROWS_AS(fit_weibull({1.0, 0.0, 2.0}), std::invalid_argument);
}

TEST_CASE("the lognormal fit and quantiles", "[trace_fit]") {
  const auto f = failsim::analysis::fit_lognormal({1.0, std::exp(2.0)});
  CHECK(f.mu == Approx(1.0));
  CHECK(f.sigma == Approx(1.0));
  CHECK(f.median == Approx(std::exp(1.0)));
  CHECK(f.mean == Approx(std::exp(1.5)));
  CHECK(failsim::analysis::quantile({4.0, 1.0, 3.0, 2.0}, 0.5) == Approx(2.5));
  CHECK(failsim::analysis::quantile({4.0, 1.0, 3.0, 2.0}, 0.9) == Approx(3.7));
}

TEST_CASE("a small trace counted by hand", "[trace_fit]") {
  // Node a fails at days 1 and 3, b with a at day 1 and again at 6; repairs of 0.5, 1, 2, 0 days.
  failsim::input::FaultTrace t;
  t.nodes = {"a", "b"};
  t.faults = {{0, 1.0, 1.5, "H", "GPU", "x", 0},
              {1, 1.0, 2.0, "H", "GPU", "x", 1},
              {0, 3.0, 5.0, "H", "GPU", "x", 3},
              {1, 6.0, 6.0, "H", "GPU", "x", 6}};
  t.first_event = 1.0;
  t.last_event = 8.0;
  const auto f = failsim::analysis::fit_trace(t, 10);
  CHECK(f.faults == 4);
  CHECK(f.cluster_mtbf_hours == Approx(5.0 * 24.0 / 3.0));  // day 1 to day 6 over 3 gaps
  CHECK(f.node_mtbf_hours == Approx(10.0 * 8.0 * 24.0 / 4.0));
  CHECK(f.instants == 3);
  CHECK(f.simultaneous_instants == 1);
  CHECK(f.simultaneous_faults == 2);
  CHECK(f.max_nodes_at_once == 2);
  CHECK(f.between_instants.n == 2);  // 48 h and 72 h
  REQUIRE(f.per_node);
  CHECK(f.per_node->n == 2);  // a: 48 h, b: 120 h
  CHECK(f.repairs_zero == 1);
  CHECK(f.repair_median == Approx(0.75 * 24.0));
  CHECK(f.repair_mean == Approx(3.5 / 4.0 * 24.0));
  CHECK(f.repair_max == Approx(48.0));
}

TEST_CASE("a trace too small or too regular to fit says what it expected and found",
          "[trace_fit]") {
  failsim::input::FaultTrace t;
  t.nodes = {"a", "b"};
  t.faults = {{0, 1.0, 1.5, "H", "GPU", "x", 0}, {1, 2.0, 2.5, "H", "GPU", "x", 1}};
  t.last_event = 3.0;
  const auto message = [&] {
    try {
      failsim::analysis::fit_trace(t, std::nullopt);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message() == "expected a trace of at least 3 faults (2 gaps between them to fit), found 2");
  // Three instants one day apart: the gaps are all equal, and a Weibull fit has no answer.
  t.faults.push_back({0, 3.0, 3.5, "H", "GPU", "x", 2});
  CHECK(message() ==
        "expected faults at 3 or more distinct instants, not all equally spaced, whose gaps are "
        "finite in hours (a Weibull fit of the times between instants), found 3 instant(s), every "
        "gap 24 h");
  // Unequal gaps fit; the repairs, all 12 h, and node a's one gap have no fit of their own.
  t.faults.back().start = 4.0;
  t.faults.back().end = 4.5;
  const auto f = failsim::analysis::fit_trace(t, std::nullopt);
  CHECK(f.between_instants.n == 2);
  CHECK_FALSE(f.per_node);
  CHECK_FALSE(f.repair_weibull);
  CHECK_FALSE(f.repair_lognormal);
}

// The nodes' rates (analysis/node_rate_fit.hpp): synthetic logs whose answer is known by
// construction, the score and the chi-square tail by hand, and the shipped trace.

TEST_CASE("the chi-square tail has its tabled values", "[trace_fit][node_rates]") {
  using failsim::analysis::chi_square_tail;
  // The 5% critical values of 1 and 10 degrees of freedom; 2 degrees: exactly e^(-x/2).
  CHECK(chi_square_tail(3.841459, 1.0) == Approx(0.05).epsilon(1e-5));
  CHECK(chi_square_tail(18.307038, 10.0) == Approx(0.05).epsilon(1e-5));
  CHECK(chi_square_tail(6.0, 2.0) == Approx(std::exp(-3.0)).epsilon(1e-10));
  CHECK(chi_square_tail(0.5, 2.0) == Approx(std::exp(-0.25)).epsilon(1e-10));
}

TEST_CASE("equal nodes: dispersion 1 or below, and no spread", "[trace_fit][node_rates]") {
  using failsim::analysis::fit_node_rates;
  // Every node with 3 faults: variance 0, no over-dispersion.
  const auto equal = fit_node_rates(std::vector<std::size_t>(50, 3), 10.0);
  CHECK(equal.dispersion == 0.0);
  CHECK(equal.rate_per_node_day == Approx(0.3));
  CHECK_FALSE(equal.gamma_shape);
  CHECK_FALSE(equal.lognormal_sigma);
  CHECK_THAT(failsim::analysis::format_node_rate_fit(equal),
             Catch::Contains("no over-dispersion: equal rates fit best"));
  // 3000 nodes of one rate (Poisson of mean 5): the dispersion index is within 4 of its standard
  // deviations, sqrt(2 / 2999) = 0.026, of 1; a gamma fit, if any, is nearly flat (factors'
  // variance below 0.03), and the Poisson histogram fits.
  std::mt19937_64 gen(23);
  std::poisson_distribution<std::size_t> poisson(5.0);
  std::vector<std::size_t> counts(3000);
  for (std::size_t& c : counts) c = poisson(gen);
  const auto f = fit_node_rates(counts, 100.0);
  CHECK(f.dispersion == Approx(1.0).margin(4.0 * 0.026));
  if (f.gamma_shape) CHECK(1.0 / *f.gamma_shape < 0.03);
  CHECK(f.poisson.p_value > 0.001);
  double observed = 0.0, expected = 0.0;
  for (std::size_t b = 0; b < f.poisson.from.size(); ++b) {
    observed += f.poisson.observed[b];
    expected += f.poisson.expected[b];
    CHECK(f.poisson.expected[b] >= 5.0);
  }
  CHECK(observed == 3000.0);
  CHECK(expected == Approx(3000.0));
}

TEST_CASE("gamma-spread nodes: the negative binomial recovers the shape",
          "[trace_fit][node_rates]") {
  using failsim::analysis::fit_node_rates;
  using failsim::analysis::negative_binomial_score;
  // By hand: counts {0, 0, 4}, mean 4/3; at a = 1 the score is 3 ln(3/7) + 1 + 1/2 + 1/3 + 1/4
  // = -0.458561.
  const std::vector<std::size_t> small{0, 0, 4};
  CHECK(negative_binomial_score(small, 3.0, 4.0 / 3.0, 1.0) == Approx(-0.458561).epsilon(1e-5));
  // The same nodes, the faultless ones counted rather than listed: the same fit.
  const auto listed = fit_node_rates({0, 0, 0, 4, 2}, 1.0);
  const auto counted = fit_node_rates({4, 2}, 1.0, 3);
  CHECK(counted.variance == Approx(listed.variance));
  CHECK(*counted.gamma_shape == Approx(*listed.gamma_shape));
  CHECK(counted.gamma->chi_square == Approx(listed.gamma->chi_square));
  // 2^62 nodes, 3 of them failing: a spread beyond the shapes the fit looks among, said so (as
  // `failsim trace fit --nodes 9223372036854775808` would), not clamped to 1e-8.
  const auto absurd = fit_node_rates({3, 1, 2}, 100.0, std::size_t{1} << 62);
  CHECK(absurd.gamma_out_of_range);
  CHECK_FALSE(absurd.gamma_shape);
  CHECK_THAT(failsim::analysis::format_node_rate_fit(absurd),
             Catch::Contains("the shape's maximum likelihood lies below 1e-08 (no fit)"));
  const auto s = fit_node_rates(small, 1.0);
  REQUIRE(s.gamma_shape);
  CHECK(negative_binomial_score(small, 3.0, 4.0 / 3.0, *s.gamma_shape) == Approx(0.0).margin(1e-9));
  // 5000 nodes, each of a gamma rate of shape 2 and mean 4 faults over the span: the fit finds
  // a shape near 2 (its standard error about 0.1), a dispersion of 1 + 4 / 2 = 3, the gamma
  // histogram fits and the Poisson does not.
  std::mt19937_64 gen(29);
  std::gamma_distribution<double> rate(2.0, 2.0);
  std::vector<std::size_t> counts(5000);
  for (std::size_t& c : counts) c = std::poisson_distribution<std::size_t>(rate(gen))(gen);
  const auto f = fit_node_rates(counts, 30.0);
  REQUIRE(f.gamma_shape);
  CHECK(*f.gamma_shape == Approx(2.0).margin(0.3));
  CHECK(f.dispersion == Approx(3.0).margin(0.25));
  CHECK(f.dispersion_p_value < 1e-10);
  REQUIRE(f.gamma);
  CHECK(f.gamma->p_value > 0.001);
  CHECK(f.poisson.p_value < 1e-10);
  // The moments: factors' variance (var - mean) / mean^2 = 1/2, lognormal sigma sqrt(ln 1.5).
  CHECK(*f.moments_factor_variance == Approx(0.5).margin(0.07));
  CHECK(*f.lognormal_sigma == Approx(std::sqrt(std::log(1.5))).margin(0.05));
  CHECK_THAT(failsim::analysis::format_node_rate_fit(f),
             Catch::Contains("\"heterogeneity\": {\"spread\": {\"distribution\": \"gamma\""));
}

TEST_CASE("the shipped InfiniteHBD trace's nodes are over-dispersed", "[trace_fit][node_rates]") {
  const auto trace = failsim::input::read_fault_trace(
      FAILSIM_SOURCE_DIR "/data/traces/infinitehbd/fault_trace.json", "fault_trace.json");
  const auto f = failsim::analysis::fit_trace(trace, 400);
  REQUIRE(f.node_rates);
  CHECK(f.node_rates->nodes == 400);
  // The figures docs/cluster.md quotes ("Heterogeneous nodes").
  CHECK(f.node_rates->dispersion > 1.5);
  REQUIRE(f.node_rates->gamma_shape);
}
