// The names test_quorum.cpp, test_spares.cpp and test_live_migration.cpp use for the one
// hand-worked collective scenario of tests/collective_fixture.hpp (2 nodes x 2 accelerators,
// dp 4; its times worked out there), the readers of its results they share, and its real math
// stepped by hand.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collective_fixture.hpp"
#include "sim/collective/job/replica_math.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::testing {

namespace tiny = collective;

/// The hand-worked scenario named `name`, with `patch` merged in (RFC 7386).
inline nlohmann::json tiny_cluster(const std::string& name, const nlohmann::json& patch) {
  return collective::build(name, patch);
}

/// A scheduled failure of node `node` at `at` for `down` seconds (failures.events' entry).
inline nlohmann::json node_event(int node, double at, double down) {
  return {{"target", "node"}, {"index", node}, {"at", at}, {"down_for", down}};
}

/// The run's summary.collective.
inline const nlohmann::json& collective_of(const IsolatedRun& run) {
  return run.result["summary"]["collective"];
}
/// The seconds the run's time ledger gave `cause`.
inline double seconds(const IsolatedRun& run, const char* cause) {
  return collective_of(run)["time"][cause].get<double>();
}
inline double end_of(const IsolatedRun& run) {
  return run.result["summary"]["end_time"].get<double>();
}

/// The parameters of a ReplicaMath of `scenario` stepped on `streams`, one entry per step.
inline std::vector<float> stepped_by_hand(const nlohmann::json& scenario,
                                          const std::vector<std::vector<int>>& streams) {
  using namespace failsim::sim;
  const Scenario s = parse_scenario(scenario, "by-hand.json");
  TrainingMath training(s);
  ReplicaMath math(training, s.optimizer, s.collective.layout.dp);
  for (const std::vector<int>& step : streams) math.step(step);
  const auto& params = math.parameters()->params;
  return {params.begin(), params.end()};
}

using collective::check_same_results;
using collective::near;
using collective::sum_of_causes;
using collective::time_of;

}  // namespace failsim::testing
