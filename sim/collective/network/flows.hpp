// Flows: transfers of bytes between two hosts on the simulated network, started together by
// one driver actor, so that what they cost is the network's sharing and nothing else. The
// collectives (collectives.hpp) are made of them; a FlowSet alone runs flows in the background,
// e.g. a checkpoint written while training goes on, waited for until a failure's known time and
// cancelled then.
//
// Two ways to start them, with the same surf actions in the same order at the same time, so the
// same times (docs/performance.md, "Flows without SimGrid's list walk"):
//   - a small set: one Comm::sendto_async per flow from the driver (no actor per rank);
//   - a set of at least endpoint_threshold() flows: an actor on each host the set touches posts
//     the host's receives, then its sends, on one mailbox per flow. SimGrid 3.32 keeps every
//     detached comm (each sendto comm is) in one std::list that it walks whole when any of them
//     ends, so N sendto flows in flight cost O(N^2); a mailbox comm sits only in its two
//     endpoint actors' lists, which nobody walks while it runs.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <simgrid/forward.h>

namespace failsim::sim {

struct FlowEndpoints;  // what a set's endpoint actors share with it (flows.cpp)

/// `bytes` from `from` to `to` as one SimGrid comm: under the cluster's network model
/// (use_cluster_network_model) it takes its route's latency, then bytes at the max-min fair
/// share of the links it crosses. Bytes are rounded to a whole number when the flow starts.
struct Flow {
  simgrid::s4u::Host* from = nullptr;
  simgrid::s4u::Host* to = nullptr;
  double bytes = 0.0;
  /// Seconds the flow's end is put off once its bytes arrived: the latencies of the messages
  /// an aggregated flow stands for beyond the one its route charges (collectives.hpp).
  double extra_latency = 0.0;
  bool operator==(const Flow&) const = default;
};

/// A set of flows as SimGrid's network model sees it: per flow (in order) its bytes, its extra
/// latency and its route, the route's links numbered by their first use in the set, and per link
/// its bandwidth, latency, sharing policy and state. Two sets of one shape started on an idle
/// network make the same system of constraints, built in the same order, up to the links' names,
/// so they take the same time (up to the rounding of the clock they start at, as any set
/// timed again does): docs/cluster.md, "Cost proportional to events".
struct FlowShape {
  std::vector<double> flows;  ///< per flow: bytes, extra latency, route length, link numbers
  std::vector<double> links;  ///< per link number: bandwidth, latency, sharing policy, is on
  bool operator==(const FlowShape&) const = default;
};
FlowShape shape_of(const std::vector<Flow>& flows);
/// The links a flow crosses, in order (Host::route_to).
using Route = std::vector<simgrid::s4u::Link*>;
/// Sets `links` to the route from `from` to `to`, and `*latency` (when given) to its latency,
/// as Host::route_to does, from the collective platform's zone directly when `from` is in one
/// (SimGrid's search of the zones costs most of a route: topology/platform_zone.hpp).
void route_of(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, Route& links,
              double* latency = nullptr);
/// The same with the routes known (routes[i] is flows[i]'s), to compute them once.
FlowShape shape_of(const std::vector<Flow>& flows, const std::vector<Route>& routes);

/// Flows started together. The set ends at max over its flows of (arrival + extra_latency).
/// Every member that waits must be called from an actor (the one that started the set).
class FlowSet {
 public:
  FlowSet() = default;
  /// Starts every flow now (from the calling actor).
  explicit FlowSet(const std::vector<Flow>& flows);
  /// A set known to end `seconds` from now (measured before: a replayed background write,
  /// background_replays.hpp): nothing is simulated, it ends then.
  static FlowSet lasting(double seconds);
  FlowSet(FlowSet&&) noexcept = default;
  /// Cancels this set's flows still running, then takes `other`'s.
  FlowSet& operator=(FlowSet&& other) noexcept;
  FlowSet(const FlowSet&) = delete;
  FlowSet& operator=(const FlowSet&) = delete;
  /// Cancels the flows still running: a set dropped unfinished leaves nothing on the network
  /// (except while an exception unwinds, when no simcall can be made: the flows then run on and
  /// their handles are leaked, see flows.cpp).
  ~FlowSet();

  std::size_t size() const { return comms_.size(); }
  /// Whether the set has ended (every flow arrived, its extra latency passed), without blocking.
  /// Always false once cancelled.
  bool done();
  /// Blocks until the set has ended or the simulated time is `deadline`, whichever comes
  /// first; true when it has ended by `deadline` (so false for a deadline already past, even
  /// if it has ended since). The flows go on after a deadline: wait again, or cancel.
  bool wait_until(double deadline = std::numeric_limits<double>::infinity());
  /// Stops the flows still running (a failure at a known time); what they sent is lost.
  void cancel();
  /// When the set ended (simulated seconds); only meaningful once done() or wait_until() said so.
  double end_time() const { return end_; }
  /// Seconds from its start to its end, written to `*to` once the set is known to have ended
  /// (never if it is cancelled first); `expected` (when given): an end within `tolerance` of it
  /// is taken as it (a set simulated again ends at the clock's rounding of the recorded end).
  void report_end(std::shared_ptr<double> to, std::optional<double> expected = std::nullopt,
                  double tolerance = 0.0);
  /// Whether the flows were started from endpoint actors (else with sendto comms).
  bool from_endpoints() const { return endpoints_ != nullptr; }

 private:
  /// True when every comm has finished; then end_ is known.
  bool all_arrived();
  /// Starts the flows from endpoint actors; false (nothing started) when they cannot be.
  bool start_from_endpoints(const std::vector<Flow>& flows);
  /// Lets the endpoint actors end (once every flow has ended or been cancelled).
  void release_endpoints();

  std::shared_ptr<FlowEndpoints> endpoints_;
  std::vector<simgrid::s4u::CommPtr> comms_;
  std::vector<double> extra_latency_;
  std::size_t arrived_ = 0;  ///< comms_[0, arrived_) are known to have finished
  double start_ = 0.0;
  double end_ = 0.0;
  std::optional<double> lasting_;   ///< the known duration of a set without flows (lasting())
  std::shared_ptr<double> report_;  ///< report_end's
  std::optional<double> expected_;
  double tolerance_ = 0.0;
  bool cancelled_ = false;
};

/// Sets of at least one flow started in this process: what was simulated flow by flow, for the
/// tests of what is reused instead (a run is a process: sim_harness.hpp).
std::size_t flow_sets_started();

/// Prepares `engine` (before any actor starts) for flow sets touching up to `hosts` hosts: with
/// more than the endpoint actors that fit in Linux's memory mappings with a guard page each
/// (24,000), the actors' stacks are made without one (contexts/guard-size:0), from the heap:
/// then SimGrid clears them, so they are resident memory, and an overflow is not caught. Within
/// that number the guard pages stay (and the stacks' untouched pages are not resident).
void prepare_endpoint_stacks(simgrid::s4u::Engine& engine, std::size_t hosts);

/// Sets of at least this many flows start them from endpoint actors (see the top of this file);
/// smaller ones with sendto comms. The times are the same either way: tests set it to compare.
std::size_t endpoint_threshold();
void set_endpoint_threshold(std::size_t flows);

}  // namespace failsim::sim
