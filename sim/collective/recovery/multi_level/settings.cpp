// Design "multi-level"'s section, recovery.multi_level (docs/cluster.md, "Lazy multi-level
// checkpoints"): read and written for its row of the designs
// (sim/collective/recovery/designs.def). It says when the design checkpoints, so the design
// refuses recovery.checkpoint. It keeps two copies in host memory, which the plan checks.
#include "sim/collective/recovery/multi_level/settings.hpp"

#include <string>
#include <utility>

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"

namespace failsim::sim::multi_level {
using namespace failsim::input;
namespace {

StrategySettings read_settings(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "multi_level",
      {"every_steps", "host_copy_bandwidth", "disk_write_bandwidth", "disk_read_bandwidth"});
  MultiLevelConfig c;
  c.every_steps = r.integer_or("every_steps", c.every_steps, 1);
  for (auto [key, value] : {std::pair{"host_copy_bandwidth", &c.host_copy_bandwidth},
                            std::pair{"disk_write_bandwidth", &c.disk_write_bandwidth},
                            std::pair{"disk_read_bandwidth", &c.disk_read_bandwidth}}) {
    *value = r.quantity_or(key, *value, Quantity::BANDWIDTH, Sign::POSITIVE);
  }
  return StrategySettings(c);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& c = settings.get<MultiLevelConfig>();
  return {{"every_steps", c.every_steps},
          {"host_copy_bandwidth", c.host_copy_bandwidth},
          {"disk_write_bandwidth", c.disk_write_bandwidth},
          {"disk_read_bandwidth", c.disk_read_bandwidth}};
}
/// The levelled checkpoints' two versions in host memory: the latest, being written, and the
/// one before, complete (docs/cluster.md).
int host_copies(const Scenario& /*s*/, const std::string& /*file*/) { return 2; }
CheckpointCadence cadence(const StrategySettings& settings) {
  return {settings.get<MultiLevelConfig>().every_steps, "/recovery/multi_level/every_steps"};
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "multi_level",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = false,
          .checkpoint_cadence = cadence,
          .checks = {.host_copies = host_copies}};
}

}  // namespace failsim::sim::multi_level
