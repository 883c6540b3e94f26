// Flows: transfers of bytes between two hosts on the simulated network, started by one driver
// actor with Comm::sendto_async (no actor per rank, no mailbox), so that what they cost is the
// network's sharing and nothing else. The collectives (collectives.hpp) are made of them; a
// FlowSet alone runs flows in the background, e.g. a checkpoint written while training goes on,
// waited for until a failure's known time and cancelled then.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include <simgrid/forward.h>

namespace failsim::sim {

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
};

/// Flows started together. The set ends at max over its flows of (arrival + extra_latency).
/// Every member that waits must be called from an actor (the one that started the set).
class FlowSet {
 public:
  FlowSet() = default;
  /// Starts every flow now (from the calling actor).
  explicit FlowSet(const std::vector<Flow>& flows);
  FlowSet(FlowSet&&) noexcept = default;
  /// Cancels this set's flows still running, then takes `other`'s.
  FlowSet& operator=(FlowSet&& other) noexcept;
  FlowSet(const FlowSet&) = delete;
  FlowSet& operator=(const FlowSet&) = delete;
  /// Cancels the flows still running: a set dropped unfinished leaves nothing on the network
  /// (except while an exception unwinds the actor, when no simcall can be made).
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

 private:
  /// True when every comm has finished; then end_ is known.
  bool all_arrived();

  std::vector<simgrid::s4u::CommPtr> comms_;
  std::vector<double> extra_latency_;
  std::size_t arrived_ = 0;  ///< comms_[0, arrived_) are known to have finished
  double start_ = 0.0;
  double end_ = 0.0;
  bool cancelled_ = false;
};

}  // namespace failsim::sim
