// The collective run's summary and its accounting checks (summary.hpp).
#include "sim/collective/summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace failsim::sim {

CollectiveSummary collective_summary(const Scenario& scenario, const CollectivePlan& plan,
                                     const CollectiveJob& job, StepNetwork& network,
                                     double end_time) {
  CollectiveSummary summary;
  summary.real_math = scenario.collective.workload.real_math;
  summary.counts = job.counts();
  summary.version = job.version();
  summary.samples_kept = job.ledger().samples_kept();
  for (std::size_t c = 0; c < TIME_CAUSES; ++c)
    summary.seconds[c] = job.ledger().seconds(static_cast<TimeCause>(c));
  summary.ettr = end_time > 0 ? summary.seconds[0] / end_time : 0.0;
  summary.ranks = plan.ranks();
  summary.nodes = scenario.collective.platform.nodes;
  summary.spare_nodes = scenario.collective.platform.spares;
  summary.pool_node_hours = job.pool_node_seconds(end_time) / 3600.0;
  summary.step_flops = plan.step_flops;
  summary.tokens_per_step = plan.tokens_per_step;
  summary.samples_per_step = plan.samples_per_step;
  summary.compute_seconds = plan.compute_seconds;
  summary.bubble_fraction = plan.bubble_fraction;
  summary.device_memory_bytes = plan.memory.total();
  summary.checkpoint_bytes = plan.checkpoint_bytes;
  summary.flows_per_step = network.flows_per_step();
  check_collective_accounting(summary, job.ledger().total(), end_time);
  return summary;
}

void check_collective_accounting(const CollectiveSummary& summary, double ledger_total,
                                 double end_time) {
  const CollectiveCounts& n = summary.counts;
  if (n.steps_completed - n.steps_rolled_back != summary.version) {
    throw std::logic_error(
        fmt::format("step accounting broken: completed {} - rolled back {} != kept {}",
                    n.steps_completed, n.steps_rolled_back, summary.version));
  }
  if (std::abs(n.samples_completed - n.samples_rolled_back - summary.samples_kept) >
      1e-9 * std::max(1.0, n.samples_completed)) {
    throw std::logic_error(
        fmt::format("sample accounting broken: completed {} - rolled back {} != kept {}",
                    n.samples_completed, n.samples_rolled_back, summary.samples_kept));
  }
  if (std::abs(ledger_total - end_time) > 1e-6 * std::max(1.0, end_time)) {
    throw std::logic_error(fmt::format(
        "time ledger broken: causes sum to {} s, the run ended at {} s", ledger_total, end_time));
  }
}

}  // namespace failsim::sim
