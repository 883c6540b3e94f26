// The assignments a collective job measured under (measured_times.hpp), kept compactly: each as
// the plan nodes whose platform node differs from the one kept before it, every WHOLE_EVERY-th
// whole, and its replicas, streams and collectives shared with the one before when they are the
// same. A job with a spare pool keeps one per swap: 66,000 of 50 kB each whole at 100,352 ranks
// (docs/performance.md, the AIReSim job). Engine-free.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "sim/collective/job/assignment.hpp"

namespace failsim::sim {

class AssignmentLog {
 public:
  /// Keeps `assignment`; returns its number (0, 1, ... in order).
  std::size_t add(const Assignment& assignment);
  /// Whether assignment `id` is `assignment`, its streams apart unless `streams`.
  bool same(std::size_t id, const Assignment& assignment, bool streams) const;
  /// Assignment `id`, whole again.
  Assignment at(std::size_t id) const;
  std::size_t size() const { return entries_.size(); }

 private:
  static constexpr std::size_t WHOLE_EVERY = 64;
  struct Entry {
    std::shared_ptr<const Assignment> rest;  // everything but `node` (empty there)
    std::vector<int> node;                   // whole (every WHOLE_EVERY-th, or another size)
    std::vector<std::pair<int, int>> moved;  // else: (plan node, platform node) since the last
  };
  std::vector<Entry> entries_;
  Assignment last_;
};

}  // namespace failsim::sim
