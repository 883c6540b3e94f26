// Strategy "chain"'s settings (docs/strategies.md): chain replication over the server hosts;
// the functions of its row in the strategy table (strategies.cpp). Its `chain` section is also
// stateless_chain's.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

/// Chain replication over the cluster's server hosts (cluster.servers.count = N >= 2 replicas).
/// Also the chain of "stateless_chain".
struct ChainConfig {
  int every_updates = 100;  ///< the head pushes its state down the chain every K updates (>= 1)

  bool operator==(const ChainConfig&) const = default;
};

namespace detail {
/// Reads recovery.chain (absent: the defaults).
ChainConfig read_chain_section(const input::ObjectReader& recovery);
/// Writes recovery.chain.
void write_chain_section(const ChainConfig& chain, nlohmann::json& recovery);

StrategySettings read_chain(const input::ObjectReader& recovery);
void write_chain(const StrategySettings& settings, nlohmann::json& recovery);
}  // namespace detail

}  // namespace failsim::sim
