// The transformer language model in both protocols (docs/scenario-format.md, "Text data and the
// transformer"): each shipped language-model scenario, cut down to a tiny model and a short run,
// trains on Debian's fortunes and learns. Its first evaluation, at the initial parameters (GPT-2's
// initialisation: logits near 0), scores about ln 256 = 5.55 nats, what a byte model that has
// learnt nothing scores; its last falls below that by a margin no untrained model reaches; and
// the results give exp(loss) as the perplexity, in timeseries.csv and in the summary. Every
// collective design's scenario does so through its node failure, which its recovery records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/text_corpus.hpp"
#include "sim/output/result_writer.hpp"
#include "sim_harness.hpp"
#include "skip.hpp"

using failsim::testing::events_of;
using failsim::testing::IsolatedRun;
using failsim::testing::read_file;
using failsim::testing::run_isolated;
using nlohmann::json;

namespace {

const double UNTRAINED = std::log(256.0);

struct Row {
  double time = 0.0;
  std::int64_t version = 0;
  double loss = 0.0;
  double perplexity = 0.0;
  std::int64_t gradients_applied = 0;
  double tokens = 0.0;
};

/// timeseries.csv's rows: a language model's have every field, its tokens included.
std::vector<Row> losses(const IsolatedRun& run) {
  std::istringstream in(run.timeseries);
  std::string line;
  std::getline(in, line);
  REQUIRE(line ==
          "time,version,test_accuracy,test_loss,test_perplexity,train_loss,test_samples,"
          "gradients_computed,gradients_applied,tokens");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    REQUIRE(fields.size() == 10);
    rows.push_back({std::stod(fields[0]), std::stoll(fields[1]), std::stod(fields[3]),
                    std::stod(fields[4]), std::stoll(fields[8]), std::stod(fields[9])});
  }
  return rows;
}

/// summary.best of a language model: the row of the lowest validation loss, the earliest of
/// equals.
void check_best_is_lowest_loss(const IsolatedRun& run, const std::vector<Row>& rows) {
  const auto lowest = std::min_element(rows.begin(), rows.end(),
                                       [](const Row& a, const Row& b) { return a.loss < b.loss; });
  const json& best = run.result["summary"]["best"];
  CHECK(best["time"].get<double>() == lowest->time);
  CHECK(best["test_loss"].get<double>() == lowest->loss);
}

bool fortunes_installed() { return std::filesystem::exists(failsim::models::FORTUNES_DIR); }

/// Runs the shipped scenario `relative` cut down to a tiny model (1 layer of width 32, 2 heads,
/// context 16) and 128 validation windows, with `patch` merged in (a short run), and checks what
/// both protocols share: untrained at first, learnt at the end, perplexity exp(loss). Returns the
/// run for the checks of a design.
IsolatedRun run_and_check_learnt(const std::string& relative, const json& patch) {
  json s = json::parse(read_file(std::string(FAILSIM_SOURCE_DIR) + "/" + relative));
  s.merge_patch(json::parse(R"({
    "model": {"layers": 1, "hidden": 32, "heads": 2, "sequence": 16},
    "data": {"test_limit": 128}
  })"));
  s.merge_patch(patch);
  const IsolatedRun run = run_isolated(s.dump());
  const std::vector<Row> rows = losses(run);
  REQUIRE(rows.size() >= 3);
  CHECK(rows.front().loss == Approx(UNTRAINED).margin(0.05));
  for (const Row& r : rows) CHECK(r.perplexity == Approx(std::exp(r.loss)).epsilon(1e-12));
  check_best_is_lowest_loss(run, rows);
  const json& final = run.result["summary"]["final"];
  const double loss = final["test_loss"].get<double>();
  INFO("final validation loss " << loss << " nats, perplexity " << std::exp(loss));
  CHECK(loss < UNTRAINED - 1.5);
  CHECK(final["test_perplexity"].get<double>() == Approx(std::exp(loss)).epsilon(1e-12));
  return run;
}

}  // namespace

// The tokens of an evaluation are those of the gradients its parameters hold: 16 windows of 16
// predicted tokens each, never more than the gradients applied by then.
TEST_CASE("the parameter server trains the transformer on fortunes: the loss falls", "[lm]") {
  if (!fortunes_installed()) FAILSIM_SKIP("the Debian package fortunes is not installed");
  const IsolatedRun run = run_and_check_learnt("scenarios/examples/lm-ps.json", json::parse(R"({
    "evaluation": {"interval": "1s"},
    "stop": {"time": "8s"},
    "failures": null,
    "recovery": null,
    "cluster": {"storage": null}
  })"));
  const std::vector<Row> rows = losses(run);
  CHECK(rows.front().tokens == 0.0);
  CHECK(rows.back().tokens > 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i + 2);
    CHECK(std::fmod(rows[i].tokens, 16.0 * 16.0) == 0.0);
    CHECK(rows[i].tokens <= 16.0 * 16.0 * static_cast<double>(rows[i].gradients_applied));
    if (i > 0) CHECK(rows[i].tokens >= rows[i - 1].tokens);
  }
}

// The stateless example, cut down as above with its server kill moved to 2 s: the workers go on
// pushing to the store while no server is up, the new server applies the pile, and the model
// still learns.
TEST_CASE("a stateless parameter server trains the transformer through its kill", "[lm]") {
  if (!fortunes_installed()) FAILSIM_SKIP("the Debian package fortunes is not installed");
  const IsolatedRun run =
      run_and_check_learnt("scenarios/examples/lm-ps-stateless.json", json::parse(R"({
    "evaluation": {"interval": "1s"},
    "stop": {"time": "8s"},
    "failures": {"events": [{"target": "server", "at": "2s", "down_for": 0}]}
  })"));
  const auto applied = events_of(run, "pending_applied");
  REQUIRE(applied.size() == 1);
  CHECK(applied.front()["details"]["count"].get<std::int64_t>() > 0);
}

// Without a failure every step keeps its 4 replicas' 8 windows of 16 predicted tokens: an
// evaluation's tokens are its version's steps x 512.
TEST_CASE("a collective job trains the transformer on fortunes: the loss falls", "[lm]") {
  if (!fortunes_installed()) FAILSIM_SKIP("the Debian package fortunes is not installed");
  const IsolatedRun run =
      run_and_check_learnt("scenarios/cluster/lm/checkpoint-restart.json", json::parse(R"({
    "evaluation": {"interval": "100ms"},
    "failures": {"events": null},
    "stop": {"version": 150}
  })"));
  const std::vector<Row> rows = losses(run);
  CHECK(rows.back().version > 0);
  for (const Row& r : rows) CHECK(r.tokens == 512.0 * static_cast<double>(r.version));
}

// Each collective design's language-model scenario (scenarios/cluster/lm/), cut down as above
// and its node failure moved to 100 ms (the tiny model's 160 steps take well under a second),
// still down for 5 s: the design recovers from it its own way and the model still learns.
TEST_CASE("every collective design trains the transformer through its node failure", "[lm]") {
  const json patch = json::parse(R"({
    "evaluation": {"interval": "100ms"},
    "failures": {"events": [{"target": "node", "index": 1, "at": "100ms", "down_for": "5s"}]},
    "stop": {"version": 160}
  })");
  // The event each design's recovery records: a restart, a change of the replicas that run, or
  // a standby promoted.
  const std::vector<std::pair<std::string, std::string>> designs = {
      {"checkpoint-restart", "restart"}, {"in-memory", "restart"}, {"multi-level", "restart"},
      {"universal", "resized"},          {"quorum", "resized"},    {"diloco", "resized"},
      {"live-migration", "promoted"}};
  if (!fortunes_installed()) FAILSIM_SKIP("the Debian package fortunes is not installed");
  for (const auto& [design, recovery_event] : designs) {
    DYNAMIC_SECTION(design) {
      const IsolatedRun run =
          run_and_check_learnt("scenarios/cluster/lm/" + design + ".json", patch);
      CHECK(run.result["summary"]["collective"]["failures"] == 1);
      // Never more tokens than full steps hold, and the last row's at most the kept ones.
      const std::vector<Row> rows = losses(run);
      for (const Row& r : rows) CHECK(r.tokens <= 512.0 * static_cast<double>(r.version));
      CHECK(rows.back().tokens <=
            run.result["summary"]["collective"]["tokens"]["kept"].get<double>());
      CHECK_FALSE(events_of(run, recovery_event).empty());
    }
  }
}

// summary.best (sim/output/result_writer.hpp) on evaluations made by hand: the highest accuracy
// is not the lowest loss, a NaN loss is never the best, and the earliest of equals wins.
TEST_CASE(
    "summary.best is a language model's lowest validation loss, a classifier's highest "
    "accuracy",
    "[lm]") {
  using failsim::sim::EvalRecord;
  const auto eval = [](double time, double accuracy, double loss) {
    EvalRecord e;
    e.time = time;
    e.test_accuracy = accuracy;
    e.test_loss = loss;
    return e;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<EvalRecord> evals{eval(0, 0.10, 5.5), eval(1, 0.40, 3.1), eval(2, 0.35, 2.9),
                                      eval(3, 0.30, 2.9), eval(4, 0.20, nan)};
  CHECK(failsim::sim::best_evaluation(evals, true)->time == 2.0);
  CHECK(failsim::sim::best_evaluation(evals, false)->time == 1.0);
  const std::vector<EvalRecord> diverged{eval(0, 0.1, nan)};
  CHECK(failsim::sim::best_evaluation(diverged, true) == nullptr);
  CHECK(failsim::sim::best_evaluation(diverged, false)->time == 0.0);
  CHECK(failsim::sim::best_evaluation({}, false) == nullptr);
}
