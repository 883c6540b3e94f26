#include "sim/collective/job/spare_pool.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sim/engine/never.hpp"

namespace failsim::sim {

namespace {

std::string node_name(int n) { return "node-" + std::to_string(n); }

/// Length of the union of `spans` clipped to [0, end).
double covered(std::vector<TimeSpan> spans, double end) {
  std::sort(spans.begin(), spans.end());
  double total = 0.0;
  double reach = 0.0;
  for (auto [begin, finish] : spans) {
    begin = std::max(begin, reach);
    finish = std::min(finish, end);
    if (finish > begin) total += finish - begin;
    reach = std::max(reach, std::min(finish, end));
  }
  return total;
}
}  // namespace

SparePool::SparePool(const NodeStates& nodes, Recorder& recorder, CollectiveCounts& counts)
    : nodes_(nodes),
      recorder_(recorder),
      counts_(counts),
      mapped_(static_cast<std::size_t>(nodes.size()), 0),
      mapped_spans_(mapped_.size()) {
  for (int n = 0; n < nodes.size(); ++n) unmapped_.insert(unmapped_.end(), n);
}

void SparePool::follow(int n, double now) {
  auto& spans = mapped_spans_[static_cast<std::size_t>(n)];
  const bool open = !spans.empty() && std::isinf(spans.back().second);
  const bool mapped = mapped_[static_cast<std::size_t>(n)] != 0;
  if (open && !mapped) spans.back().second = now;
  if (!open && mapped) spans.emplace_back(now, NEVER);
  if (mapped) {
    unmapped_.erase(n);
  } else {
    unmapped_.insert(n);
  }
}

void SparePool::map(const Assignment& assignment, double now) {
  // The mapped spans of the nodes that leave the job end now, those of the nodes that come in
  // begin now: only the nodes of the plan nodes that moved since the last map are looked at.
  std::vector<int> touched;
  if (node_.size() != assignment.node.size()) {
    for (const int n : node_) --mapped_[static_cast<std::size_t>(n)];
    touched = node_;
    node_.assign(assignment.node.size(), -1);
  }
  for (std::size_t p = 0; p < assignment.node.size(); ++p) {
    const int before = node_[p];
    const int after = assignment.node[p];
    if (before == after) continue;
    if (before >= 0) --mapped_[static_cast<std::size_t>(before)];
    ++mapped_[static_cast<std::size_t>(after)];
    touched.push_back(before);
    touched.push_back(after);
    node_[p] = after;
  }
  for (const int n : touched) {
    if (n >= 0) follow(n, now);
  }
}

int SparePool::swap_in(Assignment& assignment, const std::vector<char>& in_use, double now) {
  // The spares are the nodes no plan node of `assignment` maps (those of the last map(): the
  // job's assignment), less those this call gives out; a replaced node is down, so no spare
  // before it is repaired.
  std::vector<int> given;
  int swapped = 0;
  for (std::size_t p = 0; p < assignment.node.size(); ++p) {
    const int failed = assignment.node[p];
    if (in_use[static_cast<std::size_t>(failed)] == 0 || nodes_.up(failed, now)) continue;
    auto spare = unmapped_.begin();
    while (
        spare != unmapped_.end() &&
        (!nodes_.up(*spare, now) || std::find(given.begin(), given.end(), *spare) != given.end())) {
      ++spare;
    }
    if (spare == unmapped_.end()) break;  // the pool is empty (or all of it down)
    assignment.node[p] = *spare;
    given.push_back(*spare);
    ++swapped;
    ++counts_.spare_swaps;
    recorder_.event(now, EventType::PROMOTED, node_name(*spare),
                    {{"replaces", node_name(failed)}, {"plan_node", p}});
  }
  return swapped;
}

double SparePool::back(double now) const {
  double back = NEVER;
  for (const int n : unmapped_) {
    const double b = nodes_.back(n);
    if (b > now) back = std::min(back, b);
  }
  return back;
}

int SparePool::up(double now) const {
  return static_cast<int>(
      std::count_if(unmapped_.begin(), unmapped_.end(), [&](int n) { return nodes_.up(n, now); }));
}

double SparePool::node_seconds(double end) const {
  double idle = 0.0;
  for (std::size_t n = 0; n < mapped_.size(); ++n) {
    std::vector<TimeSpan> busy = nodes_.down_spans(static_cast<int>(n));
    busy.insert(busy.end(), mapped_spans_[n].begin(), mapped_spans_[n].end());
    idle += end - covered(std::move(busy), end);
  }
  return idle;
}

}  // namespace failsim::sim
