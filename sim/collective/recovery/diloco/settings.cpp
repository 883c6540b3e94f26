// Design "diloco"'s section, recovery.diloco (docs/cluster.md, "DiLoCo"): the inner steps
// between outer synchronisations and the outer optimizer, read and written for its row of the
// designs (sim/collective/recovery/designs.def). The checks that need the layout are the resolve
// step's (sim/scenario/resolve.cpp).
#include "sim/collective/recovery/diloco/settings.hpp"

#include "input/object_reader.hpp"
#include "sim/scenario/collective/recovery.hpp"

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
}  // namespace

DesignSettingsFormat settings_format() { return {"diloco", read_settings, settings_to_json, true}; }

}  // namespace failsim::sim::diloco
