#include "sim/collective/recovery/recovery.hpp"

#include <functional>
#include <map>
#include <stdexcept>

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/checkpoint_restart/checkpoint_restart.hpp"
#include "sim/collective/recovery/diloco/diloco.hpp"
#include "sim/collective/recovery/in_memory/in_memory.hpp"
#include "sim/collective/recovery/multi_level/multi_level.hpp"
#include "sim/collective/recovery/quorum/quorum.hpp"
#include "sim/collective/recovery/universal/universal_checkpoint.hpp"

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
  // One row per design, under the name recovery.strategy spells it
  // (sim/scenario/collective/recovery.cpp reads the same names).
  static const std::map<std::string, std::function<std::unique_ptr<CollectiveRecovery>()>> designs{
      {"checkpoint-restart", [] { return std::make_unique<CheckpointRestart>(); }},
      {"in-memory", [] { return std::make_unique<InMemoryCheckpoints>(); }},
      {"multi-level", [] { return std::make_unique<MultiLevelCheckpoints>(); }},
      {"universal", [] { return std::make_unique<UniversalCheckpoint>(); }},
      {"quorum", [] { return std::make_unique<PerStepQuorum>(); }},
      {"diloco", [] { return std::make_unique<Diloco>(); }}};
  const auto it = designs.find(strategy);
  if (it == designs.end()) {
    throw std::logic_error("no collective recovery design named \"" + strategy + "\"");
  }
  return it->second();
}

}  // namespace failsim::sim
