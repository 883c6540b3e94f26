#include "sim/collective/recovery/in_memory/in_memory.hpp"

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/in_memory/settings.hpp"

namespace failsim::sim {

CheckpointLevels InMemoryCheckpoints::levels(const CollectiveJob& job) const {
  const InMemoryConfig& c = job.scenario().collective.recovery.get<InMemoryConfig>();
  CheckpointLevels l;
  l.every_steps = c.every_steps;
  l.host_copy_bandwidth = c.host_copy_bandwidth;
  // The partner of node i is node i + 1 of the job (a ring): a node failure leaves its state
  // on the next node; two neighbours lost together (a rack) leave it on the file system only.
  l.partner_offset = c.placement == CopyPlacement::PARTNER_NODE ? 1 : 0;
  l.file_system_every = c.file_system_every;
  return l;
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> in_memory::make() {
  return std::make_unique<InMemoryCheckpoints>();
}

}  // namespace failsim::sim
