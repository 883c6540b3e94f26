// The engine's factory: the strategy the scenario names, looked up in the table made from
// strategies.def (strategies.hpp).
#include "sim/ps/recovery/strategies.hpp"

#include <stdexcept>
#include <string>

namespace failsim::sim {

std::unique_ptr<Strategy> make_strategy(RunContext& context, const Shard& shard) {
  const std::string& name = context.scenario.recovery.strategy;
  for (const StrategyFactory& factory : STRATEGY_FACTORIES) {
    if (factory.name == name) return factory.make(context, shard);
  }
  throw std::logic_error("recovery strategy \"" + name +
                         "\" has no implementation in sim/ps/recovery/strategies.hpp");
}

}  // namespace failsim::sim
