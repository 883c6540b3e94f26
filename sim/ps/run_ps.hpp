// The parameter-server protocol's runner (`"protocol": "parameter-server"`, the default): the
// star platform, the math, the job's shards and strategies, the workers, the failure injector
// and the observer, simulated together with the branches that share this simulation; the result
// in the RunResult every protocol returns. sim/run.hpp dispatches to it.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/run_setup.hpp"
#include "sim/output/run_result.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// The scenario and RunOptions::branches, and their file labels (the options' file label for a
/// branch without one): the members a parameter-server simulation stands for (branching.hpp).
std::pair<std::vector<Scenario>, std::vector<std::string>> members_of(const Scenario& scenario,
                                                                      const RunOptions& options);

/// Simulates `scenario` (protocol PARAMETER_SERVER) and RunOptions::branches, whose resolve step
/// gave `resolved`; `wall_start` is when run() began.
RunResult run_ps(const Scenario& scenario, const ResolvedJob& resolved, const RunOptions& options,
                 std::chrono::steady_clock::time_point wall_start);

}  // namespace failsim::sim
