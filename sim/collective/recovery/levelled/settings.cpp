// The sections of the two levelled-checkpoint strategies (docs/cluster.md, "In-memory
// checkpoints" and "Lazy multi-level checkpoints"): recovery.in_memory and recovery.multi_level,
// rows of the strategies' table in recovery.cpp.
#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"

namespace failsim::sim::detail {
using namespace failsim::input;
namespace {
const Choices<CopyPlacement> PLACEMENTS{{"same-node", CopyPlacement::SAME_NODE},
                                        {"partner-node", CopyPlacement::PARTNER_NODE}};
}  // namespace

void read_in_memory(const ObjectReader& recovery, CollectiveRecoveryConfig& into) {
  const ObjectReader r = recovery.object_or_empty(
      "in_memory", {"every_steps", "host_copy_bandwidth", "placement", "file_system_every"});
  InMemoryConfig& c = into.in_memory;
  c.every_steps = r.integer_or("every_steps", c.every_steps, 1);
  c.host_copy_bandwidth = r.quantity_or("host_copy_bandwidth", c.host_copy_bandwidth,
                                        Quantity::BANDWIDTH, Sign::POSITIVE);
  c.placement = r.choice_or("placement", c.placement, PLACEMENTS);
  c.file_system_every = r.integer_or("file_system_every", c.file_system_every, 0);
}

nlohmann::json in_memory_to_json(const CollectiveRecoveryConfig& from) {
  const InMemoryConfig& c = from.in_memory;
  return {{"every_steps", c.every_steps},
          {"host_copy_bandwidth", c.host_copy_bandwidth},
          {"placement", spelling_of(c.placement, PLACEMENTS)},
          {"file_system_every", c.file_system_every}};
}

void read_multi_level(const ObjectReader& recovery, CollectiveRecoveryConfig& into) {
  const ObjectReader r = recovery.object_or_empty(
      "multi_level",
      {"every_steps", "host_copy_bandwidth", "disk_write_bandwidth", "disk_read_bandwidth"});
  MultiLevelConfig& c = into.multi_level;
  c.every_steps = r.integer_or("every_steps", c.every_steps, 1);
  for (auto [key, value] : {std::pair{"host_copy_bandwidth", &c.host_copy_bandwidth},
                            std::pair{"disk_write_bandwidth", &c.disk_write_bandwidth},
                            std::pair{"disk_read_bandwidth", &c.disk_read_bandwidth}}) {
    *value = r.quantity_or(key, *value, Quantity::BANDWIDTH, Sign::POSITIVE);
  }
}

nlohmann::json multi_level_to_json(const CollectiveRecoveryConfig& from) {
  const MultiLevelConfig& c = from.multi_level;
  return {{"every_steps", c.every_steps},
          {"host_copy_bandwidth", c.host_copy_bandwidth},
          {"disk_write_bandwidth", c.disk_write_bandwidth},
          {"disk_read_bandwidth", c.disk_read_bandwidth}};
}

}  // namespace failsim::sim::detail
