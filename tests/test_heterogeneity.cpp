// Heterogeneous failure processes (failures.stochastic[i].heterogeneity, docs/cluster.md
// "Heterogeneous nodes"): the bad components' count, the failures a long run counts against the
// rates worked out by hand (with tolerances from the counts' own variance), the spreads' mean of
// 1, ageing, the lifetimes' coupling with the homogeneous run, determinism, and the bad_nodes
// event of a run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "file_text.hpp"
#include "models/rng.hpp"
#include "sim/collective/job/component_rates.hpp"
#include "sim/collective/job/failure_schedule.hpp"
#include "sim/engine/training_math.hpp"
#include "sim_harness.hpp"

using namespace failsim::sim;
using failsim::models::derive_seed;
using failsim::models::Rng;

namespace {

/// `nodes` nodes (no spares) failing with exponential lifetimes of mean 1 s and no repair: a
/// Poisson process of rate m per node of factor m.
ClusterFailureConfig node_failures(const NodeHeterogeneity& h) {
  ClusterFailureConfig f;
  ClusterStochasticFailures p;
  p.target = ClusterTarget::NODE;
  p.lifetime = {DistributionKind::EXPONENTIAL, 1.0, 1.0};
  p.repair = {DistributionKind::FIXED, 0.0, 1.0};
  p.heterogeneity = h;
  f.stochastic = {p};
  return f;
}

ClusterPlatformConfig platform_of(int nodes, int spares = 0) {
  ClusterPlatformConfig p;
  p.nodes = nodes;
  p.spares = spares;
  return p;
}

/// The failures of each node before `horizon`.
std::vector<double> failures_before(FailureSchedule& schedule, int nodes, double horizon) {
  std::vector<double> count(static_cast<std::size_t>(nodes), 0.0);
  while (schedule.next() != nullptr && schedule.next()->at < horizon)
    count[static_cast<std::size_t>(schedule.take().index)] += 1.0;
  return count;
}

double sum(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x;
  return s;
}

}  // namespace

TEST_CASE("a lifetime stretches by the factor and turns at the time the component turns bad",
          "[heterogeneity]") {
  // A lifetime drawn as 10 s from 0 at factor 1, turning bad (k = 3) at 4 s: 4 s at factor 1 use
  // 4 of the 10, the other 6 at factor 3 take 2 s: it ends at 6 s.
  CHECK(lifetime_end(0.0, 10.0, 1.0, 4.0, 3.0) == Approx(6.0));
  CHECK(lifetime_end(5.0, 10.0, 1.0, 4.0, 3.0) == Approx(5.0 + 10.0 / 3.0));
  CHECK(lifetime_end(0.0, 3.0, 1.0, 4.0, 3.0) == Approx(3.0));
  CHECK(lifetime_end(1.0, 8.0, 4.0, INFINITY, 4.0) == Approx(3.0));
}

TEST_CASE("the gamma draws have the gamma's mean and variance", "[heterogeneity]") {
  // Gamma(a, 1): mean a, variance a; below and above shape 1 (the two branches).
  for (const double a : {0.5, 3.0}) {
    INFO(a);
    Rng rng(5);
    const int n = 200000;
    double s = 0.0, s2 = 0.0;
    for (int i = 0; i < n; ++i) {
      const double x = gamma_draw(a, rng);
      s += x;
      s2 += x * x;
    }
    const double mean = s / n;
    // Standard errors: sqrt(a / n) for the mean; the variance within 2%.
    CHECK(mean == Approx(a).margin(4.0 * std::sqrt(a / n)));
    CHECK(s2 / n - mean * mean == Approx(a).epsilon(0.02));
  }
}

TEST_CASE("round(f x N) components are bad, the spares among them", "[heterogeneity]") {
  NodeHeterogeneity h;
  h.bad_fraction = 0.25;
  h.bad_factor = 20.0;
  // 8 nodes and a spare: round(2.25) = 2; 10 nodes: round(2.5) = 3 (halves away from zero).
  CHECK(draw_component_rates(h, 9, 1).bad.size() == 2);
  CHECK(draw_component_rates(h, 10, 1).bad.size() == 3);
  h.bad_fraction = 1.0;
  CHECK(draw_component_rates(h, 7, 1).bad == std::vector<int>{0, 1, 2, 3, 4, 5, 6});
  // Over seeds, every node of 8 + 1 spare is bad about 2/9 of the time: the spare too.
  h.bad_fraction = 0.25;
  std::vector<int> times_bad(9, 0);
  const int seeds = 9000;
  for (int s = 0; s < seeds; ++s)
    for (const int c :
         draw_component_rates(h, 9, derive_seed(3, static_cast<std::uint64_t>(s))).bad)
      ++times_bad[static_cast<std::size_t>(c)];
  for (int c = 0; c < 9; ++c) {
    INFO(c);
    // Binomial(9000, 2/9): standard deviation 39.4.
    CHECK(times_bad[static_cast<std::size_t>(c)] == Approx(2000.0).margin(4.0 * 39.4));
  }
}

TEST_CASE("bad nodes: failures per node-day are base x (1 - f + f k)", "[heterogeneity]") {
  // 100 nodes, f = 0.2, k = 5, rate 1 per second, 1000 s: 100 x 1000 x (0.8 + 1) = 180,000
  // failures expected, a Poisson count of standard deviation 424; the 20 bad nodes' 100,000
  // (sd 316), the 80 good ones' 80,000 (sd 283). Within 4 standard deviations each.
  NodeHeterogeneity h;
  h.bad_fraction = 0.2;
  h.bad_factor = 5.0;
  const ClusterFailureConfig failures = node_failures(h);
  const ClusterPlatformConfig platform = platform_of(100);
  FailureSchedule schedule(failures, platform, 7);
  const ComponentRates& rates = *schedule.component_rates(0);
  REQUIRE(rates.bad.size() == 20);
  const std::vector<double> count = failures_before(schedule, 100, 1000.0);
  double bad = 0.0;
  for (const int c : rates.bad) bad += count[static_cast<std::size_t>(c)];
  CHECK(sum(count) == Approx(180000.0).margin(4.0 * 424.0));
  CHECK(bad == Approx(100000.0).margin(4.0 * 316.0));
  CHECK(sum(count) - bad == Approx(80000.0).margin(4.0 * 283.0));
  CHECK(mean_rate_factor(h, 1000.0) == Approx(1.8));
}

TEST_CASE("a spread of rates keeps the cluster's mean rate", "[heterogeneity]") {
  // 2000 nodes at rate m each for 100 s, m of mean 1 and variance v: the count's mean is
  // 2000 x 100 = 200,000 and its variance 2000 x (100 + 100^2 v) (Poisson given m, plus m's
  // spread): gamma of shape 2 (v = 0.5): sd 3194; lognormal sigma 0.8 (v = e^0.64 - 1 = 0.896):
  // sd 4246.
  struct Case {
    RateSpread spread;
    double parameter, variance;
  };
  for (const Case& c : {Case{RateSpread::GAMMA, 2.0, 0.5},
                        Case{RateSpread::LOGNORMAL, 0.8, std::exp(0.64) - 1.0}}) {
    INFO(c.parameter);
    NodeHeterogeneity h;
    h.spread = c.spread;
    h.spread_parameter = c.parameter;
    const ClusterFailureConfig failures = node_failures(h);
    const ClusterPlatformConfig platform = platform_of(2000);
    FailureSchedule schedule(failures, platform, 9);
    const ComponentRates& rates = *schedule.component_rates(0);
    CHECK(rates.bad.empty());
    const double mean = sum(rates.factor) / 2000.0;
    CHECK(mean == Approx(1.0).margin(4.0 * std::sqrt(c.variance / 2000.0)));
    const double sd = std::sqrt(2000.0 * (100.0 + 1e4 * c.variance));
    CHECK(sum(failures_before(schedule, 2000, 100.0)) == Approx(200000.0).margin(4.0 * sd));
    CHECK(mean_rate_factor(h, 100.0) == 1.0);
  }
}

TEST_CASE("ageing: good nodes turn bad at its rate and fail k times as often after",
          "[heterogeneity]") {
  // 1000 nodes, rate 1, turning bad (k = 10) after exponential times of mean T = 50 s, over
  // H = 100 s: a node fails H + (k - 1)(H - T(1 - e^(-H/T))) = 610.90 times on average. Its
  // variance: the Poisson's 610.9 plus (k - 1)^2 Var(min(T_i, H)) = 81 x 1100.8 (E min = 43.233,
  // E min^2 = 2 T^2 (1 - 3 e^-2) = 2969.9): 1000 nodes' sd is 9475.
  NodeHeterogeneity h;
  h.bad_factor = 10.0;
  h.turns_bad_mean = 50.0;
  const ClusterFailureConfig failures = node_failures(h);
  const ClusterPlatformConfig platform = platform_of(1000);
  FailureSchedule schedule(failures, platform, 13);
  const ComponentRates& rates = *schedule.component_rates(0);
  CHECK(rates.bad.empty());
  int turned = 0;
  for (const double t : rates.turns_bad_at) turned += t < 100.0 ? 1 : 0;
  // 1 - e^-2 = 0.8647 of them by H, sd sqrt(0.8647 x 0.1353 / 1000) = 0.0108.
  CHECK(turned / 1000.0 == Approx(1.0 - std::exp(-2.0)).margin(4.0 * 0.0108));
  CHECK(sum(failures_before(schedule, 1000, 100.0)) == Approx(610901.0).margin(4.0 * 9475.0));
  CHECK(mean_rate_factor(h, 100.0) * 1000.0 * 100.0 == Approx(610901.0).epsilon(1e-5));
}

TEST_CASE("heterogeneity shortens the homogeneous run's lifetimes, the same seed the same way",
          "[heterogeneity]") {
  NodeHeterogeneity h;
  h.bad_fraction = 0.5;
  h.bad_factor = 4.0;
  const ClusterPlatformConfig platform = platform_of(6);
  ClusterFailureConfig homogeneous = node_failures(h);
  homogeneous.stochastic[0].heterogeneity.reset();
  const ClusterFailureConfig failures = node_failures(h);
  // Each node's first failure (the first outages of each schedule, one per node, in time
  // order): the homogeneous run's lifetime, divided by 4 on a bad node.
  FailureSchedule plain(homogeneous, platform, 21), mixed(failures, platform, 21);
  const std::vector<int> bad = mixed.component_rates(0)->bad;
  REQUIRE(bad.size() == 3);
  const auto first_failures = [](FailureSchedule& schedule) {
    std::vector<double> first(6, -1.0);
    for (int taken = 0; taken < 6;) {
      const Outage o = schedule.take();
      double& at = first[static_cast<std::size_t>(o.index)];
      if (at < 0.0) {
        at = o.at;
        ++taken;
      }
    }
    return first;
  };
  const std::vector<double> first_plain = first_failures(plain);
  const std::vector<double> first_mixed = first_failures(mixed);
  for (int c = 0; c < 6; ++c) {
    const bool is_bad = std::find(bad.begin(), bad.end(), c) != bad.end();
    const auto i = static_cast<std::size_t>(c);
    CHECK(first_mixed[i] == Approx(first_plain[i] / (is_bad ? 4.0 : 1.0)));
  }
  // The same seed, the same schedule to the bit; another seed, another.
  FailureSchedule one(failures, platform, 21), two(failures, platform, 21),
      other(failures, platform, 22);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const Outage a = one.take(), b = two.take(), c = other.take();
    CHECK((a.at == b.at && a.index == b.index && a.back == b.back));
    differs = differs || c.at != a.at || c.index != a.index;
  }
  CHECK(differs);
}

TEST_CASE(
    "a run names its bad nodes in one bad_nodes event at its end, the same for the same "
    "seed",
    "[heterogeneity]") {
  nlohmann::json s = nlohmann::json::parse(failsim::testing::file_text(
      FAILSIM_SOURCE_DIR "/scenarios/cluster/operations/heterogeneous.json"));
  const failsim::testing::IsolatedRun run = failsim::testing::run_isolated(s.dump());
  const std::vector<nlohmann::json> events = failsim::testing::events_of(run, "bad_nodes");
  // The node entry only: the accelerators' spread has no bad components.
  REQUIRE(events.size() == 1);
  const nlohmann::json& e = events[0];
  CHECK(e["subject"] == "node");
  CHECK(e["time"] == 172800.0);
  CHECK(e["details"]["entry"] == 0);
  CHECK(e["details"]["factor"] == 20.0);
  // The bad nodes are the schedule's, drawn from the seed: round(0.25 x 9) = 2 of the 8 nodes
  // and the spare.
  NodeHeterogeneity h;
  h.bad_fraction = 0.25;
  h.bad_factor = 20.0;
  h.turns_bad_mean = 30.0 * 86400.0;
  const ComponentRates rates =
      draw_component_rates(h, 9,
                           derive_seed(derive_seed(1, SEED_NODE_RATES),
                                       static_cast<std::uint64_t>(ClusterTarget::NODE)));
  CHECK(e["details"]["bad"].get<std::vector<int>>() == rates.bad);
  // Those that turned bad before the end, in the order they did, at the times drawn.
  std::vector<std::pair<double, int>> turned;
  for (int c = 0; c < 9; ++c) {
    const double t = rates.turns_bad_at[static_cast<std::size_t>(c)];
    if (t < 172800.0) turned.emplace_back(t, c);
  }
  std::sort(turned.begin(), turned.end());
  REQUIRE(e["details"]["turned_bad"].size() == turned.size());
  for (std::size_t i = 0; i < turned.size(); ++i) {
    CHECK(e["details"]["turned_bad"][i] == turned[i].second);
    CHECK(e["details"]["turned_bad_at"][i].get<double>() == turned[i].first);
  }
  const failsim::testing::IsolatedRun same = failsim::testing::run_isolated(s.dump());
  CHECK(same.events == run.events);
}
