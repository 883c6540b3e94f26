// The collective protocol's recovery designs as the scenario knows them: one row per line of
// sim/collective/recovery/designs.def, its name there and the format of its own settings, which
// its room gives (sim/collective/recovery/<room>/settings.cpp). The reader (recovery.cpp) takes
// its choices, its refusals of other designs' sections and its writer from these rows; the
// engine's factory is made from the same list (sim/collective/recovery/recovery.hpp).
// Engine-free, like the whole scenario.
#pragma once

#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/scenario/settings.hpp"

namespace failsim::input {
class ObjectReader;
}

namespace failsim::sim {

/// How the scenario reads and writes a design's own settings (its room's struct in a
/// StrategySettings); nullptr functions where it has none.
struct DesignSettingsFormat {
  /// The key of its own section in the recovery object (recovery.<section>), nullptr for none;
  /// the other designs refuse it.
  const char* section = nullptr;
  /// Reads its settings from the recovery object (the section may be absent: its defaults).
  StrategySettings (*read)(const input::ObjectReader& recovery) = nullptr;
  /// Its section of the resolved scenario.
  nlohmann::json (*to_json)(const StrategySettings& settings) = nullptr;
  /// Whether it takes recovery.checkpoint (a design whose own section says when and how it
  /// checkpoints refuses it: a setting it would not use must not look as if it did).
  bool uses_checkpoint = true;
};

/// A recovery design as the scenario knows it: one line of designs.def.
struct CollectiveDesign {
  std::string_view name;  ///< its spelling in recovery.strategy
  DesignSettingsFormat settings;
};

/// Every design, in the order of designs.def (the format's).
std::span<const CollectiveDesign> collective_designs();
/// The design named `name`, or nullptr.
const CollectiveDesign* find_collective_design(std::string_view name);

// Each room's part of its row: failsim::sim::<room>::settings_format().
#define FAILSIM_COLLECTIVE_DESIGN(room, name) \
  namespace room {                            \
  DesignSettingsFormat settings_format();     \
  }
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN

}  // namespace failsim::sim
