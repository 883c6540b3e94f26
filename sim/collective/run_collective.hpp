// run() for a collective scenario (`"protocol": "collective"`): the cluster platform, the plan,
// the real math (unless the workload is time only), the failure schedule and the job's driver
// actor; the result in the RunResult every protocol returns, with its collective summary.
#pragma once

#include "sim/run.hpp"
#include "sim/scenario/resolve.hpp"

namespace failsim::sim {

/// Simulates `scenario` (protocol COLLECTIVE) whose resolve step gave `resolved`.
RunResult run_collective(const Scenario& scenario, const ResolvedJob& resolved,
                         const RunOptions& options);

}  // namespace failsim::sim
