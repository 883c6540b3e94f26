// Design "quorum"'s section, recovery.quorum: the per-step quorum's replica groups, its latency,
// its detection and the reconfiguration of its process groups (docs/cluster.md, "Per-step
// quorum"); read and written for its row of the designs (sim/collective/recovery/designs.def).
// The checks that need the plan (at least two groups, group_replicas dividing dp, min_replicas
// at most the groups, no ZeRO) are the plan's (sim/scenario/collective/plan.cpp).
#include "sim/collective/recovery/quorum/settings.hpp"

#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/recovery.hpp"

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
}  // namespace

DesignSettingsFormat settings_format() { return {"quorum", read_settings, settings_to_json, true}; }

}  // namespace failsim::sim::quorum
