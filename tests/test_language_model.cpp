// The transformer language model in both protocols (docs/scenario-format.md, "Text data and the
// transformer"): each shipped language-model scenario, cut down to a tiny model and a short run,
// trains on Debian's fortunes and learns. Its first evaluation, at the initial parameters (GPT-2's
// initialisation: logits near 0), scores about ln 256 = 5.55 nats, what a byte model that has
// learnt nothing scores; its last falls below that by a margin no untrained model reaches; and
// the results give exp(loss) as the perplexity, in timeseries.csv and in the summary. Every
// collective design's scenario does so through its node failure, which its recovery records.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/text_corpus.hpp"
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
  double loss = 0.0;
  double perplexity = 0.0;
};

/// timeseries.csv's test_loss and test_perplexity, row by row.
std::vector<Row> losses(const IsolatedRun& run) {
  std::istringstream in(run.timeseries);
  std::string line;
  std::getline(in, line);
  REQUIRE(line.starts_with("time,version,test_accuracy,test_loss,test_perplexity,"));
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    REQUIRE(fields.size() >= 5);
    rows.push_back({std::stod(fields[3]), std::stod(fields[4])});
  }
  return rows;
}

bool fortunes_installed() { return std::filesystem::exists(failsim::models::FORTUNES_DIR); }

/// Runs the shipped scenario `relative` with `patch` merged in (a tiny model, a short run) and
/// checks what both protocols share: untrained at first, learnt at the end, perplexity exp(loss).
/// Returns the run for the checks of a design.
IsolatedRun run_and_check_learnt(const std::string& relative, const json& patch) {
  json s = json::parse(read_file(std::string(FAILSIM_SOURCE_DIR) + "/" + relative));
  s.merge_patch(patch);
  const IsolatedRun run = run_isolated(s.dump());
  const std::vector<Row> rows = losses(run);
  REQUIRE(rows.size() >= 3);
  CHECK(rows.front().loss == Approx(UNTRAINED).margin(0.05));
  for (const Row& r : rows) CHECK(r.perplexity == Approx(std::exp(r.loss)).epsilon(1e-12));
  const json& final = run.result["summary"]["final"];
  const double loss = final["test_loss"].get<double>();
  INFO("final validation loss " << loss << " nats, perplexity " << std::exp(loss));
  CHECK(loss < UNTRAINED - 1.5);
  CHECK(final["test_perplexity"].get<double>() == Approx(std::exp(loss)).epsilon(1e-12));
  return run;
}

void check_learns(const std::string& relative, const json& patch) {
  if (!fortunes_installed()) FAILSIM_SKIP("the Debian package fortunes is not installed");
  run_and_check_learnt(relative, patch);
}

}  // namespace

TEST_CASE("the parameter server trains the transformer on fortunes: the loss falls", "[lm]") {
  check_learns("scenarios/examples/lm-ps.json", json::parse(R"({
    "model": {"layers": 1, "hidden": 32, "heads": 2, "sequence": 16},
    "data": {"test_limit": 128},
    "evaluation": {"interval": "1s"},
    "stop": {"time": "8s"},
    "failures": null,
    "recovery": null,
    "cluster": {"storage": null}
  })"));
}

TEST_CASE("a collective job trains the transformer on fortunes: the loss falls", "[lm]") {
  check_learns("scenarios/cluster/lm/checkpoint-restart.json", json::parse(R"({
    "model": {"layers": 1, "hidden": 32, "heads": 2, "sequence": 16},
    "data": {"test_limit": 128},
    "evaluation": {"interval": "100ms"},
    "failures": {"events": null},
    "stop": {"version": 150}
  })"));
}

// Each collective design's language-model scenario (scenarios/cluster/lm/), cut down as above
// and its node failure moved to 100 ms (the tiny model's 160 steps take well under a second),
// still down for 5 s: the design recovers from it its own way and the model still learns.
TEST_CASE("every collective design trains the transformer through its node failure", "[lm]") {
  const json patch = json::parse(R"({
    "model": {"layers": 1, "hidden": 32, "heads": 2, "sequence": 16},
    "data": {"test_limit": 128},
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
      CHECK_FALSE(events_of(run, recovery_event).empty());
    }
  }
}
