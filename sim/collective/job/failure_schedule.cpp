#include "sim/collective/job/failure_schedule.hpp"

#include <algorithm>
#include <cstdint>

#include "input/interrupt.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/distribution.hpp"

namespace failsim::sim {
namespace {

/// Nodes [index x size, (index + 1) x size) clipped to the platform: in 64 bits, where a domain
/// larger than the platform (racks_per_power x nodes_per_rack up to 2^32) cannot wrap.
std::vector<int> node_range(int index, std::int64_t size, int nodes) {
  std::vector<int> out;
  const std::int64_t first = index * size;
  const std::int64_t last = std::min<std::int64_t>(first + size, nodes);
  for (std::int64_t n = first; n < last; ++n) out.push_back(static_cast<int>(n));
  return out;
}

}  // namespace

std::vector<int> nodes_hit(ClusterTarget target, int index, const ClusterPlatformConfig& p) {
  switch (target) {
    case ClusterTarget::ACCELERATOR:
      return {index / p.node.accelerators};
    case ClusterTarget::NODE:
    case ClusterTarget::NIC:
      return {index};
    case ClusterTarget::SWITCH:
      return node_range(index, p.topology.nodes_per_leaf, p.platform_nodes());
    case ClusterTarget::RACK:
      return node_range(index, p.domains.nodes_per_rack, p.platform_nodes());
    case ClusterTarget::POWER:
      return node_range(
          index, static_cast<std::int64_t>(p.domains.racks_per_power) * p.domains.nodes_per_rack,
          p.platform_nodes());
  }
  return {};
}

std::vector<models::Rng> component_streams(std::uint64_t root, ClusterTarget target,
                                           const ClusterPlatformConfig& platform) {
  const std::uint64_t per_kind = models::derive_seed(root, static_cast<std::uint64_t>(target));
  std::vector<models::Rng> streams;
  const int count = component_count(target, platform);
  for (int c = 0; c < count; ++c) {
    input::poll_interrupt(c, count, "seeding the components' random streams", "component");
    streams.emplace_back(models::derive_seed(per_kind, static_cast<std::uint64_t>(c)));
  }
  return streams;
}

std::vector<int> trace_nodes(const ClusterTraceConfig& trace, int nodes, std::uint64_t seed) {
  std::vector<int> node(static_cast<std::size_t>(nodes));
  for (int n = 0; n < nodes; ++n) node[static_cast<std::size_t>(n)] = n;
  if (trace.mapping != TraceMapping::RANDOM) return node;
  // Fisher-Yates on its own stream: the other random streams do not move.
  models::Rng rng(models::derive_seed(seed, SEED_TRACE_MAPPING));
  for (std::size_t i = node.size(); i > 1; --i) std::swap(node[i - 1], node[rng.below(i)]);
  return node;
}

bool loses_host_memory(ClusterTarget target) {
  return target == ClusterTarget::NODE || target == ClusterTarget::RACK ||
         target == ClusterTarget::POWER;
}

FailureSchedule::FailureSchedule(const ClusterFailureConfig& failures,
                                 const ClusterPlatformConfig& platform, std::uint64_t seed)
    : failures_(failures), platform_(platform) {
  for (std::size_t i = 0; i < failures.events.size(); ++i) {
    input::poll_interrupt(static_cast<long long>(i), static_cast<long long>(failures.events.size()),
                          "scheduling the failure events", "event");
    const ClusterFailureEvent& e = failures.events[i];
    Entry entry;
    entry.outage.at = e.at;
    entry.outage.target = e.target;
    entry.outage.index = e.index;
    entry.outage.nodes = nodes_hit(e.target, e.index, platform);
    entry.outage.back = e.down_for ? e.at + *e.down_for : std::numeric_limits<double>::infinity();
    entry.outage.host_memory_lost = loses_host_memory(e.target);
    entry.outage.event = i;
    entry.order = i;
    heap_.push(std::move(entry));
  }
  // A trace's faults come after the scheduled events at the same instant, in the trace's order.
  std::size_t order = failures.events.size();
  if (failures.trace) {
    const std::vector<int> node = trace_nodes(*failures.trace, platform.nodes, seed);
    const auto outages = static_cast<long long>(failures.trace->outages.size());
    for (const TraceOutage& t : failures.trace->outages) {
      input::poll_interrupt(static_cast<long long>(order - failures.events.size()), outages,
                            "scheduling the trace's outages", "outage");
      Entry entry;
      entry.outage.at = t.at;
      entry.outage.target = ClusterTarget::NODE;
      entry.outage.index = node[static_cast<std::size_t>(t.slot)];
      entry.outage.nodes = {entry.outage.index};
      entry.outage.back = t.back;
      entry.outage.host_memory_lost = t.host_memory_lost;
      entry.outage.cause = t.cause;
      entry.order = order++;
      heap_.push(std::move(entry));
    }
  }
  processes_ = failures.stochastic;
  if (failures.rates) {
    processes_.insert(processes_.end(), failures.rates->processes.begin(),
                      failures.rates->processes.end());
  }
  const std::uint64_t root = models::derive_seed(seed, SEED_CLUSTER_FAILURES);
  const std::uint64_t rates_root = models::derive_seed(seed, SEED_NODE_RATES);
  for (std::size_t p = 0; p < processes_.size(); ++p) {
    streams_.push_back(component_streams(root, processes_[p].target, platform));
    const int count = static_cast<int>(streams_.back().size());
    // Rates from streams of their own (one entry per target): the lifetimes' draws are the
    // same with or without heterogeneity, only stretched.
    rates_.emplace_back();
    if (processes_[p].heterogeneity) {
      rates_.back() = draw_component_rates(
          *processes_[p].heterogeneity, count,
          models::derive_seed(rates_root, static_cast<std::uint64_t>(processes_[p].target)));
    }
    for (int c = 0; c < count; ++c) {
      input::poll_interrupt(c, count, "drawing the random failures' first lifetimes", "component");
      heap_.push(draw_next(static_cast<int>(p), c, 0.0));
    }
  }
}

FailureSchedule::Entry FailureSchedule::draw_next(int p, int component, double since) {
  const ClusterStochasticFailures& process = processes_[static_cast<std::size_t>(p)];
  models::Rng& rng = streams_[static_cast<std::size_t>(p)][static_cast<std::size_t>(component)];
  Entry entry;
  const double lifetime = draw(process.lifetime, rng);
  entry.outage.at = since + lifetime;
  if (const std::optional<ComponentRates>& rates = rates_[static_cast<std::size_t>(p)]) {
    const auto c = static_cast<std::size_t>(component);
    entry.outage.at =
        lifetime_end(since, lifetime, rates->factor[c], rates->turns_bad_at[c], rates->bad_factor);
  }
  entry.outage.back = entry.outage.at + draw(process.repair, rng);
  entry.outage.target = process.target;
  entry.outage.index = component;
  entry.outage.nodes = nodes_hit(process.target, component, platform_);
  entry.outage.host_memory_lost = loses_host_memory(process.target);
  if (!process.causes.empty()) {
    // The cause by weight, from one more draw of the component's stream (a process without
    // causes draws exactly as before).
    double total = 0.0;
    for (const FailureCause& c : process.causes) total += c.weight;
    double u = rng.uniform() * total;
    const FailureCause* cause = &process.causes.back();
    for (const FailureCause& c : process.causes) {
      if (u < c.weight) {
        cause = &c;
        break;
      }
      u -= c.weight;
    }
    entry.outage.cause = cause->name;
    entry.outage.host_memory_lost = cause->host_memory_lost;
  }
  // Ties: scheduled events first, then the trace, then processes in file order (stochastic, then
  // rates), then components in index order.
  const std::size_t trace = failures_.trace ? failures_.trace->outages.size() : 0;
  entry.order = failures_.events.size() + trace +
                static_cast<std::size_t>(p) * static_cast<std::size_t>(1u << 24) +
                static_cast<std::size_t>(component);
  entry.process = p;
  entry.component = component;
  return entry;
}

Outage FailureSchedule::take() {
  Entry top = heap_.top();
  heap_.pop();
  // A component fails again a lifetime after its repair.
  if (top.process >= 0) heap_.push(draw_next(top.process, top.component, top.outage.back));
  return std::move(top.outage);
}

}  // namespace failsim::sim
