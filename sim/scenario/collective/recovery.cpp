// The collective protocol's `recovery` section: the design (recovery.strategy), the checkpoints
// and the restart every design may use, and the design's own section. Checkpoint-restart to the
// parallel file system is the baseline (docs/cluster.md, "Checkpoint-restart"); every design is a
// line of sim/collective/recovery/designs.def, its section read and written by its room
// (recovery.hpp), and the engine's factory is made from the same list.
#include "sim/scenario/collective/recovery.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim {

std::span<const CollectiveDesign> collective_designs() {
  static const std::array table{
#define FAILSIM_COLLECTIVE_DESIGN(room, name) CollectiveDesign{name, room::settings_format()},
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN
  };
  return table;
}

const CollectiveDesign* find_collective_design(std::string_view name) {
  const auto designs = collective_designs();
  const auto it = std::find_if(designs.begin(), designs.end(),
                               [&](const CollectiveDesign& d) { return d.name == name; });
  return it != designs.end() ? &*it : nullptr;
}

const CollectiveDesign& collective_design(std::string_view name) {
  const CollectiveDesign* design = find_collective_design(name);
  if (design == nullptr) {
    throw std::logic_error("collective recovery design \"" + std::string(name) +
                           "\" is not in designs.def");
  }
  return *design;
}

namespace detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<CheckpointMode> MODES{{"blocking", CheckpointMode::BLOCKING},
                                    {"snapshot", CheckpointMode::SNAPSHOT}};

}  // namespace

CollectiveRecoveryConfig read_collective_recovery(const ObjectReader& top) {
  std::vector<std::string_view> keys{"strategy", "checkpoint", "restart"};
  Choices<const CollectiveDesign*> names;
  for (const CollectiveDesign& d : collective_designs()) {
    names.emplace_back(d.name, &d);
    if (d.settings.section != nullptr) keys.emplace_back(d.settings.section);
  }
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json* section = top.find("recovery");
  const ObjectReader r(section != nullptr ? *section : empty, top.at("recovery"), keys);
  CollectiveRecoveryConfig c;
  const CollectiveDesign* design = r.choice_or("strategy", &collective_designs().front(), names);
  c.strategy = std::string(design->name);
  // A design's section, and no other's.
  for (const CollectiveDesign& d : collective_designs()) {
    if (d.settings.section == nullptr || &d == design) continue;
    r.forbid(d.settings.section, fmt::format("it applies only to strategy \"{}\"", d.name));
  }
  const DesignSettingsFormat& own = design->settings;
  if (own.read != nullptr) c.settings = own.read(r);
  if (!own.uses_checkpoint) {
    r.forbid("checkpoint", fmt::format("strategy \"{}\" checkpoints as recovery.{} says",
                                       design->name, own.section));
  }
  const ObjectReader k =
      r.object_or_empty("checkpoint", {"every_steps", "mode", "host_copy_bandwidth"});
  c.checkpoint.every_steps = k.integer_or("every_steps", c.checkpoint.every_steps, 0);
  c.checkpoint.mode = k.choice_or("mode", c.checkpoint.mode, MODES);
  if (c.checkpoint.mode == CheckpointMode::SNAPSHOT) {
    c.checkpoint.host_copy_bandwidth =
        k.quantity_or("host_copy_bandwidth", c.checkpoint.host_copy_bandwidth, Quantity::BANDWIDTH,
                      Sign::POSITIVE);
  } else {
    k.forbid("host_copy_bandwidth", "it applies only to mode \"snapshot\"");
  }
  const ObjectReader s = r.object_or_empty(
      "restart", {"scheduler_delay", "process_start", "init_base", "init_per_rank"});
  RestartConfig& rs = c.restart;
  rs.scheduler_delay =
      s.quantity_or("scheduler_delay", rs.scheduler_delay, Quantity::TIME, Sign::NON_NEGATIVE);
  rs.process_start =
      s.quantity_or("process_start", rs.process_start, Quantity::TIME, Sign::NON_NEGATIVE);
  rs.init_base = s.quantity_or("init_base", rs.init_base, Quantity::TIME, Sign::NON_NEGATIVE);
  rs.init_per_rank =
      s.quantity_or("init_per_rank", rs.init_per_rank, Quantity::TIME, Sign::NON_NEGATIVE);
  return c;
}

nlohmann::json collective_recovery_to_json(const CollectiveRecoveryConfig& c) {
  nlohmann::json checkpoint{{"every_steps", c.checkpoint.every_steps},
                            {"mode", spelling_of(c.checkpoint.mode, MODES)}};
  if (c.checkpoint.mode == CheckpointMode::SNAPSHOT)
    checkpoint["host_copy_bandwidth"] = c.checkpoint.host_copy_bandwidth;
  nlohmann::json out{{"strategy", c.strategy},
                     {"restart",
                      {{"scheduler_delay", c.restart.scheduler_delay},
                       {"process_start", c.restart.process_start},
                       {"init_base", c.restart.init_base},
                       {"init_per_rank", c.restart.init_per_rank}}}};
  const DesignSettingsFormat& own = collective_design(c.strategy).settings;
  if (own.uses_checkpoint) out["checkpoint"] = checkpoint;
  if (own.to_json != nullptr) out[own.section] = own.to_json(c.settings);
  return out;
}

}  // namespace detail
}  // namespace failsim::sim
