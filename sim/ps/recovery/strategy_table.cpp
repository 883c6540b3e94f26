// The strategy table: every recovery strategy the format knows, one row each (recovery.hpp),
// made from the one list, strategies.def, in its order. Adding a strategy: its line there, its
// row function here (<name>_row), its settings beside its implementation
// (sim/ps/recovery/<name>/settings.{hpp,cpp}); the engine's table (strategies.hpp) is made from
// the same list.
#include <algorithm>

#include "sim/ps/recovery/chain/settings.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/stateless/settings.hpp"
#include "sim/ps/recovery/stateless_chain/settings.hpp"
#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

namespace {
// One row per line of strategies.def, named by it (named()).
RecoveryStrategy none_row() {
  return {.description = "a failed server stays dead; the failure-free baseline"};
}

RecoveryStrategy checkpoint_row() {
  return {.description =
              "periodic checkpoints to the storage host (or multi-level ones); a "
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
          .elastic_setting = "recovery.checkpoint.elastic"};
}

RecoveryStrategy chain_row() {
  return {.description = "chain replication over the server hosts; a replica is promoted",
          .sections = {"chain"},
          .read = detail::read_chain,
          .write = detail::write_chain,
          .uses_chain = true,
          .star_only = true};
}

RecoveryStrategy stateless_row() {
  return {.description =
              "parameters and pending gradients in an external store; a restarted "
              "server applies what piled up",
          .sections = {"stateless"},
          .read = detail::read_stateless,
          .write = detail::write_stateless,
          .uses_storage = true,
          .uses_store = true,
          .star_only = true};
}

RecoveryStrategy stateless_chain_row() {
  return {.description =
              "the external store with a replica chain behind the head; a replica is "
              "promoted and applies what piled up",
          .sections = {"chain", "stateless"},
          .read = detail::read_stateless_chain,
          .write = detail::write_stateless_chain,
          .uses_storage = true,
          .uses_chain = true,
          .uses_store = true,
          .star_only = true};
}

RecoveryStrategy named(std::string_view name, RecoveryStrategy row) {
  row.name = name;
  return row;
}
}  // namespace

std::span<const RecoveryStrategy> recovery_strategies() {
  static const std::vector<RecoveryStrategy> table{
#define FAILSIM_PS_STRATEGY(name, make) named(#name, name##_row()),
#include "sim/ps/recovery/strategies.def"
#undef FAILSIM_PS_STRATEGY
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
