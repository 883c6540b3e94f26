#include "sim/collective/network/collectives.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <simgrid/s4u.hpp>

#include "sim/engine/log.hpp"
#include "sim/engine/setup_interrupts.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(collectives, failsim, "collectives of the collective protocol");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;
using Hosts = std::vector<sg4::Host*>;

namespace {

void check_ring(const Hosts& ring, double bytes, const char* what) {
  if (ring.empty()) throw std::invalid_argument(fmt::format("{}: no rank", what));
  if (std::find(ring.begin(), ring.end(), nullptr) != ring.end()) {
    throw std::invalid_argument(fmt::format("{}: a rank without a host", what));
  }
  if (!(bytes >= 0.0)) throw std::invalid_argument(fmt::format("{}: bytes {} < 0", what, bytes));
}

/// Every rank sends `bytes_per_rank` to its successor as one flow standing for `steps` messages:
/// the flow pays its route's latency once, so the other steps − 1 are an extra latency of α each.
Collective ring_of(const Hosts& ring, double bytes_per_rank, std::size_t steps,
                   HopLatencies* hops) {
  Collective collective;
  if (ring.size() < 2) return collective;
  const double extra = static_cast<double>(steps - 1) * ring_latency(ring, hops);
  Phase phase;
  phase.flows.reserve(ring.size());
  for (std::size_t i = 0; i < ring.size(); ++i) {
    phase.flows.push_back({ring[i], ring[(i + 1) % ring.size()], bytes_per_rank, extra});
  }
  collective.phases.push_back(std::move(phase));
  return collective;
}

/// The phases of `parts`, one part after another.
Collective in_sequence(std::vector<Collective> parts) {
  Collective collective;
  for (Collective& part : parts) {
    for (Phase& phase : part.phases) collective.phases.push_back(std::move(phase));
  }
  return collective;
}

}  // namespace

std::size_t Collective::flow_count() const {
  std::size_t count = 0;
  for (const Phase& phase : phases) count += phase.flows.size();
  return count;
}

std::size_t HopLatencies::slot_of(const sg4::Host* from, const sg4::Host* to) const {
  // Fibonacci hashing of the addresses (their low bits are the allocator's alignment).
  const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(from));
  const auto b = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(to));
  return static_cast<std::size_t>(((a * 11400714819323198485ULL) ^ (b * 14029467366897019727ULL)) >>
                                  (64 - log2_));
}

void HopLatencies::grow() {
  std::vector<Slot> old = std::move(slots_);
  log2_ = old.empty() ? 4 : log2_ + 1;
  slots_.assign(std::size_t{1} << log2_, Slot{});
  for (const Slot& s : old) {
    if (s.from == nullptr) continue;
    std::size_t i = slot_of(s.from, s.to);
    while (slots_[i].from != nullptr) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = s;
  }
}

double HopLatencies::operator()(const sg4::Host* from, const sg4::Host* to) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  std::size_t i = slot_of(from, to);
  for (; slots_[i].from != nullptr; i = (i + 1) & (slots_.size() - 1)) {
    if (slots_[i].from == from && slots_[i].to == to) return slots_[i].latency;
  }
  slots_[i] = {from, to, 0.0};
  ++size_;
  route_of(from, to, route_, &slots_[i].latency);
  return slots_[i].latency;
}

namespace {
/// A ring of millions of ranks is millions of routes: seconds of the step network's set-up.
/// The test of `i` is here too, inlined: a swap's rings are hundreds of hops, few looked up.
void poll_ring(std::size_t i, std::size_t ranks) {
  constexpr std::size_t EVERY = 4096;
  if (i % EVERY != 0) return;
  poll_outside_actors(static_cast<long long>(i), static_cast<long long>(ranks),
                      "computing a ring's routes", "rank", EVERY);
}
}  // namespace

void HopLatencies::start_rings() {
  remember_ = true;
  next_ring_ = 0;
}

double HopLatencies::ring(const Hosts& ring) {
  double alpha = 0.0;
  const std::size_t n = ring.size();
  if (n < 2) return alpha;
  if (!remember_) {
    for (std::size_t i = 0; i < n; ++i) {
      poll_ring(i, n);
      alpha = std::max(alpha, (*this)(ring[i], ring[(i + 1) % n]));
    }
    return alpha;
  }
  if (rings_.size() <= next_ring_) rings_.emplace_back();
  Ring& last = rings_[next_ring_++];
  const bool same_size = last.hosts.size() == n;
  last.latency.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    poll_ring(i, n);
    const std::size_t j = (i + 1) % n;
    // The hop as it was (both ends where they were): its latency as it was.
    if (!same_size || last.hosts[i] != ring[i] || last.hosts[j] != ring[j])
      last.latency[i] = (*this)(ring[i], ring[j]);
    alpha = std::max(alpha, last.latency[i]);
  }
  last.hosts = ring;
  return alpha;
}

double ring_latency(const Hosts& ring, HopLatencies* hops) {
  if (hops != nullptr) return hops->ring(ring);
  double alpha = 0.0;
  if (ring.size() < 2) return alpha;
  Route links;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    poll_ring(i, ring.size());
    double latency = 0.0;
    route_of(ring[i], ring[(i + 1) % ring.size()], links, &latency);
    alpha = std::max(alpha, latency);
  }
  return alpha;
}

Collective ring_all_reduce(const Hosts& ring, double bytes, HopLatencies* hops) {
  check_ring(ring, bytes, "ring all-reduce");
  const auto n = static_cast<double>(ring.size());
  return ring_of(ring, 2.0 * (n - 1.0) / n * bytes, 2 * (ring.size() - 1), hops);
}

Collective ring_reduce_scatter(const Hosts& ring, double bytes, HopLatencies* hops) {
  check_ring(ring, bytes, "ring reduce-scatter");
  const auto n = static_cast<double>(ring.size());
  return ring_of(ring, (n - 1.0) / n * bytes, ring.size() - 1, hops);
}

Collective ring_all_gather(const Hosts& ring, double bytes, HopLatencies* hops) {
  check_ring(ring, bytes, "ring all-gather");
  const auto n = static_cast<double>(ring.size());
  return ring_of(ring, (n - 1.0) / n * bytes, ring.size() - 1, hops);
}

Collective hierarchical_all_reduce(const std::vector<Hosts>& nodes, double bytes,
                                   HopLatencies* hops) {
  if (nodes.empty()) throw std::invalid_argument("hierarchical all-reduce: no node");
  const std::size_t local = nodes.front().size();
  for (const Hosts& node : nodes) {
    check_ring(node, bytes, "hierarchical all-reduce");
    if (node.size() != local) {
      throw std::invalid_argument(
          fmt::format("hierarchical all-reduce: nodes of {} and {} ranks", local, node.size()));
    }
  }
  if (local == 1) {
    // One rank a node (a data-parallel group of tp x pp replicas, each node holding one of its
    // ranks): nothing moves inside the nodes, and the ring across is the group's. Built as that
    // ring, without a collective of no flow per node (a spare swap builds such groups of 784).
    Hosts ring;
    ring.reserve(nodes.size());
    for (const Hosts& node : nodes) ring.push_back(node.front());
    return ring_all_reduce(ring, bytes, hops);
  }
  std::vector<Collective> reduce_scatters;
  std::vector<Collective> all_gathers;
  for (const Hosts& node : nodes) {
    reduce_scatters.push_back(ring_reduce_scatter(node, bytes, hops));
    all_gathers.push_back(ring_all_gather(node, bytes, hops));
  }
  std::vector<Collective> rings;
  for (std::size_t g = 0; g < local; ++g) {
    Hosts ring;
    for (const Hosts& node : nodes) ring.push_back(node[g]);
    rings.push_back(ring_all_reduce(ring, bytes / static_cast<double>(local), hops));
  }
  return in_sequence(
      {concurrently(reduce_scatters), concurrently(rings), concurrently(all_gathers)});
}

Collective send(sg4::Host* from, sg4::Host* to, double bytes) {
  check_ring({from, to}, bytes, "send");
  return Collective{{Phase{{Flow{from, to, bytes, 0.0}}}}};
}

Collective concurrently(const std::vector<Collective>& collectives) {
  Collective together;
  for (const Collective& collective : collectives) {
    if (together.phases.size() < collective.phases.size()) {
      together.phases.resize(collective.phases.size());
    }
    for (std::size_t k = 0; k < collective.phases.size(); ++k) {
      const auto& flows = collective.phases[k].flows;
      auto& into = together.phases[k].flows;
      into.insert(into.end(), flows.begin(), flows.end());
    }
  }
  return together;
}

bool run(const Collective& collective, double deadline) {
  bool asked = false;
  return run(collective, [&]() -> std::optional<double> {
    if (asked) return std::nullopt;
    asked = true;
    return deadline;
  });
}

bool run(const Collective& collective, const Deadlines& deadlines) {
  const double start = sg4::Engine::get_clock();
  std::optional<double> deadline;
  for (std::size_t k = 0; k < collective.phases.size(); ++k) {
    if (k == 0) deadline = deadlines();  // not asked for a collective of no phase
    FlowSet flows(collective.phases[k].flows);
    while (true) {
      if (deadline && flows.wait_until(*deadline)) break;
      if (deadline) deadline = deadlines();
      if (!deadline) {
        flows.cancel();
        FAILSIM_VERBOSE("collective of {} flows stopped at {} in phase {} of {}",
                        collective.flow_count(), sg4::Engine::get_clock(), k + 1,
                        collective.phases.size());
        return false;
      }
    }
  }
  FAILSIM_VERBOSE("collective of {} phases, {} flows: {} s", collective.phases.size(),
                  collective.flow_count(), sg4::Engine::get_clock() - start);
  return true;
}

}  // namespace failsim::sim
