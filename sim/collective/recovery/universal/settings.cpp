// Design "universal"'s section, recovery.universal (docs/cluster.md, "Resume on another
// layout"): read and written for its row of the designs (sim/collective/recovery/designs.def).
// Its checks of the rest of the scenario (min_replicas against dp, growing back at checkpoints)
// are made here too and give the plan the fewest replicas whose memory it checks
// (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/universal/settings.hpp"

#include <fmt/core.h>

#include <string>

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

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
/// It goes on with min_replicas of the dp replicas at the fewest, each then holding a larger
/// ZeRO shard and, when the global batch is kept, accumulating ceil(dp / min_replicas) x m
/// micro-batches; it grows back only at a checkpoint, so it needs checkpoints to do so.
FewestReplicas fewest_replicas(const Scenario& s, const std::string& file) {
  const CollectiveRecoveryConfig& r = s.collective.recovery;
  const LayoutConfig& l = s.collective.layout;
  const auto& u = r.get<UniversalConfig>();
  constexpr const char* MIN_REPLICAS = "/recovery/universal/min_replicas";
  if (u.min_replicas > l.dp) {
    throw InputError(file, MIN_REPLICAS,
                     fmt::format("at most layout.dp {} (the replicas the job starts with)", l.dp),
                     std::to_string(u.min_replicas));
  }
  if (u.grow == UniversalGrow::AT_CHECKPOINT && r.checkpoint.every_steps == 0) {
    throw InputError(file, "/recovery/universal/grow",
                     "\"never\" when recovery.checkpoint.every_steps is 0 (the job grows "
                     "back at a checkpoint)",
                     "\"at_checkpoint\"");
  }
  FewestReplicas fewest{
      .replicas = u.min_replicas, .micro_batches = l.micro_batches, .field = MIN_REPLICAS};
  if (u.batch == UniversalBatch::KEEP)
    fewest.micro_batches *= (l.dp + u.min_replicas - 1) / u.min_replicas;
  return fewest;
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "universal",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = true,
          .checks = {.fewest_replicas = fewest_replicas}};
}

}  // namespace failsim::sim::universal
