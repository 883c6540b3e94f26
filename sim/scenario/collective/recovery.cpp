// The collective protocol's `recovery` section. Checkpoint-restart to the parallel file system is
// the baseline (docs/cluster.md, "Checkpoint-restart"); the recovery designs of large jobs
// (issue 23) come beside it as strategies of their own.
#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<std::string> STRATEGIES{{"checkpoint-restart", "checkpoint-restart"}};
const Choices<CheckpointMode> MODES{{"blocking", CheckpointMode::BLOCKING},
                                    {"snapshot", CheckpointMode::SNAPSHOT}};
}  // namespace

CollectiveRecoveryConfig read_collective_recovery(const ObjectReader& top) {
  const ObjectReader r = top.object_or_empty("recovery", {"strategy", "checkpoint", "restart"});
  CollectiveRecoveryConfig c;
  c.strategy = r.choice_or("strategy", c.strategy, STRATEGIES);
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
  return {{"strategy", c.strategy},
          {"checkpoint", checkpoint},
          {"restart",
           {{"scheduler_delay", c.restart.scheduler_delay},
            {"process_start", c.restart.process_start},
            {"init_base", c.restart.init_base},
            {"init_per_rank", c.restart.init_per_rank}}}};
}

}  // namespace failsim::sim::detail
