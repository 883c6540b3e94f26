// DiLoCo (docs/cluster.md "DiLoCo"), worked out by hand: H = 1 with an outer learning rate of 1
// and no outer momentum is sync SGD, and with the outer momentum the mean gradient through two
// momentum buffers in series (why it diverges: docs/language-model.md); two groups of AdamW inner
// steps and the outer step, all by hand; the outer step with Nesterov momentum against its formula;
// a rejoining group takes the outer parameters; inner steps without a data-parallel collective
// and an outer all-reduce that nothing hides; a failed group misses outer rounds while the
// others train on, copies a live group's state and rejoins; every group down restarts from
// scratch; the same results for 1 and 2 threads.
//
// The platform is tests/test_collective.cpp's: 2 nodes x 2 accelerators of 1 Gflop/s, every
// link 1 GB/s without latency; dp 4 groups of one rank (ranks 0, 1 on node 0, ranks 2, 3 on
// node 1), a transformer posing as N = 1e6 parameters, one sequence per group and step.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "reproducible.hpp"
#include "sim/collective/recovery/diloco/diloco_math.hpp"
#include "sim/engine/optimizer_config.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"
#include "temp_dir.hpp"
#include "tiny_cluster.hpp"

using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::near;
using failsim::testing::run_isolated;
using failsim::testing::sum_of_causes;
using failsim::testing::time_of;
using nlohmann::json;

namespace {

// One rank's micro-batch: (6 N + 12) x 4 flops over 4 ranks at 1 Gflop/s (an inner step).
constexpr double T_MB = failsim::testing::tiny::T_MB;
// The outer all-reduce of 1e6 fp32 parameters (4e6 bytes) over 4 ranks: each sends
// 2 (4 - 1) / 4 x 4e6 = 6e6 bytes to its successor at 1 GB/s, no two flows on one link.
constexpr double OUTER_4 = 6e6 / 1e9;
// Over the 2 ranks of node 0: each sends 2 (2 - 1) / 2 x 4e6 = 4e6 bytes over its own link.
constexpr double OUTER_2 = 4e6 / 1e9;
// A group's restart: scheduler 100 ms, process start 100 ms, init 100 ms.
constexpr double RESTART = 0.3;

json build(const std::string& name, const json& patch) {
  // The hand platform (tests/collective_fixture.hpp) under DiLoCo with H = 4 for 8 steps.
  json s = failsim::testing::tiny_cluster(name, json::parse(R"({
        "stop": {"version": 8},
        "recovery": {"strategy": "diloco", "checkpoint": null,
                     "diloco": {"inner_steps": 4, "outer_learning_rate": 0.7,
                                "outer_momentum": 0.9, "nesterov": true}}
      })"));
  s.merge_patch(patch);
  return s;
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(double(a[k]) - b[k]));
  return d;
}

std::vector<float> to_vector(std::span<const float> s) { return {s.begin(), s.end()}; }

/// DiLoCo's outer step with Nesterov momentum mu and learning rate eta, every `inner_steps` steps.
failsim::sim::DilocoConfig nesterov_outer(int inner_steps, double eta, double mu) {
  failsim::sim::DilocoConfig c;
  c.inner_steps = inner_steps;
  c.outer_learning_rate = eta;
  c.outer_momentum = mu;
  c.nesterov = true;
  return c;
}

}  // namespace

TEST_CASE("DiLoCo with H = 1, an outer learning rate of 1 and no outer momentum is sync SGD",
          "[diloco]") {
  // theta_g = theta - lr v_g, and the outer step sets theta - mean_g (theta - theta_g) = theta -
  // lr mean_g v_g, which is sync SGD's step on the mean gradient (the inner velocities are
  // linear in the gradients, so their mean is sync SGD's velocity). Not bit for bit: DiLoCo
  // rounds each theta_g and each difference theta - theta_g to float before the mean, sync SGD
  // rounds the mean gradient once; the difference stays at float rounding.
  for (const double momentum : {0.0, 0.9}) {
    INFO("inner momentum " << momentum);
    const json optimizer = {{"optimizer", {{"momentum", momentum}}}, {"stop", {{"version", 20}}}};
    json sync = build("sync", optimizer);
    sync["recovery"] = {{"strategy", "checkpoint-restart"}};
    json diloco = build("diloco-h1", optimizer);
    diloco["recovery"]["diloco"] = {
        {"inner_steps", 1}, {"outer_learning_rate", 1.0}, {"outer_momentum", 0.0}};
    const IsolatedRun a = run_isolated(sync.dump());
    const IsolatedRun b = run_isolated(diloco.dump());
    REQUIRE(b.result["summary"]["collective"]["steps"]["kept"] == 20);
    double largest = 0.0;
    for (float x : a.final_params) largest = std::max(largest, double(std::abs(x)));
    CHECK(max_difference(a.final_params, b.final_params) <= 1e-6 * std::max(1.0, largest));
    // An outer learning rate of 0.7 does not (the comparison can fail).
    diloco["recovery"]["diloco"]["outer_learning_rate"] = 0.7;
    const IsolatedRun c = run_isolated(diloco.dump());
    CHECK(max_difference(a.final_params, c.final_params) > 1e-3);
  }
}

TEST_CASE("The outer step with Nesterov momentum, and a rejoin, against the formulas", "[diloco]") {
  const auto scenario = failsim::sim::parse_scenario_text(
      build("math", {{"optimizer", {{"momentum", 0.5}}}}).dump(), "math.json");
  failsim::sim::TrainingMath training(scenario);
  for (const bool nesterov : {true, false}) {
    INFO("nesterov " << nesterov);
    failsim::sim::DilocoConfig config;
    config.outer_learning_rate = 0.7;
    config.outer_momentum = 0.9;
    config.nesterov = nesterov;
    failsim::sim::DilocoMath math(training, scenario.optimizer, config, 4);
    const std::vector<int> all{0, 1, 2, 3};
    const double lr = 0.7, mu = 0.9;
    std::vector<double> theta(math.outer()->params.begin(), math.outer()->params.end());
    std::vector<double> v(theta.size(), 0.0);
    // Two rounds of 2 inner steps: Delta = mean (theta - theta_g); v = mu v + Delta;
    // theta -= lr (Delta + mu v) (Nesterov) or lr v.
    for (int round = 1; round <= 2; ++round) {
      math.inner_step(all);
      math.inner_step(all);
      std::vector<double> delta(theta.size(), 0.0);
      for (int g : all) {
        const auto p = math.group_parameters(g);
        for (std::size_t k = 0; k < theta.size(); ++k) delta[k] += (theta[k] - p[k]) / 4.0;
      }
      for (std::size_t k = 0; k < theta.size(); ++k) {
        v[k] = mu * v[k] + delta[k];
        theta[k] -= lr * (nesterov ? delta[k] + mu * v[k] : v[k]);
      }
      math.outer_step(all, 2 * round);
      CHECK(math.outer()->version == 2 * round);
      double worst = 0.0, worst_v = 0.0, moved = 0.0;
      for (std::size_t k = 0; k < theta.size(); ++k) {
        worst = std::max(worst, std::abs(theta[k] - math.outer()->params[k]));
        worst_v = std::max(worst_v, std::abs(v[k] - math.outer_velocity()[k]));
        moved = std::max(moved, std::abs(v[k]));
      }
      CHECK(moved > 1e-3);  // the rounds moved the parameters
      CHECK(worst <= 1e-6);
      CHECK(worst_v <= 1e-6);
      // Every group starts the next round from the outer parameters.
      for (int g : all) {
        CHECK(to_vector(math.group_parameters(g)) ==
              std::vector<float>(math.outer()->params.begin(), math.outer()->params.end()));
      }
    }
    // Group 3 misses a round: its parameters stay its own; it rejoins with the outer
    // parameters and group 0's inner velocity.
    math.inner_step(all);
    const std::vector<float> left = to_vector(math.group_parameters(3));
    math.outer_step({0, 1, 2}, 5);
    CHECK(to_vector(math.group_parameters(3)) == left);
    const std::vector<float> outer(math.outer()->params.begin(), math.outer()->params.end());
    CHECK(left != outer);
    math.rejoin(3, math.inner_optimizer(0));
    CHECK(to_vector(math.group_parameters(3)) == outer);
    CHECK(math.inner_optimizer(3).state()->moments == math.inner_optimizer(0).state()->moments);
  }
}

TEST_CASE("DiLoCo's inner AdamW: each group steps with its own moments, the outer step averages",
          "[diloco]") {
  // The paper's inner optimizer. Each group's AdamW sees its own gradients only (its own moments
  // and count of steps): two inner steps of group g are two steps of a fresh AdamW on g's first
  // two batches, to the bit. With an outer learning rate of 1 and no outer momentum the outer
  // step sets the mean of the groups' parameters (to float rounding: DiLoCo averages the
  // differences theta - theta_g). Unlike SGD's, the mean of AdamW updates is not AdamW's update
  // on the mean gradient: DiLoCo with H = 1 is not sync AdamW.
  const auto scenario = failsim::sim::parse_scenario_text(
      build("adamw", {{"optimizer", failsim::testing::collective::optimizer_section(1)}}).dump(),
      "adamw.json");
  failsim::sim::TrainingMath training(scenario);
  failsim::sim::DilocoConfig config;
  config.outer_learning_rate = 1.0;
  config.outer_momentum = 0.0;
  failsim::sim::DilocoMath math(training, scenario.optimizer, config, 4);
  const std::vector<int> all{0, 1, 2, 3};
  math.inner_step(all);
  math.inner_step(all);
  std::vector<double> mean(math.outer()->params.size(), 0.0);
  for (int g : all) {
    failsim::sim::Snapshot params = *training.initial_snapshot();
    auto optimizer = failsim::sim::make_optimizer(scenario.optimizer, params.params.size());
    auto stream = training.batch_stream(g);
    failsim::models::FloatBuffer grad(params.params.size());
    for (int step = 0; step < 2; ++step) {
      training.gradient(params, stream.next(), training.dropout_seed(g, step), grad);
      optimizer.step(params.params, grad);
    }
    CHECK(to_vector(math.group_parameters(g)) == to_vector(params.params));
    CHECK(math.inner_optimizer(g).state()->steps == 2);
    for (std::size_t k = 0; k < mean.size(); ++k) mean[k] += params.params[k] / 4.0;
  }
  math.outer_step(all, 2);
  double worst = 0.0, moved = 0.0;
  for (std::size_t k = 0; k < mean.size(); ++k) {
    worst = std::max(worst, std::abs(mean[k] - math.outer()->params[k]));
    moved = std::max(moved, std::abs(mean[k] - training.initial_snapshot()->params[k]));
  }
  CHECK(moved > 1e-3);
  CHECK(worst <= 1e-6);
}

TEST_CASE("DiLoCo with H = 1 is the mean gradient through two momentum buffers in series",
          "[diloco]") {
  // Why H = 1 with the paper's outer step diverges where sync SGD does not
  // (docs/language-model.md, "DiLoCo: the H sweep"): every group starts the round at theta and
  // its inner velocity is linear in its gradients, so the mean of the groups' one-step
  // deltas is a V with V = m V + mean_g grad_g(theta), sync SGD's velocity; the outer step then
  // filters it through a second momentum: u = mu u + a V, theta -= eta (a V + mu u). That
  // recursion, computed here by hand from the model's gradients, is what DiLoCo does.
  const double a = 0.1, m = 0.9, eta = 0.7, mu = 0.9;
  const auto scenario = failsim::sim::parse_scenario_text(
      build("h1", {{"optimizer", {{"learning_rate", a}, {"momentum", m}}}}).dump(), "h1.json");
  failsim::sim::TrainingMath training(scenario);
  failsim::sim::DilocoMath math(training, scenario.optimizer, nesterov_outer(1, eta, mu), 4);
  const std::vector<int> all{0, 1, 2, 3};
  std::vector<failsim::sim::BatchStream> streams;
  for (int g : all) streams.push_back(training.batch_stream(g));
  failsim::sim::Snapshot theta = *training.initial_snapshot();
  const std::size_t n = theta.params.size();
  std::vector<double> x(theta.params.begin(), theta.params.end()), v(n, 0.0), u(n, 0.0);
  failsim::models::FloatBuffer grad(n);
  double worst = 0.0, largest = 0.0;
  for (int step = 0; step < 6; ++step) {
    std::copy(x.begin(), x.end(), theta.params.begin());
    std::vector<double> mean(n, 0.0);
    for (int g : all) {
      training.gradient(theta, streams[static_cast<std::size_t>(g)].next(),
                        training.dropout_seed(g, step), grad);
      for (std::size_t k = 0; k < n; ++k) mean[k] += grad[k] / 4.0;
    }
    for (std::size_t k = 0; k < n; ++k) {
      v[k] = m * v[k] + mean[k];
      u[k] = mu * u[k] + a * v[k];
      x[k] -= eta * (a * v[k] + mu * u[k]);
    }
    math.inner_step(all);
    math.outer_step(all, step + 1);
    // The outer parameters are floats rounded at each step: compare to float rounding of them.
    for (std::size_t k = 0; k < n; ++k) {
      worst = std::max(worst, std::abs(x[k] - math.outer()->params[k]));
      largest = std::max(largest, std::abs(x[k]));
    }
  }
  CHECK(worst <= 1e-5 * std::max(1.0, largest));
  // Sync SGD at the same learning rate moves elsewhere: the comparison can fail.
  auto sgd = failsim::sim::make_optimizer(scenario.optimizer, n);
  failsim::sim::Snapshot plain = *training.initial_snapshot();
  for (int g : all) streams[static_cast<std::size_t>(g)] = training.batch_stream(g);
  for (int step = 0; step < 6; ++step) {
    std::vector<float> mean(n, 0.0f);
    for (int g : all) {
      training.gradient(plain, streams[static_cast<std::size_t>(g)].next(),
                        training.dropout_seed(g, step), grad);
      for (std::size_t k = 0; k < n; ++k) mean[k] += grad[k] / 4.0f;
    }
    sgd.step(plain.params, mean);
  }
  CHECK(max_difference(to_vector(plain.params), to_vector(math.outer()->params)) > 1e-3);
}

TEST_CASE("The H = 1 recursion on a quadratic: stable for 880 times smaller steps than sync SGD",
          "[diloco]") {
  // The numbers of docs/language-model.md: on f(x) = lambda x^2 / 2, sync SGD with momentum
  // m = 0.9 (x -= a V, V = m V + lambda x) converges while a lambda < 2 (1 + m) = 3.8; DiLoCo
  // with H = 1 and the paper's outer step (eta 0.7, Nesterov mu 0.9, the recursion of the case
  // above) only while a lambda < 0.0043; with eta 0.1 (the same step as sync SGD on a constant
  // gradient: eta (1 + mu / (1 - mu)) = 1) while a lambda < 0.030.
  const auto grows = [](double a_lambda, double eta, double mu) {
    double x = 1.0, v = 0.0, u = 0.0;
    for (int step = 0; step < 20000; ++step) {
      v = 0.9 * v + a_lambda * x;  // a V, the inner heavy ball's step
      u = mu * u + v;
      x -= eta * (v + mu * u);
    }
    return !(std::abs(x) <= 1.0);  // grown, or overflowed to inf and NaN
  };
  CHECK_FALSE(grows(3.7, 1.0, 0.0));  // sync SGD (eta 1, no outer momentum)
  CHECK(grows(3.9, 1.0, 0.0));
  CHECK_FALSE(grows(0.0042, 0.7, 0.9));
  CHECK(grows(0.0044, 0.7, 0.9));
  CHECK_FALSE(grows(0.029, 0.1, 0.9));
  CHECK(grows(0.031, 0.1, 0.9));
}

TEST_CASE("Two groups, H = 2, AdamW inner steps and the paper's outer step, all by hand",
          "[diloco]") {
  // The paper's configuration on the smallest case: each group's AdamW (constant learning rate,
  // no clipping, its own moments and count of steps t, which go on across rounds) written out
  // from its formula on the model's gradients of the group's own batches; then the outer step
  // with Nesterov momentum (eta 0.7, mu 0.9). Two rounds, so the second starts from the outer
  // parameters with the moments of the first.
  const double lr = 0.01, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1, eta = 0.7, mu = 0.9;
  const json adamw = {{"kind", "adamw"},
                      {"learning_rate", lr},
                      {"weight_decay", wd},
                      {"clip_norm", 0},
                      {"batch_size", 10}};
  const auto scenario = failsim::sim::parse_scenario_text(
      build("by-hand", {{"optimizer", adamw}}).dump(), "by-hand.json");
  failsim::sim::TrainingMath training(scenario);
  failsim::sim::DilocoMath math(training, scenario.optimizer, nesterov_outer(2, eta, mu), 2);
  const std::vector<int> both{0, 1};
  const std::size_t n = math.outer()->params.size();
  std::vector<double> theta(math.outer()->params.begin(), math.outer()->params.end());
  std::vector<double> u(n, 0.0);
  std::vector<std::vector<double>> m(2, std::vector<double>(n, 0.0)), v = m;
  std::vector<failsim::sim::BatchStream> streams{training.batch_stream(0),
                                                 training.batch_stream(1)};
  failsim::sim::Snapshot at = *training.initial_snapshot();
  failsim::models::FloatBuffer grad(n);
  int t = 0;  // each group's AdamW steps: the same for both
  for (int round = 1; round <= 2; ++round) {
    std::vector<std::vector<double>> p(2, theta);
    for (int inner = 0; inner < 2; ++inner) {
      ++t;
      for (int g : both) {
        auto& q = p[static_cast<std::size_t>(g)];
        std::copy(q.begin(), q.end(), at.params.begin());
        training.gradient(at, streams[static_cast<std::size_t>(g)].next(),
                          training.dropout_seed(g, t - 1), grad);
        auto& mg = m[static_cast<std::size_t>(g)];
        auto& vg = v[static_cast<std::size_t>(g)];
        for (std::size_t k = 0; k < n; ++k) {
          q[k] *= 1.0 - lr * wd;
          mg[k] = b1 * mg[k] + (1.0 - b1) * grad[k];
          vg[k] = b2 * vg[k] + (1.0 - b2) * double(grad[k]) * grad[k];
          q[k] -= lr * (mg[k] / (1.0 - std::pow(b1, t))) /
                  (std::sqrt(vg[k] / (1.0 - std::pow(b2, t))) + eps);
        }
      }
      math.inner_step(both);
    }
    for (std::size_t k = 0; k < n; ++k) {
      const double delta = ((theta[k] - p[0][k]) + (theta[k] - p[1][k])) / 2.0;
      u[k] = mu * u[k] + delta;
      theta[k] -= eta * (delta + mu * u[k]);
    }
    math.outer_step(both, 2 * round);
    double worst = 0.0, moved = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      worst = std::max(worst, std::abs(theta[k] - math.outer()->params[k]));
      moved = std::max(moved, std::abs(u[k]));
    }
    INFO("round " << round);
    CHECK(moved > 1e-3);
    CHECK(worst <= 1e-5);
    CHECK(math.inner_optimizer(0).state()->steps == t);
  }
}

TEST_CASE("DiLoCo's steps: inner steps without data parallelism, outer all-reduces not hidden",
          "[diloco]") {
  // H = 4, 8 steps: 6 inner steps of T_MB and 2 outer steps of T_MB + the fp32 all-reduce,
  // with or without overlap (the all-reduce needs the step's updated parameters).
  for (const bool overlap : {false, true}) {
    INFO("overlap " << overlap);
    const IsolatedRun run =
        run_isolated(build("steps", {{"layout", {{"overlap", overlap}}}}).dump());
    const json& summary = run.result["summary"];
    const json& c = summary["collective"];
    CHECK(summary["end_time"].get<double>() == near(8 * T_MB + 2 * OUTER_4));
    CHECK(c["step"]["nominal_seconds"].get<double>() == near(T_MB));
    CHECK(c["step"]["data_parallel_seconds"].get<double>() == 0.0);
    CHECK(time_of(run)["productive"].get<double>() == near(8 * T_MB + 2 * OUTER_4));
    CHECK(sum_of_causes(run) == near(summary["end_time"].get<double>()));
    CHECK(c["samples"]["completed"].get<double>() == 32.0);
    CHECK(c["samples"]["kept"].get<double>() == 32.0);
    CHECK(c["samples"]["rolled_back"].get<double>() == 0.0);
    // The evaluations (every 10 ms) see the outer parameters: version 0 until the outer step
    // 4 ends (4 T_MB + OUTER_4, just after 30 ms), then version 4 until the end (just after
    // 60 ms).
    CHECK_THAT(run.timeseries, Catch::StartsWith("time,version,"));
    std::istringstream rows(run.timeseries);
    std::string row;
    std::getline(rows, row);
    std::vector<std::string> seen;
    while (std::getline(rows, row)) seen.push_back(row.substr(0, row.find(',', row.find(',') + 1)));
    CHECK(seen == std::vector<std::string>{"0,0", "0.01,0", "0.02,0", "0.03,0", "0.04,4", "0.05,4",
                                           "0.06,4"});
  }
  // In bf16 on the wire, the all-reduce takes half as long.
  const IsolatedRun bf16 = run_isolated(
      build("bf16", {{"recovery", {{"diloco", {{"outer_gradient_bytes", 2}}}}}}).dump());
  CHECK(bf16.result["summary"]["end_time"].get<double>() == near(8 * T_MB + OUTER_4));
}

TEST_CASE("A failed group misses outer rounds while the others train on, then rejoins",
          "[diloco]") {
  // H = 10. Accelerator 3 (node 1: groups 2 and 3) fails halfway through step 12, after the
  // outer step 10 (4 groups) and step 11: step 12 is lost (0.5 T_MB), the watchdog notices it
  // 100 ms later, groups 2 and 3 are dropped (their step 11 never reaches the outer
  // parameters: 2 samples) and groups 0 and 1 go on at once, their outer all-reduces on node 0.
  const double t_f = (10 * T_MB + OUTER_4) + 1.5 * T_MB;
  const double resumed = t_f + 0.1;
  // Step 70 (an outer step of 2 groups) ends at resumed + 59 T_MB + 6 OUTER_2. Node 1 comes back
  // so that the groups' processes are up half a step before: the copy starts right after it.
  const double step_70 = resumed + 59 * T_MB + 6 * OUTER_2;
  const double down = step_70 - T_MB / 2 - RESTART - t_f;
  // The copies: group 2 from group 0, group 3 from group 1, each 14 x 1e6 bytes of training
  // state and 4 x 1e6 of outer momentum, both through node 0's and node 1's NICs (1 GB/s):
  // 36 ms, ended 6 steps later; the outer step 80 (4 groups) lets them in.
  const double step_80 = step_70 + 10 * T_MB + OUTER_4;
  const double end = step_80 + 2 * (10 * T_MB + OUTER_4);
  const IsolatedRun run = run_isolated(
      build("rejoin",
            {{"recovery", {{"diloco", {{"inner_steps", 10}}}}},
             {"stop", {{"version", 100}}},
             {"failures",
              {{"detection", {{"timeout", "100ms"}}},
               {"events",
                {{{"target", "accelerator"}, {"index", 3}, {"at", t_f}, {"down_for", down}}}}}}})
          .dump());
  const json& summary = run.result["summary"];
  const json& c = summary["collective"];
  CHECK(summary["end_time"].get<double>() == near(end));
  CHECK(time_of(run)["lost_work"].get<double>() == near(0.5 * T_MB));
  CHECK(time_of(run)["detection"].get<double>() == near(0.1));
  CHECK(time_of(run)["repair_wait"].get<double>() == 0.0);
  CHECK(time_of(run)["restart"].get<double>() == 0.0);
  CHECK(time_of(run)["interference"].get<double>() == 0.0);
  CHECK(sum_of_causes(run) == near(summary["end_time"].get<double>()));
  CHECK(c["steps"]["completed"] == 100);
  CHECK(c["steps"]["rolled_back"] == 0);
  // Samples: 11 steps of 4 groups, 69 of 2, 20 of 4; 2 of them discarded with groups 2 and 3.
  CHECK(c["samples"]["completed"].get<double>() == 44.0 + 138.0 + 80.0);
  CHECK(c["samples"]["rolled_back"].get<double>() == 2.0);
  CHECK(c["samples"]["kept"].get<double>() == 260.0);
  const auto resized = events_of(run, "resized");
  REQUIRE(resized.size() == 1);
  CHECK(resized[0]["time"].get<double>() == near(resumed));
  CHECK(resized[0]["details"]["dropped"] == json({2, 3}));
  CHECK(resized[0]["details"]["groups"] == json({0, 1}));
  const auto restarts = events_of(run, "restart");
  REQUIRE(restarts.size() == 2);
  for (const json& e : restarts)
    CHECK(e["details"]["ready_at"].get<double>() == near(t_f + down + RESTART));
  const auto copied = events_of(run, "checkpoint_loaded");
  REQUIRE(copied.size() == 2);
  for (const json& e : copied) {
    CHECK(e["time"].get<double>() == near(step_70 + 6 * T_MB));
    CHECK(e["details"]["version"] == 70);
  }
  CHECK(copied[0]["details"]["from"] == "group-0");
  CHECK(copied[1]["details"]["from"] == "group-1");
  const auto joined = events_of(run, "replica_joined");
  REQUIRE(joined.size() == 2);
  for (const json& e : joined) {
    CHECK(e["time"].get<double>() == near(step_80));
    CHECK(e["details"]["version"] == 80);
  }
}

TEST_CASE("With every group down DiLoCo starts again from scratch, as a failure-free run",
          "[diloco]") {
  // Both nodes fail halfway through step 6 for 1 s: every step so far is lost work, the job
  // waits for the nodes, restarts (0.3 s) and trains from version 0 on the same batches, so
  // version 8 is the failure-free run's, bit for bit.
  const double t_f = 4 * T_MB + OUTER_4 + 1.5 * T_MB;
  const IsolatedRun failed = run_isolated(
      build("all-down",
            {{"failures",
              {{"detection", {{"timeout", "100ms"}}},
               {"events",
                {{{"target", "node"}, {"index", 0}, {"at", t_f}, {"down_for", "1s"}},
                 {{"target", "node"}, {"index", 1}, {"at", t_f}, {"down_for", "1s"}}}}}}})
          .dump());
  const IsolatedRun clean = run_isolated(build("clean", json::object()).dump());
  const json& c = failed.result["summary"]["collective"];
  CHECK(c["steps"]["completed"] == 13);
  CHECK(c["steps"]["rolled_back"] == 5);
  CHECK(c["samples"]["kept"].get<double>() == 32.0);
  CHECK(time_of(failed)["lost_work"].get<double>() == near(t_f));
  CHECK(time_of(failed)["repair_wait"].get<double>() == near(0.9));
  CHECK(time_of(failed)["restart"].get<double>() == near(RESTART));
  CHECK(failed.result["summary"]["end_time"].get<double>() ==
        near(t_f + 1.0 + RESTART + 8 * T_MB + 2 * OUTER_4));
  CHECK(failed.final_params == clean.final_params);
}

TEST_CASE("DiLoCo with a failure gives the same results with 1 and 2 threads", "[diloco]") {
  const failsim::testing::TempDir dir;
  const std::string file = dir.file("diloco.json");
  {
    std::ofstream out(file);
    // With SGD, and with AdamW as its inner optimizer.
    out << build("threads",
                 {{"optimizer", failsim::testing::collective::optimizer_section(GENERATE(0, 1))},
                  {"stop", {{"version", 200}}},
                  {"failures",
                   {{"detection", {{"timeout", "100ms"}}},
                    {"events",
                     {{{"target", "node"}, {"index", 1}, {"at", 0.1}, {"down_for", "200ms"}}}}}}})
               .dump();
  }
  json results[2];
  std::string events[2];
  for (const int threads : {1, 2}) {
    const std::string out = dir.file("out-" + std::to_string(threads));
    const auto run = failsim::testing::run_cli(
        "run -q --threads " + std::to_string(threads) + " '" + file + "' -o '" + out + "'", dir);
    REQUIRE(run.status == 0);
    results[threads - 1] = failsim::testing::reproducible_part(
        json::parse(failsim::testing::read_text(out + "/result.json")));
    events[threads - 1] = failsim::testing::read_text(out + "/events.csv");
  }
  CHECK(results[0].dump(1) == results[1].dump(1));
  CHECK(events[0] == events[1]);
  CHECK(events[0].find("replica_joined") != std::string::npos);
}
