#include "sim/collective/job/measured_times.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace failsim::sim {

namespace {
/// Boost's hash_combine, one step per number: an assignment is hashed at each swap (12,544
/// nodes in the AIReSim job).
void mix(std::uint64_t& h, std::uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}
}  // namespace

std::uint64_t MeasuredTimes::key(const Assignment& assignment) const {
  const std::size_t data_parallel =
      assignment.data_parallel ? assignment.data_parallel->size() + 1 : 0;
  Hashed& last = last_key_;
  if (last.known && last.data_parallel == data_parallel && last.node == assignment.node &&
      last.active == assignment.active)
    return last.key;
  std::uint64_t h = 0;
  for (const bool a : assignment.active) mix(h, a ? 1 : 0);
  for (const int n : assignment.node) mix(h, static_cast<std::uint64_t>(n));
  mix(h, data_parallel);
  last = {assignment.active, assignment.node, data_parallel, h, true};
  return h;
}

std::uint64_t MeasuredTimes::transfer_key(const std::string& what,
                                          const Assignment& assignment) const {
  std::uint64_t h = key(assignment);
  mix(h, std::hash<std::string>{}(what));
  return h;
}

const StepTimes* MeasuredTimes::step(const Assignment& assignment) const {
  // The flows depend on which replicas run, where, and on the data-parallel collectives a design
  // asks for; not on the streams they take.
  const auto [begin, end] = step_index_.equal_range(key(assignment));
  for (auto it = begin; it != end; ++it) {
    const auto& [a, times] = steps_[it->second];
    if (assignments_.same(a, assignment, false)) return &times;
  }
  return nullptr;
}

MeasuredTimes::StepParts MeasuredTimes::step_parts(StepNetwork& network) {
  StepParts parts;
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    std::shared_ptr<const PartShape> shape = network.shape(static_cast<StepPart>(p));
    std::deque<MeasuredPart>& measured = parts_[p];
    const auto same = std::find_if(measured.begin(), measured.end(), [&](const MeasuredPart& m) {
      return m.shape == shape || *m.shape == *shape;
    });
    if (same != measured.end()) {
      parts.seconds[p] = same->seconds;
      // The most recently used last: the one dropped when full is the least recently used.
      std::rotate(same, same + 1, measured.end());
    }
    parts.shapes[p] = std::move(shape);
  }
  return parts;
}

bool MeasuredTimes::add_step(const Assignment& assignment, const StepTimes& times,
                             const StepParts& parts) {
  // What the flows take on the idle network they take whenever it is idle again under the same
  // assignment, and flows of the same shape under another.
  step_index_.emplace(key(assignment), steps_.size());
  steps_.emplace_back(assignments_.add(assignment), times);
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    if (parts.seconds[p] || !parts.shapes[p]) continue;
    std::deque<MeasuredPart>& measured = parts_[p];
    if (measured.size() == MAX_SHAPES_PER_PART) measured.pop_front();
    measured.push_back({parts.shapes[p], times[static_cast<StepPart>(p)]});
  }
  return steps_.size() == 1;
}

MeasuredTimes::Transfer MeasuredTimes::transfer(const std::string& what,
                                                const Assignment& assignment,
                                                const std::vector<Flow>& flows) {
  return transfer(what, assignment, flows, nullptr);
}

MeasuredTimes::Transfer MeasuredTimes::transfer(const std::string& what,
                                                const Assignment& assignment,
                                                const TrackedFlows& flows) {
  return transfer(what, assignment, flows.flows(), &flows);
}

MeasuredTimes::Transfer MeasuredTimes::transfer(const std::string& what,
                                                const Assignment& assignment,
                                                const std::vector<Flow>& flows,
                                                const TrackedFlows* tracked) {
  const auto [begin, end] = transfer_index_.equal_range(transfer_key(what, assignment));
  for (auto it = begin; it != end; ++it) {
    const Measured& t = transfers_[it->second];
    if (t.what == what && assignments_.same(t.assignment, assignment, true))
      return {t.seconds, nullptr};
  }
  // The last of its kind with a renaming of a few links (e.g. a spare in a failed node's place:
  // the same file-system links, the spare's NIC and accelerator links for the failed node's).
  const auto latest = latest_.find(what);
  if (latest != latest_.end()) {
    Latest& l = latest->second;
    // The same flows kept in place: they differ from the latest only where written since.
    std::optional<std::vector<std::uint32_t>> written;
    if (tracked != nullptr && l.serial == tracked->serial())
      written = tracked->written_since(l.version);
    if (renamed(l, flows, written ? &*written : nullptr)) {
      l.serial = tracked != nullptr ? tracked->serial() : 0;
      l.version = tracked != nullptr ? tracked->version() : 0;
      add_measured(what, assignment, l.seconds, l.shape);
      return {l.seconds, nullptr};
    }
  }
  // Another assignment whose flows have the same shape takes the same time.
  auto shape = std::make_shared<const FlowShape>(shape_of(flows));
  for (const Measured& t : transfers_) {
    if (t.what == what && *t.shape == *shape) {
      // Copied first: adding to transfers_ may move `t`.
      const double seconds = t.seconds;
      std::shared_ptr<const FlowShape> same = t.shape;
      add_measured(what, assignment, seconds, same);
      set_latest(what, flows, seconds, std::move(same), tracked);
      return {seconds, nullptr};
    }
  }
  return {std::nullopt, std::move(shape)};
}

void MeasuredTimes::add_transfer(const std::string& what, const Assignment& assignment,
                                 double seconds, std::shared_ptr<const FlowShape> shape,
                                 const std::vector<Flow>& flows, const TrackedFlows* tracked) {
  add_measured(what, assignment, seconds, shape);
  set_latest(what, flows, seconds, std::move(shape), tracked);
}

void MeasuredTimes::add_measured(const std::string& what, const Assignment& assignment,
                                 double seconds, std::shared_ptr<const FlowShape> shape) {
  transfer_index_.emplace(transfer_key(what, assignment), transfers_.size());
  transfers_.push_back({what, assignments_.add(assignment), seconds, std::move(shape)});
}

void MeasuredTimes::set_latest(const std::string& what, const std::vector<Flow>& flows,
                               double seconds, std::shared_ptr<const FlowShape> shape,
                               const TrackedFlows* tracked) {
  Latest& l = latest_[what];
  l = {flows,
       {},
       {},
       seconds,
       std::move(shape),
       tracked != nullptr ? tracked->serial() : 0,
       tracked != nullptr ? tracked->version() : 0};
  Route route;
  for (const Flow& f : flows) {
    route_of(f.from, f.to, route);
    for (const simgrid::s4u::Link* link : route) {
      const auto [number, added] = l.links.number(link);
      if (added) l.crossing.push_back(0);
      ++l.crossing[number];
    }
  }
}

bool MeasuredTimes::renamed(Latest& latest, const std::vector<Flow>& flows,
                            const std::vector<std::uint32_t>* candidates) {
  // An update changing more than this fraction of the flows is decided by the shape of all.
  constexpr std::size_t AT_MOST_ONE_IN = 8;
  if (flows.size() != latest.flows.size()) return false;
  std::vector<std::size_t> changed;
  const std::size_t looked_at = candidates != nullptr ? candidates->size() : flows.size();
  for (std::size_t k = 0; k < looked_at; ++k) {
    const std::size_t i = candidates != nullptr ? (*candidates)[k] : k;
    const Flow& a = latest.flows[i];
    const Flow& b = flows[i];
    if (a.from == b.from && a.to == b.to && a.bytes == b.bytes &&
        a.extra_latency == b.extra_latency)
      continue;
    if (a.bytes != b.bytes || a.extra_latency != b.extra_latency) return false;
    changed.push_back(i);
    if (changed.size() * AT_MOST_ONE_IN > flows.size()) return false;
  }
  std::vector<Route> before(changed.size()), after(changed.size());
  std::map<const simgrid::s4u::Link*, std::uint32_t> crossed_before;  // by the changed flows
  for (std::size_t c = 0; c < changed.size(); ++c) {
    route_of(latest.flows[changed[c]].from, latest.flows[changed[c]].to, before[c]);
    route_of(flows[changed[c]].from, flows[changed[c]].to, after[c]);
    if (before[c].size() != after[c].size()) return false;
    for (const simgrid::s4u::Link* link : before[c]) ++crossed_before[link];
  }
  // Whether a flow that did not change crosses `link`.
  const auto kept = [&](const simgrid::s4u::Link* link) {
    const std::optional<std::uint32_t> n = latest.links.find(link);
    const auto changed_on = crossed_before.find(link);
    return n && latest.crossing[*n] > (changed_on == crossed_before.end() ? 0 : changed_on->second);
  };
  std::map<const simgrid::s4u::Link*, const simgrid::s4u::Link*> forward, backward;
  for (std::size_t c = 0; c < changed.size(); ++c) {
    for (std::size_t k = 0; k < before[c].size(); ++k) {
      const simgrid::s4u::Link* a = before[c][k];
      const simgrid::s4u::Link* b = after[c][k];
      if (a != b && (kept(a) || kept(b))) return false;
      if (forward.try_emplace(a, b).first->second != b) return false;
      if (backward.try_emplace(b, a).first->second != a) return false;
      if (a != b &&
          (a->get_bandwidth() != b->get_bandwidth() || a->get_latency() != b->get_latency() ||
           a->get_sharing_policy() != b->get_sharing_policy() || a->is_on() != b->is_on()))
        return false;
    }
  }
  // The same shape: `flows` are the latest now.
  for (std::size_t c = 0; c < changed.size(); ++c) {
    for (const simgrid::s4u::Link* link : before[c]) --latest.crossing[*latest.links.find(link)];
    for (const simgrid::s4u::Link* link : after[c]) {
      const auto [number, added] = latest.links.number(link);
      if (added) latest.crossing.push_back(0);
      ++latest.crossing[number];
    }
    latest.flows[changed[c]] = flows[changed[c]];
  }
  return true;
}

}  // namespace failsim::sim
