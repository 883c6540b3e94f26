// Design "universal"'s section, recovery.universal (docs/cluster.md, "Resume on another
// layout"): read and written for its row of the designs (sim/collective/recovery/designs.def).
// The checks that need the layout (min_replicas against dp, the memory of the fewest replicas)
// are the plan's (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/universal/settings.hpp"

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"

namespace failsim::sim::universal {
using namespace failsim::input;
namespace {
const Choices<UniversalBatch> BATCHES{{"keep", UniversalBatch::KEEP},
                                      {"reduce", UniversalBatch::REDUCE}};
const Choices<UniversalGrow> GROWS{{"never", UniversalGrow::NEVER},
                                   {"at_checkpoint", UniversalGrow::AT_CHECKPOINT}};

StrategySettings read_settings(const ObjectReader& recovery) {
  const ObjectReader u =
      recovery.object_or_empty("universal", {"wait_limit", "min_replicas", "batch", "grow"});
  UniversalConfig c;
  c.wait_limit = u.quantity_or("wait_limit", c.wait_limit, Quantity::TIME, Sign::NON_NEGATIVE);
  c.min_replicas = static_cast<int>(u.integer_or("min_replicas", c.min_replicas, 1, 1 << 20));
  c.batch = u.choice_or("batch", c.batch, BATCHES);
  c.grow = u.choice_or("grow", c.grow, GROWS);
  return StrategySettings(c);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& u = settings.get<UniversalConfig>();
  return {{"wait_limit", u.wait_limit},
          {"min_replicas", u.min_replicas},
          {"batch", spelling_of(u.batch, BATCHES)},
          {"grow", spelling_of(u.grow, GROWS)}};
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {"universal", read_settings, settings_to_json, true};
}

}  // namespace failsim::sim::universal
