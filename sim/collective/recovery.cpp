#include "sim/collective/recovery.hpp"

#include <functional>
#include <map>
#include <stdexcept>

#include "sim/collective/checkpoint_restart.hpp"
#include "sim/collective/collective_job.hpp"
#include "sim/collective/diloco.hpp"

namespace failsim::sim {

Interrupt CollectiveRecovery::before_update(CollectiveJob& /*job*/, const StepSpan& /*span*/) {
  return Interrupt::NONE;
}

void CollectiveRecovery::apply_update(CollectiveJob& job) {
  if (job.math() != nullptr) job.math()->step(job.assignment().streams);
}

std::unique_ptr<CollectiveRecovery> make_collective_recovery(const std::string& strategy) {
  // One row per design, under the name recovery.strategy spells it
  // (sim/scenario/collective/recovery.cpp reads the same names).
  static const std::map<std::string, std::function<std::unique_ptr<CollectiveRecovery>()>> designs{
      {"checkpoint-restart", [] { return std::make_unique<CheckpointRestart>(); }},
      {"diloco", [] { return std::make_unique<Diloco>(); }}};
  const auto it = designs.find(strategy);
  if (it == designs.end()) {
    throw std::logic_error("no collective recovery design named \"" + strategy + "\"");
  }
  return it->second();
}

}  // namespace failsim::sim
