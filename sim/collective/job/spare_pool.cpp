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
      mapped_spans_(mapped_.size()) {}

void SparePool::map(const Assignment& assignment, double now) {
  // The mapped spans of the nodes that leave the job end now, those of the nodes that come in
  // begin now.
  mapped_.assign(mapped_.size(), 0);
  for (int n : assignment.node) mapped_[static_cast<std::size_t>(n)] = 1;
  for (std::size_t n = 0; n < mapped_spans_.size(); ++n) {
    auto& spans = mapped_spans_[n];
    const bool open = !spans.empty() && std::isinf(spans.back().second);
    if (open && mapped_[n] == 0) spans.back().second = now;
    if (!open && mapped_[n] != 0) spans.emplace_back(now, NEVER);
  }
}

int SparePool::swap_in(Assignment& assignment, const std::vector<char>& in_use, double now) {
  std::vector<char> mapped(mapped_.size(), 0);
  for (int n : assignment.node) mapped[static_cast<std::size_t>(n)] = 1;
  int swapped = 0;
  for (std::size_t p = 0; p < assignment.node.size(); ++p) {
    const int failed = assignment.node[p];
    if (in_use[static_cast<std::size_t>(failed)] == 0 || nodes_.up(failed, now)) continue;
    int spare = 0;
    while (spare < nodes_.size() &&
           (mapped[static_cast<std::size_t>(spare)] != 0 || !nodes_.up(spare, now))) {
      ++spare;
    }
    if (spare == nodes_.size()) break;  // the pool is empty (or all of it down)
    assignment.node[p] = spare;
    mapped[static_cast<std::size_t>(spare)] = 1;
    mapped[static_cast<std::size_t>(failed)] = 0;  // back in the pool once repaired
    ++swapped;
    ++counts_.spare_swaps;
    recorder_.event(now, EventType::PROMOTED, node_name(spare),
                    {{"replaces", node_name(failed)}, {"plan_node", p}});
  }
  return swapped;
}

double SparePool::back(double now) const {
  double back = NEVER;
  for (std::size_t n = 0; n < mapped_.size(); ++n) {
    const double b = nodes_.back(static_cast<int>(n));
    if (mapped_[n] == 0 && b > now) back = std::min(back, b);
  }
  return back;
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
