// Design "live-migration"'s section, recovery.live_migration (docs/cluster.md, "Live migration to
// a warm standby"): read and written for its row of the designs
// (sim/collective/recovery/designs.def). It checkpoints as checkpoint-restart does (its fall-back
// loads those checkpoints), so it takes recovery.checkpoint. Its checks of the rest of the
// scenario are made here: a standby to move to (platform.spares), a data-parallel peer holding the
// same state (layout.dp >= 2, ZeRO 0). A scenario where the design could never migrate is refused
// rather than run as checkpoint-restart under another name.
#include "sim/collective/recovery/live_migration/settings.hpp"

#include <string>

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim::live_migration {
using namespace failsim::input;
namespace {

StrategySettings read_settings(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty("live_migration", {"communicator_init"});
  LiveMigrationConfig c;
  c.communicator_init =
      r.optional_quantity("communicator_init", Quantity::TIME, Sign::NON_NEGATIVE);
  return StrategySettings(c);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& c = settings.get<LiveMigrationConfig>();
  nlohmann::json out = nlohmann::json::object();
  if (c.communicator_init) out["communicator_init"] = *c.communicator_init;
  return out;
}

/// A migration needs a standby and a peer that holds the moved ranks' state; without either it
/// would never migrate (every failure would be checkpoint-restart's).
void check_standby_and_peer(const Scenario& s, const std::string& file) {
  const LayoutConfig& l = s.collective.layout;
  if (s.collective.platform.spares < 1) {
    throw InputError(file, "/platform/spares",
                     "at least 1 with recovery.strategy \"live-migration\" (the warm standbys "
                     "a failed node's ranks move to; without one every failure is "
                     "checkpoint-restart's: choose that strategy)",
                     std::to_string(s.collective.platform.spares));
  }
  if (l.dp < 2) {
    throw InputError(file, "/layout/dp",
                     "at least 2 with recovery.strategy \"live-migration\" (a moved rank's state "
                     "comes from a data-parallel peer; with one replica nobody else holds it)",
                     std::to_string(l.dp));
  }
  if (l.zero_stage != 0) {
    throw InputError(file, "/layout/zero_stage",
                     "0 with recovery.strategy \"live-migration\" (ZeRO shards the optimizer "
                     "state over the data-parallel replicas: no peer holds a moved rank's shard)",
                     std::to_string(l.zero_stage));
  }
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "live_migration",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = true,
          .checks = {.before_plan = check_standby_and_peer}};
}

}  // namespace failsim::sim::live_migration
