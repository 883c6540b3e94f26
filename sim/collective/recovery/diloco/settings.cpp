// The `recovery.diloco` section of a collective scenario (strategy "diloco", docs/cluster.md
// "DiLoCo"): the inner steps between outer synchronisations and the outer optimizer.
#include "input/object_reader.hpp"
#include "sim/scenario/collective/sections.hpp"

namespace failsim::sim::detail {

void read_diloco(const input::ObjectReader& recovery, CollectiveRecoveryConfig& into) {
  using input::Interval;
  const input::ObjectReader r = recovery.object_or_empty(
      "diloco",
      {"inner_steps", "outer_learning_rate", "outer_momentum", "nesterov", "outer_gradient_bytes"});
  DilocoConfig& d = into.diloco;
  d.inner_steps = r.integer_or("inner_steps", d.inner_steps, 1);
  d.outer_learning_rate =
      r.number_or("outer_learning_rate", d.outer_learning_rate, Interval::positive());
  d.outer_momentum = r.number_or("outer_momentum", d.outer_momentum, {0.0, 1.0, false, true});
  d.nesterov = r.boolean_or("nesterov", d.nesterov);
  d.outer_gradient_bytes =
      r.number_or("outer_gradient_bytes", d.outer_gradient_bytes, Interval::positive());
}

nlohmann::json diloco_to_json(const CollectiveRecoveryConfig& c) {
  const DilocoConfig& d = c.diloco;
  return {{"inner_steps", d.inner_steps},
          {"outer_learning_rate", d.outer_learning_rate},
          {"outer_momentum", d.outer_momentum},
          {"nesterov", d.nesterov},
          {"outer_gradient_bytes", d.outer_gradient_bytes}};
}

}  // namespace failsim::sim::detail
