#include "sim/collective/recovery/multi_level/multi_level.hpp"

#include "sim/collective/job/collective_job.hpp"

namespace failsim::sim {

CheckpointLevels MultiLevelCheckpoints::levels(const CollectiveJob& job) const {
  const MultiLevelConfig& c = job.scenario().collective.recovery.multi_level;
  CheckpointLevels l;
  l.every_steps = c.every_steps;
  l.host_copy_bandwidth = c.host_copy_bandwidth;
  l.disk_write_bandwidth = c.disk_write_bandwidth;
  l.disk_read_bandwidth = c.disk_read_bandwidth;
  l.file_system_every = 1;  // every checkpoint reaches every level
  return l;
}

}  // namespace failsim::sim
