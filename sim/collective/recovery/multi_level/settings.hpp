// Design "multi-level"'s settings (recovery.multi_level, docs/cluster.md "Lazy multi-level
// checkpoints"): its struct; settings.cpp reads and writes them (engine-free, in
// failsim_scenario).
#pragma once

#include <cstdint>

namespace failsim::sim {

/// Lazy asynchronous multi-level checkpoints (docs/cluster.md, "Lazy multi-level checkpoints"):
/// after every `every_steps`-th step, host memory, then each node's local disk and the file
/// system in the background.
struct MultiLevelConfig {
  std::int64_t every_steps = 1;        ///< >= 1
  double host_copy_bandwidth = 50e9;   ///< bytes/s of each accelerator's copy to host and back
  double disk_write_bandwidth = 15e9;  ///< bytes/s of a node's local disk (assumed: 4 NVMe drives)
  double disk_read_bandwidth = 28e9;   ///< bytes/s, likewise

  bool operator==(const MultiLevelConfig&) const = default;
};

}  // namespace failsim::sim
