#include "sim/collective/network/representatives.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <utility>

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

/// A link the flows cross: its bandwidth, whether flows share it, the flows crossing it.
struct LinkUse {
  double bandwidth = 0.0;
  bool shared = true;  // false for a fat pipe: each flow alone is bounded by its bandwidth
  std::vector<std::size_t> flows;
};

/// The flows' routes, with their links numbered by first use.
struct Crossings {
  std::vector<Route> routes;             // per flow
  std::vector<std::vector<int>> links;   // per flow: its route's link numbers
  std::vector<LinkUse> uses;             // per link number
  std::vector<double> alone;             // per flow: the least bandwidth of its route
  bool any_off = false;
};

Crossings crossings(const std::vector<Flow>& flows) {
  Crossings c;
  c.routes.resize(flows.size());
  c.links.resize(flows.size());
  c.alone.assign(flows.size(), std::numeric_limits<double>::infinity());
  std::unordered_map<const sg4::Link*, int> number;
  double latency = 0.0;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    flows[f].from->route_to(flows[f].to, c.routes[f], &latency);
    for (const sg4::Link* link : c.routes[f]) {
      auto [it, added] = number.try_emplace(link, static_cast<int>(c.uses.size()));
      if (added) {
        c.uses.push_back({link->get_bandwidth(),
                          link->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE,
                          {}});
        c.any_off = c.any_off || !link->is_on();
      }
      LinkUse& use = c.uses[static_cast<std::size_t>(it->second)];
      use.flows.push_back(f);
      c.links[f].push_back(it->second);
      c.alone[f] = std::min(c.alone[f], use.bandwidth);
    }
  }
  return c;
}

/// Union-find over the flows.
class Groups {
 public:
  explicit Groups(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t f) {
    while (parent_[f] != f) {
      parent_[f] = parent_[parent_[f]];
      f = parent_[f];
    }
    return f;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the root is the first flow
  }

 private:
  std::vector<std::size_t> parent_;
};

/// Joins the flows that link `l` makes depend on each other. A flow never gets more than the
/// least bandwidth on its route (`alone`), and the flows of l that also cross another shared link
/// m never get more than m's bandwidth together. So l's flows are grouped, each by the other
/// link of its route where the most of them meet per unit of bandwidth (ties: the first on its
/// route), and l's load is at most the sum over the groups of min(m's bandwidth, the group's
/// flows alone). When that exceeds l's bandwidth, l may share it among all its flows: they are
/// joined. Else l saturates, if ever, only when each group is held at its bound by its own link
/// m (as flows end the bound only falls), so l changes no share: only each group's flows are
/// joined (through m). That is the common case: a node's NIC carries its accelerators' flows, a
/// non-blocking uplink one node's.
void join_through(const Crossings& c, int l, Groups& joined) {
  const LinkUse& use = c.uses[static_cast<std::size_t>(l)];
  if (!use.shared) return;
  std::unordered_map<int, std::size_t> meeting;  // other link -> l's flows crossing it
  for (std::size_t f : use.flows) {
    for (int m : c.links[f]) {
      if (m != l && c.uses[static_cast<std::size_t>(m)].shared) ++meeting[m];
    }
  }
  std::vector<int> bounds;                 // the groups' links, in order of first use
  std::unordered_map<int, double> carried; // by the link that bounds the group
  std::vector<int> group_of(use.flows.size(), -1);
  double load = 0.0;                       // flows bounded by no other shared link
  for (std::size_t i = 0; i < use.flows.size(); ++i) {
    const std::size_t f = use.flows[i];
    double per_flow = std::numeric_limits<double>::infinity();
    for (int m : c.links[f]) {
      if (m == l || !c.uses[static_cast<std::size_t>(m)].shared) continue;
      const double share =
          c.uses[static_cast<std::size_t>(m)].bandwidth / static_cast<double>(meeting[m]);
      if (share < per_flow) {
        per_flow = share;
        group_of[i] = m;
      }
    }
    if (group_of[i] < 0) {
      load += c.alone[f];
      continue;
    }
    auto [it, added] = carried.try_emplace(group_of[i], 0.0);
    if (added) bounds.push_back(group_of[i]);
    it->second += c.alone[f];
  }
  for (int m : bounds) load += std::min(c.uses[static_cast<std::size_t>(m)].bandwidth, carried[m]);
  // The margin keeps the sum's rounding from joining a link whose load is its bandwidth.
  const bool all = load > use.bandwidth * (1.0 + 1e-12);
  std::unordered_map<int, std::size_t> first;  // per group's link, its first flow
  for (std::size_t i = 0; i < use.flows.size(); ++i) {
    if (all) {
      joined.join(use.flows.front(), use.flows[i]);
    } else if (group_of[i] >= 0) {
      joined.join(first.try_emplace(group_of[i], use.flows[i]).first->second, use.flows[i]);
    }
  }
}

std::uint64_t hash_of(const FlowShape& shape) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the numbers' bits
  for (const std::vector<double>* part : {&shape.flows, &shape.links}) {
    for (double x : *part) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
    }
  }
  return h;
}

}  // namespace

std::vector<Flow> representatives(const std::vector<Flow>& flows) {
  if (flows.size() < 2) return flows;
  const Crossings c = crossings(flows);
  if (c.any_off) return flows;  // flows on a link that is off fail: not a time to take by kind
  Groups groups(flows.size());
  for (std::size_t l = 0; l < c.uses.size(); ++l) {
    if (c.uses[l].flows.size() >= 2) join_through(c, static_cast<int>(l), groups);
  }
  // Each group's flows in order, the groups in the order of their first flow.
  std::vector<std::vector<std::size_t>> members;
  std::vector<std::size_t> member_of(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const std::size_t root = groups.find(f);
    if (root == f) {
      member_of[f] = members.size();
      members.emplace_back();
    }
    members[member_of[root]].push_back(f);
  }
  // One group of each shape: the first.
  std::unordered_map<std::uint64_t, std::vector<FlowShape>> kept;
  std::vector<bool> keep(flows.size(), false);
  for (const std::vector<std::size_t>& group : members) {
    std::vector<Flow> its_flows;
    std::vector<Route> its_routes;
    for (std::size_t f : group) {
      its_flows.push_back(flows[f]);
      its_routes.push_back(c.routes[f]);
    }
    FlowShape shape = shape_of(its_flows, its_routes);
    std::vector<FlowShape>& same_hash = kept[hash_of(shape)];
    if (std::find(same_hash.begin(), same_hash.end(), shape) != same_hash.end()) continue;
    same_hash.push_back(std::move(shape));
    for (std::size_t f : group) keep[f] = true;
  }
  std::vector<Flow> out;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (keep[f]) out.push_back(flows[f]);
  }
  return out;
}

}  // namespace failsim::sim
