// Groups' collectives run at once (collectives.hpp's concurrently()), kept with where each
// group's flows sit in the joined phases, so that a spare swap writes the flows of the groups it
// moved over their old ones instead of joining every group's flows again: 300,000 flows at
// 100,352 ranks (docs/cluster.md, "A swap costs what it moves").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/collective/network/collectives.hpp"

namespace failsim::sim {

class GroupsAtOnce {
 public:
  /// Appends concurrently(groups)'s phases to `into`, and remembers where each group's flows are.
  void join(const std::vector<Collective>& groups, Collective& into);
  /// Group `g`, whose collective was `before`, is `after` now: its flows are written over its old
  /// ones in `into`, and the indices of those that differ are added to `changed` (per phase of
  /// `into`). False, and nothing written, when `after`'s phases are not as many and as large as
  /// `before`'s: then the groups must be joined again.
  bool replace(std::size_t g, const Collective& before, const Collective& after, Collective& into,
               std::vector<std::vector<std::uint32_t>>& changed) const;

 private:
  std::size_t first_phase_ = 0;                    // of `into`
  std::vector<std::vector<std::uint32_t>> begin_;  // per group, per phase of its: first flow
};

}  // namespace failsim::sim
