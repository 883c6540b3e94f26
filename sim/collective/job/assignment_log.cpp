#include "sim/collective/job/assignment_log.hpp"

namespace failsim::sim {

std::size_t AssignmentLog::add(const Assignment& assignment) {
  Entry e;
  const bool first = entries_.empty();
  if (!first && entries_.back().rest->active == assignment.active &&
      entries_.back().rest->streams == assignment.streams &&
      entries_.back().rest->data_parallel == assignment.data_parallel) {
    e.rest = entries_.back().rest;
  } else {
    Assignment rest = assignment;
    rest.node.clear();
    e.rest = std::make_shared<const Assignment>(std::move(rest));
  }
  if (first || entries_.size() % WHOLE_EVERY == 0 || assignment.node.size() != last_.node.size()) {
    e.node = assignment.node;
  } else {
    for (std::size_t n = 0; n < assignment.node.size(); ++n) {
      if (assignment.node[n] != last_.node[n])
        e.moved.emplace_back(static_cast<int>(n), assignment.node[n]);
    }
  }
  entries_.push_back(std::move(e));
  last_ = assignment;
  return entries_.size() - 1;
}

Assignment AssignmentLog::at(std::size_t id) const {
  // Back to the last whole entry (its node list, or one of another size than the next's), then
  // forward through the moves.
  std::size_t whole = id;
  while (whole > 0 && whole % WHOLE_EVERY != 0 && entries_[whole].node.empty()) --whole;
  Assignment a = *entries_[id].rest;
  a.node = entries_[whole].node;
  for (std::size_t i = whole + 1; i <= id; ++i) {
    for (const auto& [n, platform_node] : entries_[i].moved)
      a.node[static_cast<std::size_t>(n)] = platform_node;
  }
  return a;
}

bool AssignmentLog::same(std::size_t id, const Assignment& assignment, bool streams) const {
  const Assignment& rest = *entries_[id].rest;
  if (rest.active != assignment.active || rest.data_parallel != assignment.data_parallel)
    return false;
  if (streams && rest.streams != assignment.streams) return false;
  return at(id).node == assignment.node;
}

}  // namespace failsim::sim
