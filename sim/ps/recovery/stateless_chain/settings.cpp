// Strategy "stateless_chain"'s settings: its chain's and its store's (stateless_chain.hpp).
#include "sim/ps/recovery/stateless_chain/settings.hpp"

#include "input/object_reader.hpp"

namespace failsim::sim::detail {

StrategySettings read_stateless_chain(const input::ObjectReader& recovery) {
  StatelessChainConfig c;
  c.chain = read_chain_section(recovery);
  c.stateless = read_stateless_section(recovery);
  return StrategySettings(c);
}

void write_stateless_chain(const StrategySettings& settings, nlohmann::json& recovery) {
  const StatelessChainConfig& c = settings.get<StatelessChainConfig>();
  write_chain_section(c.chain, recovery);
  write_stateless_section(c.stateless, recovery);
}

}  // namespace failsim::sim::detail
