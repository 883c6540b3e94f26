// Constructors of the recovery strategies, one per file (strategy_*.cpp).
#pragma once

#include <memory>

#include "sim/strategy.hpp"

namespace failsim::sim {

std::unique_ptr<Strategy> make_no_recovery(RunContext& context);
std::unique_ptr<Strategy> make_checkpointing(RunContext& context);
std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context);
std::unique_ptr<Strategy> make_chain_replication(RunContext& context);
std::unique_ptr<Strategy> make_stateless(RunContext& context);
std::unique_ptr<Strategy> make_stateless_chain(RunContext& context);

}  // namespace failsim::sim
