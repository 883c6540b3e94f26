// The engine's factory of the collective recovery designs, made from designs.def.
#include "sim/collective/recovery/recovery.hpp"

#include <map>
#include <stdexcept>
#include <string_view>

namespace failsim::sim {

std::unique_ptr<CollectiveRecovery> make_collective_recovery(const std::string& strategy) {
  // One row per line of designs.def, under the name recovery.strategy spells it (the scenario
  // reader's choices come from the same list).
  static const std::map<std::string_view, std::unique_ptr<CollectiveRecovery> (*)()> designs{
#define FAILSIM_COLLECTIVE_DESIGN(room, name) {name, &room::make},
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN
  };
  const auto it = designs.find(strategy);
  if (it == designs.end()) {
    throw std::logic_error("no collective recovery design named \"" + strategy + "\"");
  }
  return it->second();
}

}  // namespace failsim::sim
