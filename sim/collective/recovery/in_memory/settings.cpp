// Design "in-memory"'s section, recovery.in_memory (docs/cluster.md, "In-memory checkpoints"):
// read and written for its row of the designs (sim/collective/recovery/designs.def). It says when
// and how the design checkpoints, so the design refuses recovery.checkpoint. The check that needs
// the plan (the copies' host memory) is the plan's (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/in_memory/settings.hpp"

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"

namespace failsim::sim::in_memory {
using namespace failsim::input;
namespace {
const Choices<CopyPlacement> PLACEMENTS{{"same-node", CopyPlacement::SAME_NODE},
                                        {"partner-node", CopyPlacement::PARTNER_NODE}};

StrategySettings read_settings(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "in_memory", {"every_steps", "host_copy_bandwidth", "placement", "file_system_every"});
  InMemoryConfig c;
  c.every_steps = r.integer_or("every_steps", c.every_steps, 1);
  c.host_copy_bandwidth = r.quantity_or("host_copy_bandwidth", c.host_copy_bandwidth,
                                        Quantity::BANDWIDTH, Sign::POSITIVE);
  c.placement = r.choice_or("placement", c.placement, PLACEMENTS);
  c.file_system_every = r.integer_or("file_system_every", c.file_system_every, 0);
  return StrategySettings(c);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& c = settings.get<InMemoryConfig>();
  return {{"every_steps", c.every_steps},
          {"host_copy_bandwidth", c.host_copy_bandwidth},
          {"placement", spelling_of(c.placement, PLACEMENTS)},
          {"file_system_every", c.file_system_every}};
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {"in_memory", read_settings, settings_to_json, false};
}

}  // namespace failsim::sim::in_memory
