// The stragglers of a collective run as data (docs/cluster.md, "Failures"): the scheduled ones
// and the random slow spells of every accelerator or node, drawn from the seed lazily (one
// stream per component), so the job asks only "how slow is the slowest rank now?". A
// synchronous step waits for its slowest rank, so that is all a step needs. Engine-free.
#pragma once

#include <cstdint>
#include <queue>
#include <set>
#include <vector>

#include "models/rng.hpp"
#include "sim/scenario/collective/config.hpp"

namespace failsim::sim {

class StragglerSchedule {
 public:
  StragglerSchedule(const ClusterFailureConfig& failures, const ClusterPlatformConfig& platform,
                    std::uint64_t seed);

  /// The largest slowdown active at `t` (1: none): a spell from `from` to `to` is active in
  /// [from, to). `t` must not decrease from one call to the next.
  double slowdown_at(double t);
  /// When the slowdown may change next (a spell starts or ends): slowdown_at is the same for
  /// every t before it (and after the last call). Infinity when nothing will change.
  double next_change() const;

 private:
  struct Change {
    double at = 0.0;
    bool start = true;
    double slowdown = 1.0;
    int process = -1;  // the random process it comes from (-1: a scheduled straggler)
    int component = 0;
    std::size_t order = 0;  // ties in time: the order they were drawn in
    bool operator>(const Change& other) const {
      if (at != other.at) return at > other.at;
      return order > other.order;
    }
  };
  void push(Change change);
  /// The next slow spell of `component` of process `p`, starting a draw of `every` after `since`.
  void draw_next(int p, int component, double since);

  const ClusterFailureConfig& failures_;
  std::vector<std::vector<models::Rng>> streams_;  // per process, per component
  std::priority_queue<Change, std::vector<Change>, std::greater<>> heap_;
  std::multiset<double> active_;
  std::size_t drawn_ = 0;
};

}  // namespace failsim::sim
