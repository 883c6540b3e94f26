#include "sim/collective/network/groups_at_once.hpp"

namespace failsim::sim {

void GroupsAtOnce::join(const std::vector<Collective>& groups, Collective& into) {
  // concurrently() puts phase k of each group after phase k of the groups before it.
  first_phase_ = into.phases.size();
  begin_.resize(groups.size());
  std::vector<std::uint32_t> filled;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<Phase>& phases = groups[g].phases;
    if (filled.size() < phases.size()) filled.resize(phases.size(), 0);
    begin_[g].resize(phases.size());
    for (std::size_t k = 0; k < phases.size(); ++k) {
      begin_[g][k] = filled[k];
      filled[k] += static_cast<std::uint32_t>(phases[k].flows.size());
    }
  }
  for (Phase& phase : concurrently(groups).phases) into.phases.push_back(std::move(phase));
}

bool GroupsAtOnce::replace(std::size_t g, const Collective& before, const Collective& after,
                           Collective& into,
                           std::vector<std::vector<std::uint32_t>>& changed) const {
  if (after.phases.size() != before.phases.size()) return false;
  for (std::size_t k = 0; k < after.phases.size(); ++k) {
    if (after.phases[k].flows.size() != before.phases[k].flows.size()) return false;
  }
  if (changed.size() < into.phases.size()) changed.resize(into.phases.size());
  for (std::size_t k = 0; k < after.phases.size(); ++k) {
    std::vector<Flow>& flows = into.phases[first_phase_ + k].flows;
    for (std::size_t f = 0; f < after.phases[k].flows.size(); ++f) {
      const std::uint32_t at = begin_[g][k] + static_cast<std::uint32_t>(f);
      if (flows[at] == after.phases[k].flows[f]) continue;
      flows[at] = after.phases[k].flows[f];
      changed[first_phase_ + k].push_back(at);
    }
  }
  return true;
}

}  // namespace failsim::sim
