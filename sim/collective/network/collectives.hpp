// Collectives as concurrent flows (docs/cluster.md, "Collectives"). A collective is planned as
// phases of flows, aggregated at the level of one collective: each rank sends what a ring step
// after step would send to its successor as ONE flow, all ranks at once, so SimGrid shares the
// links among them (contention is real) while the cost grows with ranks, not with ranks x
// steps. What the aggregation hides, the latency of each step but the first, is added to the
// flow as a wait (Flow::extra_latency). One driver actor runs the plan with run().
//
// Notation: N ranks, B bytes, α the ring's largest route latency (Host::route_to: the sum of the
// latencies of its links), β the bandwidth a flow gets. On a uniform ring (every hop alike, no
// other traffic) the times are exactly
//   ring all-reduce     2(N−1)·α + 2(N−1)/N · B/β
//   ring reduce-scatter  (N−1)·α +  (N−1)/N · B/β
//   ring all-gather      (N−1)·α +  (N−1)/N · B/β
//   send (one flow)            α +           B/β
// and on any other ring the slowest flow's (α_i + bytes/β_i) plus the (steps − 1)·α wait.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "sim/collective/network/flows.hpp"

namespace failsim::sim {

/// Flows started together; the phase ends when the last of them (with its extra latency) has.
struct Phase {
  std::vector<Flow> flows;

  bool operator==(const Phase&) const = default;
};

/// Phases in sequence: phase k + 1 starts when phase k has ended.
struct Collective {
  std::vector<Phase> phases;

  std::size_t flow_count() const;
};

/// Route latencies between two hosts (route_of), each computed once: a spare swap builds again
/// the rings of the moved node's ranks, hundreds of hops of which two are new (docs/cluster.md,
/// "A swap costs what it moves"). The links' latencies must not change meanwhile (the collective
/// platform's do not).
class HopLatencies {
 public:
  double operator()(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);
  /// α of `ring` (ring_latency). After start_rings(), the rings asked are remembered in the
  /// order asked: a ring asked again at its place after the next start_rings() with a few hosts
  /// moved (a spare swap's) takes its other hops' latencies from there, in order, without a
  /// look-up (a data-parallel group's ring of 784 hops, 8 of them a swap in the AIReSim job).
  double ring(const std::vector<simgrid::s4u::Host*>& ring);
  void start_rings();

 private:
  // Open addressing over the hosts' addresses (std::unordered_map allocated a node per hop, and
  // its look-ups were a tenth of a swap's time).
  struct Slot {
    const simgrid::s4u::Host* from = nullptr;
    const simgrid::s4u::Host* to = nullptr;
    double latency = 0.0;
  };
  std::size_t slot_of(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to) const;
  void grow();
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned log2_ = 0;
  Route route_;
  struct Ring {
    std::vector<simgrid::s4u::Host*> hosts;
    std::vector<double> latency;  // of the hop from hosts[i] to its successor
  };
  std::vector<Ring> rings_;  // in the order asked since start_rings()
  std::size_t next_ring_ = 0;
  bool remember_ = false;
};

/// α of a ring: the largest route latency from ring[i] to ring[(i + 1) % N]; 0 for N = 1. The
/// builders below take the routes' latencies from `hops` when given.
double ring_latency(const std::vector<simgrid::s4u::Host*>& ring, HopLatencies* hops = nullptr);

/// Ring all-reduce of `bytes` over `ring` (in ring order): one phase in which rank i sends
/// 2(N−1)/N · B bytes to rank i + 1 (mod N) with an extra latency of (2(N−1) − 1) · α:
/// 2(N−1) steps of B/N bytes each, reduce-scatter then all-gather. No flow for N = 1.
Collective ring_all_reduce(const std::vector<simgrid::s4u::Host*>& ring, double bytes,
                           HopLatencies* hops = nullptr);

/// Ring reduce-scatter of `bytes` (each rank ends with B/N reduced): one phase, rank i sends
/// (N−1)/N · B bytes to rank i + 1 with an extra latency of (N−2) · α.
Collective ring_reduce_scatter(const std::vector<simgrid::s4u::Host*>& ring, double bytes,
                               HopLatencies* hops = nullptr);

/// Ring all-gather of `bytes` in all (B/N from each rank): the same flows as the reduce-scatter.
Collective ring_all_gather(const std::vector<simgrid::s4u::Host*>& ring, double bytes,
                           HopLatencies* hops = nullptr);

/// Hierarchical all-reduce of `bytes` over M nodes of G ranks each (`nodes[m][g]`, every node
/// with the same G), three phases:
///   1. a ring reduce-scatter of B inside every node (all nodes at once);
///   2. for every local index g, a ring all-reduce of B/G over nodes[0][g] ... nodes[M−1][g]
///      (the G rings at once: they share the nodes' NICs and the uplinks);
///   3. a ring all-gather of B inside every node.
/// Time, with α_n, β_n inside a node and α_x, β_x the latency and the bandwidth one of the G
/// concurrent flows gets between nodes (β_x = min(β_n, nics·nic_bandwidth/G, uplink share)):
///   2 [(G−1)·α_n + (G−1)/G · B/β_n] + 2(M−1)·α_x + 2(M−1)/M · (B/G)/β_x.
Collective hierarchical_all_reduce(const std::vector<std::vector<simgrid::s4u::Host*>>& nodes,
                                   double bytes, HopLatencies* hops = nullptr);

/// A point-to-point send (a pipeline stage's activations): one phase, one flow, α + B/β.
Collective send(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes);

/// Several collectives at once, in lockstep: phase k of the result holds phase k of each of
/// them (those with fewer phases drop out), so it ends when the slowest of them ends phase k.
Collective concurrently(const std::vector<Collective>& collectives);

/// Runs `collective` from the calling actor, phase after phase. True when it ended by
/// `deadline` (simulated seconds); false when the deadline came first: the flows still running
/// are cancelled and the clock is at the deadline (a failure at a known time).
bool run(const Collective& collective, double deadline = std::numeric_limits<double>::infinity());

/// When a wait must end, asked again each time the previous answer came: the next deadline
/// (simulated seconds; one not after now means at once), or nullopt to stop now.
using Deadlines = std::function<std::optional<double>()>;
/// As above, but at each deadline `deadlines` says whether to go on (e.g. when the failure that
/// came then does not concern these flows) and until when.
bool run(const Collective& collective, const Deadlines& deadlines);

}  // namespace failsim::sim
