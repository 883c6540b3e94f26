// Constructors of the recovery strategies, one per file (sim/recovery/<name>.cpp).
#pragma once

#include <memory>

#include "sim/recovery/strategy.hpp"

namespace failsim::sim {

std::unique_ptr<Strategy> make_no_recovery(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_checkpointing(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_chain_replication(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_stateless(RunContext& context, const Shard& shard);
std::unique_ptr<Strategy> make_stateless_chain(RunContext& context, const Shard& shard);

}  // namespace failsim::sim
