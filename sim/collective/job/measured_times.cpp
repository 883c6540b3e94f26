#include "sim/collective/job/measured_times.hpp"

#include <algorithm>

namespace failsim::sim {

const StepTimes* MeasuredTimes::step(const Assignment& assignment) const {
  // The flows depend on which replicas run, where, and on the data-parallel collectives a design
  // asks for; not on the streams they take.
  for (const auto& [a, times] : steps_) {
    if (a.active == assignment.active && a.node == assignment.node &&
        a.data_parallel == assignment.data_parallel)
      return &times;
  }
  return nullptr;
}

MeasuredTimes::StepParts MeasuredTimes::step_parts(const StepNetwork& network) {
  StepParts parts;
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    auto shape = std::make_shared<const PartShape>(network.shape(static_cast<StepPart>(p)));
    std::deque<MeasuredPart>& measured = parts_[p];
    const auto same = std::find_if(measured.begin(), measured.end(),
                                   [&](const MeasuredPart& m) { return *m.shape == *shape; });
    if (same != measured.end()) {
      parts.seconds[p] = same->seconds;
      // The most recently used last: the one dropped when full is the least recently used.
      std::rotate(same, same + 1, measured.end());
    }
    parts.shapes[p] = std::move(shape);
  }
  return parts;
}

bool MeasuredTimes::add_step(const Assignment& assignment, const StepTimes& times,
                             const StepParts& parts) {
  // What the flows take on the idle network they take whenever it is idle again under the same
  // assignment, and flows of the same shape under another.
  steps_.emplace_back(assignment, times);
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    if (parts.seconds[p] || !parts.shapes[p]) continue;
    std::deque<MeasuredPart>& measured = parts_[p];
    if (measured.size() == MAX_SHAPES_PER_PART) measured.pop_front();
    measured.push_back({parts.shapes[p], times[static_cast<StepPart>(p)]});
  }
  return steps_.size() == 1;
}

MeasuredTimes::Transfer MeasuredTimes::transfer(const std::string& what,
                                                const Assignment& assignment,
                                                const std::vector<Flow>& flows) {
  for (const Measured& t : transfers_) {
    if (t.what == what && t.assignment == assignment) return {t.seconds, nullptr};
  }
  // Another assignment whose flows have the same shape (e.g. a spare in a failed node's place:
  // the same file-system links, the spare's NIC for the failed node's) takes the same time.
  auto shape = std::make_shared<const FlowShape>(shape_of(flows));
  for (const Measured& t : transfers_) {
    if (t.what == what && *t.shape == *shape) {
      const double seconds = t.seconds;
      transfers_.push_back({what, assignment, seconds, t.shape});
      return {seconds, nullptr};
    }
  }
  return {std::nullopt, std::move(shape)};
}

void MeasuredTimes::add_transfer(const std::string& what, const Assignment& assignment,
                                 double seconds, std::shared_ptr<const FlowShape> shape) {
  transfers_.push_back({what, assignment, seconds, std::move(shape)});
}

}  // namespace failsim::sim
