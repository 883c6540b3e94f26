// Strategy "stateless_chain"'s settings (docs/strategies.md): the study's hybrid of the
// stateless server and chain replication, configured by both their sections; the functions of
// its row in the strategy table (strategies.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/ps/recovery/chain/settings.hpp"
#include "sim/ps/recovery/stateless/settings.hpp"
#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

struct StatelessChainConfig {
  ChainConfig chain;          ///< the replica chain behind the head
  StatelessConfig stateless;  ///< how the head applies what piled up in the store

  bool operator==(const StatelessChainConfig&) const = default;
};

namespace detail {
StrategySettings read_stateless_chain(const input::ObjectReader& recovery);
void write_stateless_chain(const StrategySettings& settings, nlohmann::json& recovery);
}  // namespace detail

}  // namespace failsim::sim
