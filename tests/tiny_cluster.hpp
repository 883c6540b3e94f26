// The names test_quorum.cpp and test_spares.cpp use for the one hand-worked collective scenario
// of tests/collective_fixture.hpp (2 nodes x 2 accelerators, dp 4; its times worked out there).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "collective_fixture.hpp"

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

using collective::near;
using collective::sum_of_causes;
using collective::time_of;

}  // namespace failsim::testing
