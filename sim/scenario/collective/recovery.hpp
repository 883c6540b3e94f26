// The collective protocol's recovery designs as the scenario knows them: one row per line of
// sim/collective/recovery/designs.def, its name there and the format of its own settings, which
// its room gives (sim/collective/recovery/<room>/settings.cpp), with the checks it makes of the
// rest of the scenario. The reader (recovery.cpp) takes its choices, its refusals of other
// designs' sections and its writer from these rows, the resolve step and the plan call the
// checks of the scenario's design without naming it; the engine's factory is made from the same
// list (sim/collective/recovery/recovery.hpp). Engine-free, like the whole scenario.
#pragma once

#include <cstdint>

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/scenario/settings.hpp"

namespace failsim::input {
class ObjectReader;
}

namespace failsim::sim {

struct Scenario;

/// The fewest data-parallel replicas a design may go on with and the micro-batches each of them
/// then takes a step: the plan checks that their memory per accelerator fits, as it does the
/// full layout's.
struct FewestReplicas {
  int replicas = 1;
  int micro_batches = 1;
  const char* field = nullptr;  ///< the JSON pointer a refusal names (the design's setting)
};

/// A design's checks of the scenario beyond its own section (which its reader checks): the
/// resolve step (sim/scenario/resolve.cpp) and the plan (sim/scenario/collective/plan.cpp) call
/// the scenario's design's at fixed points, without naming it. nullptr where it has none. Each
/// throws input::InputError naming the field to change.
struct DesignChecks {
  /// In the resolve step, once the real model's memory is checked and before the plan: its
  /// demands on the layout and the checkpoints.
  void (*before_plan)(const Scenario& s, const std::string& file) = nullptr;
  /// In the plan, once the ranks are placed and their count checked: its demands on the layout.
  void (*placed)(const Scenario& s, const std::string& file) = nullptr;
  /// The fewest replicas it shrinks to, whose memory the plan checks after the full layout's
  /// (its own demands on them first). nullptr: it never runs on fewer.
  FewestReplicas (*fewest_replicas)(const Scenario& s, const std::string& file) = nullptr;
  /// How many copies of a node's checkpointed state it keeps in host memory, which the plan
  /// checks against platform.node.host_memory (its own demands on them first). nullptr: none.
  int (*host_copies)(const Scenario& s, const std::string& file) = nullptr;
  /// How many copies of the real model's parameters it holds beyond the job's own (in the
  /// resolve step's memory estimate). nullptr: none.
  double (*parameter_copies)(const Scenario& s) = nullptr;
};

/// How often a design checkpoints, in steps (0: never), and the field that says so.
struct CheckpointCadence {
  std::int64_t every_steps = 0;
  const char* field = nullptr;  ///< a JSON Pointer, e.g. "/recovery/in_memory/every_steps"
};

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
  /// How often a design whose own section says when it checkpoints does (the resolve step's
  /// estimate of the run's work counts them). nullptr: recovery.checkpoint.every_steps.
  CheckpointCadence (*checkpoint_cadence)(const StrategySettings& settings) = nullptr;
  /// Its checks of the rest of the scenario.
  DesignChecks checks = {};
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
/// The design named `name`, which the reader chose (std::logic_error for a name not in the list).
const CollectiveDesign& collective_design(std::string_view name);

// Each room's part of its row: failsim::sim::<room>::settings_format().
#define FAILSIM_COLLECTIVE_DESIGN(room, name) \
  namespace room {                            \
  DesignSettingsFormat settings_format();     \
  }
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN

}  // namespace failsim::sim
