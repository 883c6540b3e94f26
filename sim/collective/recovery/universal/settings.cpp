// recovery.universal: the settings of a resume on another layout (docs/cluster.md, "Resume on
// another layout"). The checks that need the layout (min_replicas against dp, the memory of the
// fewest replicas) are the plan's (collective_plan.cpp).
#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"

namespace failsim::sim::detail {
using namespace failsim::input;
namespace {
const Choices<UniversalBatch> BATCHES{{"keep", UniversalBatch::KEEP},
                                      {"reduce", UniversalBatch::REDUCE}};
const Choices<UniversalGrow> GROWS{{"never", UniversalGrow::NEVER},
                                   {"at_checkpoint", UniversalGrow::AT_CHECKPOINT}};
}  // namespace

void read_universal(const ObjectReader& recovery, CollectiveRecoveryConfig& into) {
  const ObjectReader u =
      recovery.object_or_empty("universal", {"wait_limit", "min_replicas", "batch", "grow"});
  UniversalConfig& c = into.universal;
  c.wait_limit = u.quantity_or("wait_limit", c.wait_limit, Quantity::TIME, Sign::NON_NEGATIVE);
  c.min_replicas = static_cast<int>(u.integer_or("min_replicas", c.min_replicas, 1, 1 << 20));
  c.batch = u.choice_or("batch", c.batch, BATCHES);
  c.grow = u.choice_or("grow", c.grow, GROWS);
}

nlohmann::json universal_to_json(const CollectiveRecoveryConfig& c) {
  const UniversalConfig& u = c.universal;
  return {{"wait_limit", u.wait_limit},
          {"min_replicas", u.min_replicas},
          {"batch", spelling_of(u.batch, BATCHES)},
          {"grow", spelling_of(u.grow, GROWS)}};
}

}  // namespace failsim::sim::detail
