// A collective run's summary (result.json's `summary.collective`, output/collective_summary.hpp)
// read off the job, the plan and the network at the end of the run, and the accounting checks
// it must pass: every completed step and sample kept or rolled back, every simulated second in
// one cause.
#pragma once

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/output/collective_summary.hpp"
#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// The summary of the collective run of `scenario` with `plan` that ended at `end_time`; throws
/// std::logic_error when its accounting is broken (a bug: check_collective_accounting).
CollectiveSummary collective_summary(const Scenario& scenario, const CollectivePlan& plan,
                                     const CollectiveJob& job, StepNetwork& network,
                                     double end_time);

/// Every completed step is kept or rolled back, and so is every sample it took (a step's batch
/// depends on the assignment); every simulated second is in one cause (`ledger_total`, against
/// `end_time`). Throws std::logic_error naming the broken sum.
void check_collective_accounting(const CollectiveSummary& summary, double ledger_total,
                                 double end_time);

}  // namespace failsim::sim
