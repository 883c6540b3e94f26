#include "sim/collective/job/node_states.hpp"

#include <algorithm>
#include <limits>

namespace failsim::sim {

NodeStates::NodeStates(const Scenario& scenario, int platform_nodes)
    : schedule_(scenario.collective.failures, scenario.collective.platform, scenario.seed),
      down_until_(static_cast<std::size_t>(platform_nodes), 0.0),
      memory_lost_at_(down_until_.size(), -std::numeric_limits<double>::infinity()),
      down_spans_(down_until_.size()),
      events_injected_(scenario.collective.failures.events.size(), false) {}

std::optional<Outage> NodeStates::take_due(double now) {
  if (schedule_.next() == nullptr || schedule_.next()->at > now) return std::nullopt;
  Outage o = schedule_.take();
  if (o.event) events_injected_[*o.event] = true;
  for (int n : o.nodes) {
    const auto i = static_cast<std::size_t>(n);
    down_until_[i] = std::max(down_until_[i], o.back);
    if (o.host_memory_lost) memory_lost_at_[i] = o.at;
    down_spans_[i].emplace_back(o.at, o.back);
  }
  return o;
}

}  // namespace failsim::sim
