// Design "diloco"'s section, recovery.diloco (docs/cluster.md, "DiLoCo"): the inner steps
// between outer synchronisations and the outer optimizer, read and written for its row of the
// designs (sim/collective/recovery/designs.def), with its checks of the rest of the scenario,
// which the resolve step calls (sim/scenario/resolve.cpp).
#include "sim/collective/recovery/diloco/settings.hpp"

#include <string>

#include "input/object_reader.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim::diloco {
namespace {

StrategySettings read_settings(const input::ObjectReader& recovery) {
  using input::Interval;
  const input::ObjectReader r = recovery.object_or_empty(
      "diloco",
      {"inner_steps", "outer_learning_rate", "outer_momentum", "nesterov", "outer_gradient_bytes"});
  DilocoConfig d;
  d.inner_steps = r.integer_or("inner_steps", d.inner_steps, 1);
  d.outer_learning_rate =
      r.number_or("outer_learning_rate", d.outer_learning_rate, Interval::positive());
  d.outer_momentum = r.number_or("outer_momentum", d.outer_momentum, {0.0, 1.0, false, true});
  d.nesterov = r.boolean_or("nesterov", d.nesterov);
  d.outer_gradient_bytes =
      r.number_or("outer_gradient_bytes", d.outer_gradient_bytes, Interval::positive());
  return StrategySettings(d);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& d = settings.get<DilocoConfig>();
  return {{"inner_steps", d.inner_steps},
          {"outer_learning_rate", d.outer_learning_rate},
          {"outer_momentum", d.outer_momentum},
          {"nesterov", d.nesterov},
          {"outer_gradient_bytes", d.outer_gradient_bytes}};
}
/// DiLoCo's groups are the data-parallel replicas, each with all of its state: at least two,
/// no ZeRO sharding across them, and no file-system checkpoint (it takes none; docs/cluster.md).
void check_layout(const Scenario& s, const std::string& file) {
  const LayoutConfig& l = s.collective.layout;
  if (l.dp < 2) {
    throw input::InputError(file, "/layout/dp",
                            "at least 2 data-parallel replicas for recovery.strategy \"diloco\" "
                            "(its groups are the replicas)",
                            std::to_string(l.dp));
  }
  if (l.zero_stage != 0) {
    throw input::InputError(file, "/layout/zero_stage",
                            "0 with recovery.strategy \"diloco\" (each group holds its whole "
                            "state: ZeRO would shard it across the groups, which do not "
                            "synchronise between outer steps)",
                            std::to_string(l.zero_stage));
  }
  if (s.collective.recovery.checkpoint.every_steps != 0) {
    throw input::InputError(file, "/recovery/checkpoint/every_steps",
                            "0 with recovery.strategy \"diloco\" (it takes no file-system "
                            "checkpoint: a failed group copies a live group's state)",
                            std::to_string(s.collective.recovery.checkpoint.every_steps));
  }
}

/// Every group's parameters and its inner optimizer's state (a velocity, or AdamW's two moments).
double parameter_copies(const Scenario& s) {
  return (s.optimizer.kind == OptimizerKind::ADAMW ? 3.0 : 2.0) * s.collective.layout.dp;
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "diloco",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = true,
          .checks = {.before_plan = check_layout, .parameter_copies = parameter_copies}};
}

}  // namespace failsim::sim::diloco
