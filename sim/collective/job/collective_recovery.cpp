// The recovery designs' interface (collective_recovery.hpp): its defaults, and the end of every
// design's recovery.
#include "sim/collective/job/collective_recovery.hpp"

#include "sim/collective/job/collective_job.hpp"

namespace failsim::sim {

std::int64_t CollectiveRecovery::next_action_version(const CollectiveJob& job) const {
  return job.version() + 1;
}

Interrupt CollectiveRecovery::before_step(CollectiveJob& /*job*/) { return Interrupt::NONE; }

Interrupt CollectiveRecovery::before_update(CollectiveJob& /*job*/, const StepSpan& /*span*/) {
  return Interrupt::NONE;
}

bool restart_and_load(CollectiveJob& job, const std::function<Interrupt()>& load) {
  while (true) {
    if (job.wait_for_nodes() == Interrupt::STOP) return false;
    Interrupt i = job.restart_processes();
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::FAILURE) continue;
    i = load();
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::NONE) return true;
    job.take_due_outages();
  }
}

void CollectiveRecovery::apply_update(CollectiveJob& job) {
  if (job.math() != nullptr) job.math()->step(job.assignment().streams);
}

}  // namespace failsim::sim
