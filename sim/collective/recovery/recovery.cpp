#include "sim/collective/recovery/recovery.hpp"

#include <functional>
#include <map>
#include <stdexcept>
#include <string_view>

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

std::unique_ptr<CollectiveRecovery> make_collective_recovery(const std::string& strategy) {
  // One row per line of designs.def, under the name recovery.strategy spells it (the scenario
  // reader's choices come from the same list).
  static const std::map<std::string_view, std::unique_ptr<CollectiveRecovery> (*)()> designs{
#define FAILSIM_COLLECTIVE_DESIGN(room, name) {name, &room::make},
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN
  };
  const auto it = designs.find(strategy);
  if (it == designs.end()) {
    throw std::logic_error("no collective recovery design named \"" + strategy + "\"");
  }
  return it->second();
}

}  // namespace failsim::sim
