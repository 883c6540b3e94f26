// run(): the checks before a run, then the protocol's runner. Declares failsim's root log
// category (sim/engine/log.hpp).
#include "sim/run.hpp"

#include <xbt/log.h>

#include <chrono>
#include <string>
#include <utility>

#include "input/input_error.hpp"
#include "input/interrupt.hpp"
#include "sim/collective/run_collective.hpp"
#include "sim/ps/branching.hpp"
#include "sim/ps/run_ps.hpp"

XBT_LOG_NEW_CATEGORY(failsim, "failsim: simulation of parallel training under failures");

namespace failsim::sim {

namespace {
/// Hands `job` to the process's exit instead of freeing it: a plan of millions of ranks takes
/// half a second to free, and an interrupted command exits at once (input::exit_interrupted).
void leave_to_exit(ResolvedJob&& job) { static_cast<void>(new ResolvedJob(std::move(job))); }
}  // namespace

CheckedRun check_run(const Scenario& scenario, const RunOptions& options) {
  // Branches share one parameter-server simulation up to a failure that tells them apart: a
  // collective scenario runs alone, whether it is the scenario or one of its branches.
  for (std::size_t m = 0; m <= options.branches.size() && !options.branches.empty(); ++m) {
    const Scenario& member = m == 0 ? scenario : options.branches[m - 1];
    if (member.protocol != Protocol::COLLECTIVE) continue;
    const std::string label = m == 0                                 ? options.file_label
                              : m - 1 < options.branch_labels.size() ? options.branch_labels[m - 1]
                                                                     : "--branch";
    throw input::InputError(label, "/protocol",
                            "\"parameter-server\" with --branch (branches share one "
                            "parameter-server simulation; a collective scenario runs alone)",
                            "\"collective\"");
  }
  const auto [members, labels] = members_of(scenario, options);
  // Every check that needs the data's and the model's sizes, as `failsim validate` makes them.
  CheckedRun checked;
  for (std::size_t m = 0; m < members.size(); ++m) {
    ResolvedJob r = resolve(members[m], labels[m]);
    // Moved, not copied: a collective job's plan holds millions of ranks' groups.
    if (m == 0) checked.job = std::move(r);
  }
  try {
    // Between the resolve step and SimGrid's probe, which does not look for a signal itself.
    input::throw_if_interrupted("after the resolve step");
    // Its checks: scenarios not run together (a collective scenario has no branches: above).
    if (scenario.protocol != Protocol::COLLECTIVE) static_cast<void>(Branching(members, labels));
    // SimGrid aborts on settings or a platform file it refuses: find out in a child process.
    checked.stacks =
        probe_simgrid_setup(options.simgrid_args, scenario, checked.job, options.file_label);
  } catch (const input::Interrupted&) {
    leave_to_exit(std::move(checked.job));
    throw;
  }
  return checked;
}

RunResult run(const Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto estimate = [&](const ResolvedJob& job) {
    if (options.on_estimate) options.on_estimate(estimate_wall_time(scenario, job));
  };
  if (scenario.protocol == Protocol::COLLECTIVE) {
    ResolvedJob resolved = check_run(scenario, options).job;
    estimate(resolved);
    try {
      return run_collective(scenario, resolved, options);
    } catch (const input::Interrupted&) {
      leave_to_exit(std::move(resolved));
      throw;
    }
  }
  const ResolvedJob resolved = check_run(scenario, options).job;
  estimate(resolved);
  return run_ps(scenario, resolved, options, wall_start);
}

}  // namespace failsim::sim
