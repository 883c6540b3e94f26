// The collective protocol's runner (`"protocol": "collective"`): the cluster platform, the
// plan, the real math (unless the workload is time only), the failure schedule and the job's
// driver actor; the result in the RunResult every protocol returns, with its collective summary.
// sim/run.hpp dispatches to it.
#pragma once

#include "sim/engine/run_setup.hpp"
#include "sim/output/run_result.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// Simulates `scenario` (protocol COLLECTIVE) whose resolve step gave `resolved`.
RunResult run_collective(const Scenario& scenario, const ResolvedJob& resolved,
                         const RunOptions& options);

}  // namespace failsim::sim
