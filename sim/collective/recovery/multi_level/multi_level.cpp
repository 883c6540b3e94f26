#include "sim/collective/recovery/multi_level/multi_level.hpp"

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/multi_level/settings.hpp"

namespace failsim::sim {

CheckpointLevels MultiLevelCheckpoints::levels(const CollectiveJob& job) const {
  const MultiLevelConfig& c = job.scenario().collective.recovery.get<MultiLevelConfig>();
  CheckpointLevels l;
  l.every_steps = c.every_steps;
  l.host_copy_bandwidth = c.host_copy_bandwidth;
  l.disk_write_bandwidth = c.disk_write_bandwidth;
  l.disk_read_bandwidth = c.disk_read_bandwidth;
  l.file_system_every = 1;  // every checkpoint reaches every level
  return l;
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> multi_level::make() {
  return std::make_unique<MultiLevelCheckpoints>();
}

}  // namespace failsim::sim
