#include "sim/collective/job/straggler_schedule.hpp"

#include <limits>

#include "input/interrupt.hpp"
#include "sim/collective/job/failure_schedule.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/distribution.hpp"

namespace failsim::sim {

StragglerSchedule::StragglerSchedule(const ClusterFailureConfig& failures,
                                     const ClusterPlatformConfig& platform, std::uint64_t seed)
    : failures_(failures) {
  // Built before the simulation runs: loops as long as the input look for a signal.
  const std::vector<StragglerEvent>& spells = failures.stragglers;
  for (std::size_t i = 0; i < spells.size(); ++i) {
    input::poll_interrupt(static_cast<long long>(i), static_cast<long long>(spells.size()),
                          "scheduling the straggler spells", "spell");
    const StragglerEvent& s = spells[i];
    push({s.from, true, s.slowdown});
    push({s.to, false, s.slowdown});
  }
  const std::uint64_t root = models::derive_seed(seed, SEED_STRAGGLERS);
  for (std::size_t p = 0; p < failures.stochastic_stragglers.size(); ++p) {
    streams_.push_back(component_streams(root, failures.stochastic_stragglers[p].target, platform));
    const int count = static_cast<int>(streams_.back().size());
    for (int c = 0; c < count; ++c) {
      input::poll_interrupt(c, count, "drawing the straggler spells' first starts", "component");
      draw_next(static_cast<int>(p), c, 0.0);
    }
  }
}

void StragglerSchedule::push(Change change) {
  change.order = drawn_++;
  heap_.push(change);
}

void StragglerSchedule::draw_next(int p, int component, double since) {
  const StochasticStragglers& process =
      failures_.stochastic_stragglers[static_cast<std::size_t>(p)];
  models::Rng& rng = streams_[static_cast<std::size_t>(p)][static_cast<std::size_t>(component)];
  const double start = since + draw(process.every, rng);
  const double end = start + draw(process.duration, rng);
  push({start, true, process.slowdown, p, component});
  push({end, false, process.slowdown, p, component});
}

double StragglerSchedule::slowdown_at(double t) {
  while (!heap_.empty() && heap_.top().at <= t) {
    const Change c = heap_.top();
    heap_.pop();
    if (c.start) {
      active_.insert(c.slowdown);
    } else {
      active_.erase(active_.find(c.slowdown));
      // A component's next spell starts a draw of `every` after this one ends.
      if (c.process >= 0) draw_next(c.process, c.component, c.at);
    }
  }
  return active_.empty() ? 1.0 : *active_.rbegin();
}

double StragglerSchedule::next_change() const {
  return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.top().at;
}

}  // namespace failsim::sim
