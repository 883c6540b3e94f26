// run(Scenario) -> RunResult: one simulated training run. One per process (SimGrid allows one
// engine per process; see docs/testing.md). run() checks the scenario and dispatches by protocol
// to its runner: sim/ps/run_ps.hpp or sim/collective/run_collective.hpp, both set up by
// sim/engine/run_setup.hpp.
#pragma once

#include "sim/engine/run_setup.hpp"
#include "sim/engine/simgrid_probe.hpp"
#include "sim/output/progress.hpp"
#include "sim/output/run_result.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// What run() makes sure of before it simulates: the scenario's resolved job and its actors'
/// stacks.
struct CheckedRun {
  ResolvedJob job;
  ActorStacks stacks;
};

/// The checks run() makes before simulating, and nothing else: resolve() of the scenario and of
/// each of RunOptions::branches, and the SimGrid probe of the scenario with
/// RunOptions::simgrid_args (sim/engine/simgrid_probe.hpp). Throws InputError as run() does; writes
/// nothing. `failsim run --dry-run` stops here.
CheckedRun check_run(const Scenario& scenario, const RunOptions& options);

/// Simulates the scenario (and RunOptions::branches: then each process that returns holds the
/// results of one of them, and the caller must wait for RunResult::children). Throws InputError
/// for input found bad only now (e.g. a host name not in the platform file) and models::DataError
/// for unreadable data.
RunResult run(const Scenario& scenario, const RunOptions& options = {});

}  // namespace failsim::sim
