// The collective protocol's `recovery` section: the strategy, the checkpoints and the restart
// every strategy may use, and the strategy's own section. Checkpoint-restart to the parallel
// file system is the baseline (docs/cluster.md, "Checkpoint-restart"); every other design is a
// row of STRATEGIES with the reader and the JSON of its section (the engine's side registers the
// same names in sim/collective/recovery/recovery.cpp).
#include <fmt/core.h>

#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<CheckpointMode> MODES{{"blocking", CheckpointMode::BLOCKING},
                                    {"snapshot", CheckpointMode::SNAPSHOT}};

/// A recovery strategy: its name (recovery.strategy), the section of its own settings
/// (recovery.<section>, nullptr for none), how to read that section (from the `recovery`
/// object; it may be absent: its defaults) into the config and how to write it back; whether it
/// takes recovery.checkpoint (a strategy whose own section says when and how it checkpoints
/// refuses it: a setting it would not use must not look as if it did).
struct Strategy {
  std::string_view name;
  const char* section;
  void (*read)(const ObjectReader& recovery, CollectiveRecoveryConfig& into);
  nlohmann::json (*to_json)(const CollectiveRecoveryConfig& c);
  bool uses_checkpoint = true;
};

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> table{
      {"checkpoint-restart", nullptr, nullptr, nullptr},
      {"in-memory", "in_memory", read_in_memory, in_memory_to_json, false},
      {"multi-level", "multi_level", read_multi_level, multi_level_to_json, false},
      {"universal", "universal", read_universal, universal_to_json, true},
      {"quorum", "quorum", read_quorum, quorum_to_json, true},
      {"diloco", "diloco", read_diloco, diloco_to_json, true},
  };
  return table;
}
}  // namespace

CollectiveRecoveryConfig read_collective_recovery(const ObjectReader& top) {
  std::vector<std::string_view> keys{"strategy", "checkpoint", "restart"};
  Choices<const Strategy*> names;
  for (const Strategy& s : strategies()) {
    names.emplace_back(s.name, &s);
    if (s.section != nullptr) keys.emplace_back(s.section);
  }
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json* section = top.find("recovery");
  const ObjectReader r(section != nullptr ? *section : empty, top.at("recovery"), keys);
  CollectiveRecoveryConfig c;
  const Strategy* strategy = r.choice_or("strategy", &strategies().front(), names);
  c.strategy = std::string(strategy->name);
  // A strategy's section, and no other's.
  for (const Strategy& s : strategies()) {
    if (s.section == nullptr || &s == strategy) continue;
    r.forbid(s.section, fmt::format("it applies only to strategy \"{}\"", s.name));
  }
  if (strategy->section != nullptr) strategy->read(r, c);
  if (!strategy->uses_checkpoint) {
    r.forbid("checkpoint", fmt::format("strategy \"{}\" checkpoints as recovery.{} says",
                                       strategy->name, strategy->section));
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
  for (const Strategy& s : strategies()) {
    if (s.name != c.strategy) continue;
    if (s.uses_checkpoint) out["checkpoint"] = checkpoint;
    if (s.section != nullptr) out[s.section] = s.to_json(c);
  }
  return out;
}

}  // namespace failsim::sim::detail
