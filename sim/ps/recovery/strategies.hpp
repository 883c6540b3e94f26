// The simulation's strategy table: each recovery strategy's implementation (one folder each,
// sim/ps/recovery/<name>/) under its name. Made from the one list, strategies.def, as the
// scenario's table is (sim/ps/recovery/strategy_table.cpp, which holds everything else about the
// strategy). Two tables because the scenario is engine-free: its table cannot hold constructors
// of SimGrid actors; one list, so they cannot name different strategies.
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

// One constructor per line of strategies.def, defined in its implementation file.
#define FAILSIM_PS_STRATEGY(name, make) \
  std::unique_ptr<Strategy> make(RunContext& context, const Shard& shard);
#include "sim/ps/recovery/strategies.def"
#undef FAILSIM_PS_STRATEGY
/// Multi-level checkpoints: make_checkpointing's choice when the settings have levels.
std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context, const Shard& shard);

/// The engine's table, made from strategies.def as the scenario's is (strategy_table.cpp).
inline constexpr StrategyFactory STRATEGY_FACTORIES[] = {
#define FAILSIM_PS_STRATEGY(name, make) {#name, make},
#include "sim/ps/recovery/strategies.def"
#undef FAILSIM_PS_STRATEGY
};

/// The strategy the scenario asks for, for shard `shard` (an element of context.shards): the
/// job's one way to make one (strategies.cpp).
std::unique_ptr<Strategy> make_strategy(RunContext& context, const Shard& shard);

}  // namespace failsim::sim
