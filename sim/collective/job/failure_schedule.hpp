// The collective protocol's failures as data: every outage of the run, in time order, from the
// scenario's scheduled events, its replayed trace (failures.trace, its nodes mapped onto the
// scenario's) and its random failure processes (failures.stochastic and failures.rates, drawn
// from the seed, lazily, so a run of unknown length draws only what it reaches). An outage names
// the component that failed, the nodes it makes unusable and until when. Engine-free: the job asks
// for the next outage and decides what it means for training (docs/cluster.md, "Failures").
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "models/rng.hpp"
#include "sim/collective/job/component_rates.hpp"
#include "sim/scenario/collective/config.hpp"

namespace failsim::sim {

struct Outage {
  double at = 0.0;  ///< simulated seconds
  ClusterTarget target = ClusterTarget::NODE;
  int index = 0;
  std::vector<int> nodes;  ///< the nodes it makes unusable, ascending
  double back = std::numeric_limits<double>::infinity();  ///< repaired at (infinity: never)
  /// Whether the nodes' host memory (and what a process kept there) is lost: a node, rack or
  /// power failure restarts the machines; an accelerator, NIC or switch failure does not.
  bool host_memory_lost = true;
  /// The scheduled event it comes from (failures.events index), or nullopt for another one.
  std::optional<std::size_t> event;
  /// Its cause, from a trace or a rate table's cause mix; "" when the input names none.
  std::string cause;
};

/// The nodes a failure of `target` number `index` makes unusable.
std::vector<int> nodes_hit(ClusterTarget target, int index, const ClusterPlatformConfig& platform);
/// Whether a failure of `target` loses the host memory of the nodes it hits.
bool loses_host_memory(ClusterTarget target);
/// One random stream per component of `target` (its index in the vector), derived from `root`
/// and the kind: a component's draws do not depend on how many others there are nor on the order
/// in which their events are taken. The failures' and the stragglers' processes draw from them.
std::vector<models::Rng> component_streams(std::uint64_t root, ClusterTarget target,
                                           const ClusterPlatformConfig& platform);
/// The scenario node of each slot of a replayed trace (ClusterTraceConfig): the identity for
/// "by_order" and a mapping file, a permutation of the nodes drawn from `seed` for "random".
std::vector<int> trace_nodes(const ClusterTraceConfig& trace, int nodes, std::uint64_t seed);

class FailureSchedule {
 public:
  FailureSchedule(const ClusterFailureConfig& failures, const ClusterPlatformConfig& platform,
                  std::uint64_t seed);

  /// The earliest outage not taken yet (nullptr: none will ever come).
  const Outage* next() const { return heap_.empty() ? nullptr : &heap_.top().outage; }
  /// Takes the earliest outage; a random process draws its next one.
  Outage take();
  /// The rates of failures.stochastic[entry]'s components (nullptr: it has no heterogeneity).
  const ComponentRates* component_rates(std::size_t entry) const {
    return entry < rates_.size() && rates_[entry] ? &*rates_[entry] : nullptr;
  }

 private:
  struct Entry {
    Outage outage;
    std::size_t order;  // ties in time: scheduled events in file order, then processes
    int process = -1;   // the random process it comes from, or -1
    int component = 0;  // which component of that process
    bool operator>(const Entry& other) const {
      if (outage.at != other.outage.at) return outage.at > other.outage.at;
      return order > other.order;
    }
  };
  /// The failure of `component` of process `p` whose lifetime starts at `since`.
  Entry draw_next(int p, int component, double since);

  const ClusterFailureConfig& failures_;
  const ClusterPlatformConfig& platform_;
  std::vector<ClusterStochasticFailures> processes_;  // failures.stochastic, then failures.rates
  std::vector<std::vector<models::Rng>> streams_;     // per process, per component
  std::vector<std::optional<ComponentRates>> rates_;  // per process: its heterogeneity's
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
};

}  // namespace failsim::sim
