// Design "in-memory"'s section, recovery.in_memory (docs/cluster.md, "In-memory checkpoints"):
// read and written for its row of the designs (sim/collective/recovery/designs.def). It says when
// and how the design checkpoints, so the design refuses recovery.checkpoint. It tells the plan how
// many copies it keeps in host memory, which the plan checks (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/in_memory/settings.hpp"

#include <string>

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

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
/// The levelled checkpoints keep two versions in host memory (the latest, being written, and the
/// one before, complete) and, with a partner, the partner's two as well (docs/cluster.md).
int host_copies(const Scenario& s, const std::string& file) {
  const bool partner =
      s.collective.recovery.get<InMemoryConfig>().placement == CopyPlacement::PARTNER_NODE;
  if (partner && s.collective.platform.nodes < 2) {
    throw InputError(file, "/recovery/in_memory/placement",
                     "\"same-node\" on a platform of one node (a partner node needs "
                     "platform.nodes of at least 2)",
                     "\"partner-node\" with platform.nodes 1");
  }
  return partner ? 4 : 2;
}
CheckpointCadence cadence(const StrategySettings& settings) {
  return {settings.get<InMemoryConfig>().every_steps, "/recovery/in_memory/every_steps"};
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "in_memory",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = false,
          .checkpoint_cadence = cadence,
          .checks = {.host_copies = host_copies}};
}

}  // namespace failsim::sim::in_memory
