// The simulation's strategy table: each recovery strategy's implementation (one file each,
// sim/recovery/<name>.cpp) registered under the name the scenario's strategy table gives it
// (sim/ps/recovery/strategy_table.cpp), which holds everything else about the strategy. A test
// (tests/test_failures.cpp) checks that the two tables name the same strategies. Two tables
// because the scenario is engine-free: its table cannot hold constructors of SimGrid actors.
#pragma once

#include <memory>
#include <string_view>

#include "sim/ps/recovery/strategy.hpp"

namespace failsim::sim {

/// Makes the strategy object of one shard (an element of context.shards).
using StrategyMaker = std::unique_ptr<Strategy> (*)(RunContext& context, const Shard& shard);

struct StrategyFactory {
  std::string_view name;  ///< the strategy's name in the scenario's table
  StrategyMaker make;
};

// One constructor per implementation file.
std::unique_ptr<Strategy> make_no_recovery(RunContext& context, const Shard& shard);
/// Single-level checkpoints, or multi-level ones when the settings have levels.
std::unique_ptr<Strategy> make_checkpointing(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_chain_replication(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_stateless(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_stateless_chain(RunContext& context, const Shard& shard);

inline constexpr StrategyFactory STRATEGY_FACTORIES[] = {
    {"none", make_no_recovery},
    {"checkpoint", make_checkpointing},
    {"chain", make_chain_replication},
    {"stateless", make_stateless},
    {"stateless_chain", make_stateless_chain},
};

}  // namespace failsim::sim
