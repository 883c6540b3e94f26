// Final parameters worked out by hand where failures or several workers change which gradients
// make up an update: the stateless store's pile under every stale-gradient rule, a chain
// replica's hand-over, and sync rounds combined by sum and by mean. Each case derives, from the
// protocol in docs/consistency.md and docs/strategies.md and the time model, which gradients
// each update holds and from which version each was computed; the expected parameters are then
// those updates applied with the model's own gradients (TrainingMath, tested on its own in
// test_models) and the documented rule, without the simulation. Each simulation runs in its own
// child process (sim_harness.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/sgd.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim_harness.hpp"

using failsim::testing::events_of;
using failsim::testing::run_isolated;
using nlohmann::json;

namespace {

/// One gradient of an update: which worker computed it on its next batch, the parameter
/// version it was computed from, and whether it was lost on its way (its batch is drawn, but
/// it is never applied).
struct Gradient {
  int worker = 0;
  long base = 0;
  bool lost = false;
};
using Update = std::vector<Gradient>;

/// A stale-gradient rule as docs/strategies.md ("Stale-gradient rules") defines it: the weight
/// of a gradient of staleness s in a batch of k applied ones (nullopt: dropped), and the
/// learning rate of a batch of k applied ones.
struct Rule {
  std::string name;
  int paper_threshold = 50;
  float paper_low_lr = 0.001f;
  long drop_bound = 0;

  bool drops(long staleness) const { return name == "drop_stale" && staleness > drop_bound; }
  float weight(long staleness, std::size_t applied) const {
    if (name == "mean") return 1.0f / static_cast<float>(applied);
    if (name == "inverse_staleness") return 1.0f / static_cast<float>(std::max(1L, staleness));
    return 1.0f;  // sum, paper, drop_stale (kept ones)
  }
  float learning_rate(std::size_t applied, float lr) const {
    if (name == "paper" && applied > static_cast<std::size_t>(paper_threshold)) return paper_low_lr;
    return lr;
  }
};

/// The parameters after `updates` applied in order by a server starting from the initial
/// parameters (version 0): update i (version i before it) combines its gradients by `rule`,
/// each gradient taken on its worker's next batch at the parameters of its base version.
/// An update whose gradients are all dropped changes nothing (no new version).
std::vector<float> by_hand(const json& s, const std::vector<Update>& updates, const Rule& rule) {
  const auto scenario = failsim::sim::parse_scenario_text(s.dump(), "hand.json");
  failsim::sim::TrainingMath math(scenario);
  std::vector<failsim::models::FloatBuffer> versions{math.initial_snapshot()->params};
  const float lr = static_cast<float>(scenario.optimizer.learning_rate);
  failsim::models::Sgd sgd({lr, 0, 0}, versions[0].size());
  std::vector<failsim::sim::BatchStream> streams;
  std::vector<std::int64_t> steps;
  for (int w = 0; w < scenario.cluster.num_workers(); ++w) {
    streams.push_back(math.batch_stream(w));
    steps.push_back(0);
  }
  const std::size_t n = versions[0].size();
  failsim::models::FloatBuffer grad(n);
  for (const Update& update : updates) {
    const long version = static_cast<long>(versions.size()) - 1;
    std::size_t applied = 0;
    for (const Gradient& g : update) applied += g.lost || rule.drops(version - g.base) ? 0 : 1;
    std::vector<float> combined(n, 0.0f);
    for (const Gradient& g : update) {
      failsim::sim::Snapshot at;
      at.version = g.base;
      at.params = versions.at(g.base);
      math.gradient(at, streams[g.worker].next(), math.dropout_seed(g.worker, steps[g.worker]++),
                    grad);
      const long staleness = version - g.base;
      if (g.lost || rule.drops(staleness)) continue;
      const float w = rule.weight(staleness, applied);
      for (std::size_t j = 0; j < n; ++j) combined[j] += w * grad[j];
    }
    if (applied == 0) continue;
    failsim::models::FloatBuffer next = versions.back();
    sgd.step(next, combined, rule.learning_rate(applied, lr));
    versions.push_back(std::move(next));
  }
  return {versions.back().begin(), versions.back().end()};
}

/// The largest |a - b| relative to max(1, |b|): the rules that weigh gradients round in another
/// order than by hand (docs/strategies.md), so they agree to a few float ulps per update.
double max_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    worst = std::max(worst, std::abs(static_cast<double>(a[j]) - b[j]) /
                                std::max(1.0, std::abs(static_cast<double>(b[j]))));
  }
  return worst;
}

// The stateless timeline, from the small scenario (one worker, 10 ms per gradient, messages
// of next to no time) with a server of 4,000 flop/s, so that applying a batch of k gradients
// takes k ms (update_flops = 2 x 8 B / 4 = 4 flops per gradient; docs/time-model.md):
//
// - Normal running: the worker pushes gradient n at n x 10 ms; the store hands it to the
//   waiting server at once, which applies it for 1 ms and publishes version n. The worker's
//   next pull comes right after its push, before that publication, so gradient n + 1 is
//   computed from version n - 1: gradient 1 (and 2) from version 0, gradient n from n - 2.
//   Staleness 1 from gradient 2 on, one gradient per update.
// - The server dies at 1.0055 s, idle, with version 100 published (gradient 100 arrived at
//   1.00 s). Until its detection at 1.1055 s the store still takes it for alive: gradient 101
//   (from version 99), pushed at 1.01 s, goes to the dead server's waiting request and is
//   lost. Restarted on its host 200 ms after detection, at 1.3055 s, the new server reads
//   version 100 from the store and takes the pile: gradients 102 to 130 (pushed at 1.30 s),
//   29 gradients from version 100, applied as one update (staleness 0) for 29 ms, published
//   as version 101 at 1.3345 s.
// - Meanwhile gradients 131 to 133 arrive, from version 100 (the store held 100 until 1.3345):
//   the next batch, at version 101 (staleness 1), applied for 3 ms: version 102 at 1.3375 s.
//   Gradient 134 (pushed at 1.34 s) was computed from version 100 too: alone, at version 102,
//   staleness 2; version 103 at 1.341 s. The run stops at 1.345 s.
json stateless_scenario(const Rule& rule) {
  json s = failsim::testing::small_scenario("stateless-" + rule.name);
  s["cluster"]["servers"]["speed"] = 4000;
  json settings = {{"rule", rule.name}};
  if (rule.name == "paper") {
    settings["paper_threshold"] = rule.paper_threshold;
    settings["paper_low_lr"] = rule.paper_low_lr;
  }
  if (rule.name == "drop_stale") settings["drop_bound"] = rule.drop_bound;
  s["recovery"] = {{"strategy", "stateless"}, {"stateless", settings}};
  s["failures"]["events"] = {{{"target", "server"}, {"at", "1.0055s"}}};
  s["stop"] = {{"time", "1.345s"}};
  return s;
}

std::vector<Update> stateless_updates() {
  std::vector<Update> updates;
  for (long n = 1; n <= 100; ++n) updates.push_back({{0, std::max(0L, n - 2)}});
  updates.push_back({{0, 99, true}});  // gradient 101, lost: no update
  Update pile;
  for (int n = 102; n <= 130; ++n) pile.push_back({0, 100});
  updates.push_back(pile);
  updates.push_back({{0, 100}, {0, 100}, {0, 100}});
  updates.push_back({{0, 100}});
  return updates;
}

}  // namespace

TEST_CASE("stateless: the pile and the batches after it are applied as each rule says",
          "[parameters]") {
  // Each rule is chosen so that it changes this run: paper's threshold lies below the pile of
  // 29 and above the batch of 3; mean divides the pile by 29 and the batch by 3;
  // inverse_staleness halves gradient 134 (staleness 2); drop_stale with bound 1 drops it.
  Rule rule;
  rule.name =
      GENERATE(as<std::string>{}, "paper", "sum", "mean", "inverse_staleness", "drop_stale");
  rule.paper_threshold = 20;
  rule.drop_bound = 1;
  INFO("rule " << rule.name);
  const json s = stateless_scenario(rule);
  const auto run = run_isolated(s.dump());

  // The timeline above, as the run recorded it.
  const auto restart = events_of(run, "restart").at(0);
  CHECK(restart["time"].get<double>() == Approx(1.3055).margin(1e-5));
  const auto applied = events_of(run, "pending_applied").at(0);
  CHECK(applied["details"]["count"] == 29);
  const json& g = run.result["summary"]["gradients"];
  CHECK(g["computed"] == 134);
  CHECK(g["lost"] == 1);  // gradient 101
  CHECK(g["pending_at_end"] == 0);
  CHECK(g["dropped"] == (rule.name == "drop_stale" ? 1 : 0));
  CHECK(run.result["summary"]["final"]["version"] == (rule.name == "drop_stale" ? 102 : 103));
  if (rule.name != "drop_stale") {
    // 0: gradients 1 and 102 to 130; 2: gradient 134; 1: the other 102 applied (2 to 100,
    // 131 to 133).
    CHECK(run.result["summary"]["staleness"]["histogram"] == json{{"0", 30}, {"1", 102}, {"2", 1}});
  }

  const auto expected = by_hand(s, stateless_updates(), rule);
  REQUIRE(run.final_params.size() == expected.size());
  if (rule.name == "sum" || rule.name == "paper" || rule.name == "drop_stale") {
    // Weight 1: the store's running sum makes the same additions in the same order.
    CHECK(run.final_params == expected);
  } else {
    CHECK(max_relative_difference(run.final_params, expected) < 1e-5);
  }
  // What a wrong rule would give is far from that: the test can tell the rules apart.
  Rule other = rule;
  other.name = rule.name == "sum" ? "mean" : "sum";
  CHECK(max_relative_difference(by_hand(s, stateless_updates(), other), expected) > 1e-3);
}

TEST_CASE("chain: the promoted replica hands over exactly the parameters of its version",
          "[parameters]") {
  // One worker, 10 ms per gradient, a server of 4,000 flop/s: each update is one gradient
  // computed from the version before it (the worker's pull is read after its push), applied
  // for 1 ms. K = 10: versions 10 and 20 are on both replicas. The head dies at update 25;
  // the worker's pull that followed gradient 25 waits in its mailbox, so gradient 26 is not
  // computed before the promotion. Replica-0, holding version 20, is promoted at detection;
  // the worker then trains on from version 20 with its batches 26, 27, ... until version 40.
  json s = failsim::testing::small_scenario("chain-promotion");
  s["cluster"]["servers"]["count"] = 3;
  s["cluster"]["servers"]["speed"] = 4000;
  s["recovery"] = {{"strategy", "chain"}, {"chain", {{"every_updates", 10}}}};
  s["failures"]["events"] = {{{"target", "server"}, {"at_update", 25}}};
  s["stop"] = {{"time", "3s"}, {"version", 40}};
  const auto run = run_isolated(s.dump());

  const auto promoted = events_of(run, "promoted");
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0]["details"]["version"] == 20);
  CHECK(run.result["summary"]["final"]["version"] == 40);
  CHECK(run.result["summary"]["updates_rolled_back"] == 5);
  CHECK(run.result["summary"]["gradients"]["lost"] == 0);

  // Versions 1 to 20 from batches 1 to 20; batches 21 to 25 built versions 21 to 25, lost
  // with the head; versions 21 to 40 again, from batches 26 to 45 starting at version 20.
  const auto scenario = failsim::sim::parse_scenario_text(s.dump(), "hand.json");
  failsim::sim::TrainingMath math(scenario);
  failsim::sim::Snapshot at = *math.initial_snapshot();
  failsim::models::Sgd sgd({static_cast<float>(scenario.optimizer.learning_rate), 0, 0},
                           at.params.size());
  auto stream = math.batch_stream(0);
  failsim::models::FloatBuffer grad(at.params.size());
  for (int k = 0; k < 45; ++k) {
    const auto batch = stream.next();
    if (k >= 20 && k < 25) continue;  // batches 21 to 25: the head's lost updates
    math.gradient(at, batch, math.dropout_seed(0, k), grad);
    sgd.step(at.params, grad);
  }
  CHECK(run.final_params == std::vector<float>(at.params.begin(), at.params.end()));
  // Without the rollback (batches 1 to 40 in a row) the run would end elsewhere.
  const auto from25 = failsim::testing::sgd_by_hand(s.dump(), 40);
  CHECK(max_relative_difference(std::vector<float>(from25.begin(), from25.end()),
                                run.final_params) > 1e-4);
}

TEST_CASE("sync with two workers: a round's update is the sum, or the mean, of both gradients",
          "[parameters]") {
  // Round r: both workers pull version r, compute on their own next batch, push; the server
  // applies G = g_0 + g_1 ("sum") or (g_0 + g_1) / 2 ("mean"), version r + 1
  // (docs/consistency.md, sync). With two gradients both are exact in floating point whatever
  // the order (a sum of two is commutative, halving is exact), so the match is bit for bit.
  const std::string combine = GENERATE(as<std::string>{}, "sum", "mean");
  INFO("combine " << combine);
  json s = failsim::testing::small_scenario("sync-" + combine);
  s["cluster"]["workers"]["count"] = 2;
  s["consistency"] = {{"mode", "sync"}, {"combine", combine}};
  s.erase("failures");
  s["stop"] = {{"updates", 30}};
  const auto run = run_isolated(s.dump());
  REQUIRE(run.result["summary"]["updates"] == 30);
  CHECK(run.result["summary"]["gradients"]["applied"] == 60);

  std::vector<Update> rounds;
  for (long r = 0; r < 30; ++r) rounds.push_back({{0, r}, {1, r}});
  const auto expected = by_hand(s, rounds, Rule{combine});
  CHECK(run.final_params == expected);
  // The other combination is far from it: the test tells them apart.
  const auto other = by_hand(s, rounds, Rule{combine == "sum" ? "mean" : "sum"});
  CHECK(max_relative_difference(other, expected) > 1e-3);
}
