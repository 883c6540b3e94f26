// Design "quorum"'s section, recovery.quorum: the per-step quorum's replica groups, its latency,
// its detection and the reconfiguration of its process groups (docs/cluster.md, "Per-step
// quorum"); read and written for its row of the designs (sim/collective/recovery/designs.def).
// Its checks of the rest of the scenario (at least two groups, group_replicas dividing dp,
// min_replicas at most the groups, no checkpoint, no ZeRO) are made here too; the plan calls
// them once the ranks are placed (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/quorum/settings.hpp"

#include <fmt/core.h>

#include <string>

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim::quorum {
using namespace failsim::input;
namespace {
const Choices<QuorumDetection> DETECTIONS{
    {"fail_fast", QuorumDetection::FAIL_FAST},
    {"collective_timeout", QuorumDetection::COLLECTIVE_TIMEOUT}};

StrategySettings read_settings(const ObjectReader& recovery) {
  const ObjectReader r =
      recovery.object_or_empty("quorum", {"group_replicas", "min_replicas", "latency", "detection",
                                          "heartbeat_timeout", "reconfigure"});
  QuorumConfig q;
  q.group_replicas = static_cast<int>(r.integer_or("group_replicas", q.group_replicas, 1, 1 << 20));
  q.min_replicas = static_cast<int>(r.integer_or("min_replicas", q.min_replicas, 1, 1 << 20));
  q.latency = r.quantity_or("latency", q.latency, Quantity::TIME, Sign::NON_NEGATIVE);
  q.detection = r.choice_or("detection", q.detection, DETECTIONS);
  if (q.detection == QuorumDetection::FAIL_FAST) {
    q.heartbeat_timeout =
        r.quantity_or("heartbeat_timeout", q.heartbeat_timeout, Quantity::TIME, Sign::NON_NEGATIVE);
  } else {
    r.forbid("heartbeat_timeout",
             "it applies only to detection \"fail_fast\" (\"collective_timeout\" waits for "
             "failures.detection)");
  }
  q.reconfigure = r.optional_quantity("reconfigure", Quantity::TIME, Sign::NON_NEGATIVE);
  return StrategySettings(q);
}

nlohmann::json settings_to_json(const StrategySettings& settings) {
  const auto& q = settings.get<QuorumConfig>();
  nlohmann::json out{{"group_replicas", q.group_replicas},
                     {"min_replicas", q.min_replicas},
                     {"latency", q.latency},
                     {"detection", spelling_of(q.detection, DETECTIONS)}};
  if (q.detection == QuorumDetection::FAIL_FAST) out["heartbeat_timeout"] = q.heartbeat_timeout;
  if (q.reconfigure) out["reconfigure"] = *q.reconfigure;
  return out;
}
/// The groups against the layout: a quorum needs at least two, each whole replicas; a joining
/// group copies a live peer's state, so there is no checkpoint and no ZeRO sharding across them.
void check_layout(const Scenario& s, const std::string& file) {
  const CollectiveRecoveryConfig& r = s.collective.recovery;
  const LayoutConfig& l = s.collective.layout;
  const auto& q = r.get<QuorumConfig>();
  if (l.dp % q.group_replicas != 0) {
    throw InputError(file, "/recovery/quorum/group_replicas",
                     fmt::format("a divisor of layout.dp ({})", l.dp),
                     std::to_string(q.group_replicas));
  }
  const int groups = l.dp / q.group_replicas;
  if (groups < 2) {
    const bool one = q.group_replicas == 1;
    throw InputError(
        file, one ? "/layout/dp" : "/recovery/quorum/group_replicas",
        "at least 2 replica groups for a quorum (layout.dp / recovery.quorum.group_replicas)",
        fmt::format("{} (dp {} / group_replicas {})", groups, l.dp, q.group_replicas));
  }
  if (q.min_replicas > groups) {
    throw InputError(file, "/recovery/quorum/min_replicas",
                     fmt::format("at most the replica groups ({}: dp {} / group_replicas {})",
                                 groups, l.dp, q.group_replicas),
                     std::to_string(q.min_replicas));
  }
  if (r.checkpoint.every_steps != 0) {
    throw InputError(file, "/recovery/checkpoint/every_steps",
                     "0 under strategy \"quorum\" (it writes no checkpoint: a joining "
                     "group copies a live peer's state)",
                     std::to_string(r.checkpoint.every_steps));
  }
  if (l.zero_stage != 0) {
    throw InputError(
        file, "/layout/zero_stage",
        "0 under strategy \"quorum\" (ZeRO shards the model's state over the data-parallel "
        "replicas: a dropped group would take its shards with it)",
        std::to_string(l.zero_stage));
  }
}
}  // namespace

DesignSettingsFormat settings_format() {
  return {.section = "quorum",
          .read = read_settings,
          .to_json = settings_to_json,
          .uses_checkpoint = true,
          .checks = {.placed = check_layout}};
}

}  // namespace failsim::sim::quorum
