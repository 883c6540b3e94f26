// Strategy "chain"'s settings: reader and writer (chain.hpp).
#include "sim/ps/recovery/chain/settings.hpp"

#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

ChainConfig read_chain_section(const ObjectReader& recovery) {
  const ObjectReader chain = recovery.object_or_empty("chain", {"every_updates"});
  ChainConfig c;
  c.every_updates = to_int(chain.integer_or("every_updates", c.every_updates, 1, INT_LIMIT));
  return c;
}

void write_chain_section(const ChainConfig& chain, nlohmann::json& recovery) {
  recovery["chain"] = {{"every_updates", chain.every_updates}};
}

StrategySettings read_chain(const ObjectReader& recovery) {
  return StrategySettings(read_chain_section(recovery));
}

void write_chain(const StrategySettings& settings, nlohmann::json& recovery) {
  write_chain_section(settings.get<ChainConfig>(), recovery);
}

}  // namespace failsim::sim::detail
