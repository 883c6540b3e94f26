// The strategy table: every recovery strategy the format knows, one row each (recovery.hpp),
// in the order the format lists them. Adding a strategy: its settings file beside this one
// (sim/scenario/recovery/<name>.{hpp,cpp}), its row here, and its implementation registered by
// the same name in the simulation's table (sim/ps/recovery/strategies.hpp).
#include <algorithm>

#include "sim/ps/recovery/chain/settings.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/stateless/settings.hpp"
#include "sim/ps/recovery/stateless_chain/settings.hpp"
#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

std::span<const RecoveryStrategy> recovery_strategies() {
  static const std::vector<RecoveryStrategy> table{
      {.name = "none", .description = "a failed server stays dead; the failure-free baseline"},
      {.name = "checkpoint",
       .description = "periodic checkpoints to the storage host (or multi-level ones); a "
                      "restarted server loads the latest",
       .sections = {"checkpoint"},
       .read = detail::read_checkpoint,
       .check_cluster = detail::check_checkpoint_cluster,
       .write = detail::write_checkpoint,
       .uses_storage = true,
       .star_only = true,
       .keeps_spares = detail::checkpoint_keeps_spares,
       .spares_with = "multi-level",
       .elastic_patience = detail::checkpoint_elastic_patience,
       .elastic_setting = "recovery.checkpoint.elastic"},
      {.name = "chain",
       .description = "chain replication over the server hosts; a replica is promoted",
       .sections = {"chain"},
       .read = detail::read_chain,
       .write = detail::write_chain,
       .uses_chain = true,
       .star_only = true},
      {.name = "stateless",
       .description = "parameters and pending gradients in an external store; a restarted "
                      "server applies what piled up",
       .sections = {"stateless"},
       .read = detail::read_stateless,
       .write = detail::write_stateless,
       .uses_storage = true,
       .uses_store = true,
       .star_only = true},
      {.name = "stateless_chain",
       .description = "the external store with a replica chain behind the head; a replica is "
                      "promoted and applies what piled up",
       .sections = {"chain", "stateless"},
       .read = detail::read_stateless_chain,
       .write = detail::write_stateless_chain,
       .uses_storage = true,
       .uses_chain = true,
       .uses_store = true,
       .star_only = true},
  };
  return table;
}

const RecoveryStrategy* find_recovery_strategy(std::string_view name) {
  const auto table = recovery_strategies();
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const RecoveryStrategy& s) { return s.name == name; });
  return it == table.end() ? nullptr : &*it;
}

}  // namespace failsim::sim
