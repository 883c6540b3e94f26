#include "sim/collective/network/representatives.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "sim/engine/setup_interrupts.hpp"

namespace failsim::sim {

/// Flows routed or grouped between two looks for a signal: a route is microseconds (its links
/// from the fabric, their bandwidths), so a few milliseconds apart.
constexpr long long ROUTES_BETWEEN_POLLS = 1024;

namespace sg4 = simgrid::s4u;

namespace {

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

// An update that changes more than this fraction of the flows forms every group again.
constexpr std::size_t UPDATE_AT_MOST_ONE_IN = 8;

}  // namespace

FlowGroups::FlowGroups(std::vector<Flow> flows) : flows_(std::move(flows)) { build(); }

std::uint32_t FlowGroups::find(std::uint32_t f) {
  while (parent_[f] != f) {
    parent_[f] = parent_[parent_[f]];
    f = parent_[f];
  }
  return f;
}

void FlowGroups::join(std::uint32_t a, std::uint32_t b) {
  a = find(a);
  b = find(b);
  if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the root is the first flow
}

void FlowGroups::route(std::uint32_t f) {
  Route route;
  route_of(flows_[f].from, flows_[f].to, route);
  route_begin_[f] = static_cast<std::uint32_t>(links_.size());
  route_size_[f] = static_cast<std::uint8_t>(route.size());
  for (sg4::Link* link : route) {
    const auto [number, added] = number_.number(link);
    if (added) {
      uses_.push_back({link,
                       link->get_bandwidth(),
                       link->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE,
                       {}});
    }
    std::vector<std::uint32_t>& on = uses_[number].flows;
    on.insert(std::upper_bound(on.begin(), on.end(), f), f);
    links_.push_back(number);
  }
}

void FlowGroups::unroute(std::uint32_t f) {
  for (std::uint32_t i = 0; i < route_size_[f]; ++i) {
    std::vector<std::uint32_t>& on = uses_[links_[route_begin_[f] + i]].flows;
    on.erase(std::lower_bound(on.begin(), on.end(), f));
  }
}

// Joins the flows that link `l` makes depend on each other. A flow never gets more than the
// least bandwidth on its route (`alone`), and the flows of l that also cross another shared link
// m never get more than m's bandwidth together. So l's flows are grouped, each by the other link
// of its route where the most of them meet per unit of bandwidth (ties: the first on its route),
// and l's load is at most the sum over the groups of min(m's bandwidth, the group's flows alone).
// When that exceeds l's bandwidth, l may share it among all its flows: they are joined. Else l
// saturates, if ever, only when each group is held at its bound by its own link m (as flows end
// the bound only falls), so l changes no share: only each group's flows are joined (through m).
// That is the common case: a node's NIC carries its accelerators' flows, a non-blocking uplink
// one node's. The decision depends on l's flows and their routes only: update() relies on it.
void FlowGroups::join_through(std::uint32_t l) {
  const LinkUse& use = uses_[l];
  if (!use.shared || use.flows.size() < 2) return;
  const auto route = [&](std::uint32_t f) {
    return std::pair{links_.begin() + route_begin_[f],
                     links_.begin() + route_begin_[f] + route_size_[f]};
  };
  // Per link number, in arrays kept between calls (a swap joins through hundreds of links, and
  // hash maps made per call were most of it); each entry used is reset before returning.
  constexpr std::uint32_t NONE = std::numeric_limits<std::uint32_t>::max();
  if (meeting_.size() < uses_.size()) {
    meeting_.resize(uses_.size(), 0);
    carried_.resize(uses_.size(), 0.0);
    first_.resize(uses_.size(), NONE);
  }
  met_.clear();  // the other links l's flows meet on: meeting_[m] of them on m
  for (std::uint32_t f : use.flows) {
    for (auto [m, end] = route(f); m != end; ++m) {
      if (*m != l && uses_[*m].shared && meeting_[*m]++ == 0) met_.push_back(*m);
    }
  }
  bounds_.clear();  // the groups' links, in order of first use; first_[m]: the group's first flow
  group_of_.assign(use.flows.size(), NONE);
  double load = 0.0;  // of the flows bounded by no other shared link
  for (std::size_t i = 0; i < use.flows.size(); ++i) {
    double alone = std::numeric_limits<double>::infinity();
    double per_flow = std::numeric_limits<double>::infinity();
    for (auto [m, end] = route(use.flows[i]); m != end; ++m) {
      alone = std::min(alone, uses_[*m].bandwidth);
      if (*m == l || !uses_[*m].shared) continue;
      const double share = uses_[*m].bandwidth / static_cast<double>(meeting_[*m]);
      if (share < per_flow) {
        per_flow = share;
        group_of_[i] = *m;
      }
    }
    const std::uint32_t m = group_of_[i];
    if (m == NONE) {
      load += alone;
      continue;
    }
    if (first_[m] == NONE) {
      first_[m] = use.flows[i];
      bounds_.push_back(m);
    }
    carried_[m] += alone;
  }
  for (std::uint32_t m : bounds_) load += std::min(uses_[m].bandwidth, carried_[m]);
  // The margin keeps the sum's rounding from joining a link whose load is its bandwidth.
  const bool all = load > use.bandwidth * (1.0 + 1e-12);
  for (std::size_t i = 0; i < use.flows.size(); ++i) {
    if (all) {
      join(use.flows.front(), use.flows[i]);
    } else if (group_of_[i] != NONE) {
      join(first_[group_of_[i]], use.flows[i]);
    }
  }
  for (std::uint32_t m : met_) meeting_[m] = 0;
  for (std::uint32_t m : bounds_) {
    carried_[m] = 0.0;
    first_[m] = NONE;
  }
}

void FlowGroups::group(const std::vector<std::uint32_t>& flows) {
  std::vector<std::uint32_t> links;
  for (std::uint32_t f : flows) {
    links.insert(links.end(), links_.begin() + route_begin_[f],
                 links_.begin() + route_begin_[f] + route_size_[f]);
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  for (std::uint32_t l : links) join_through(l);
  // The new groups, each with its flows in order, and their shapes.
  std::vector<std::uint32_t> roots;
  for (std::size_t k = 0; k < flows.size(); ++k) {
    poll_outside_actors(static_cast<long long>(k), static_cast<long long>(flows.size()),
                        "grouping the step's flows", "flow", ROUTES_BETWEEN_POLLS);
    const std::uint32_t f = flows[k];
    const std::uint32_t root = find(f);
    if (root == f) roots.push_back(f);
    members_[root].push_back(f);
  }
  std::vector<Flow> its_flows;
  std::vector<Route> its_routes;
  for (std::size_t k = 0; k < roots.size(); ++k) {
    poll_outside_actors(static_cast<long long>(k), static_cast<long long>(roots.size()),
                        "finding the flow groups' shapes", "group", ROUTES_BETWEEN_POLLS);
    const std::uint32_t root = roots[k];
    its_flows.clear();
    its_routes.clear();
    for (std::uint32_t f : members_[root]) {
      its_flows.push_back(flows_[f]);
      Route& r = its_routes.emplace_back();
      for (std::uint32_t i = 0; i < route_size_[f]; ++i) {
        r.push_back(uses_[links_[route_begin_[f] + i]].link);
      }
    }
    FlowShape shape = shape_of(its_flows, its_routes);
    std::vector<std::size_t>& candidates = shapes_by_hash_[hash_of(shape)];
    const auto same = std::find_if(candidates.begin(), candidates.end(),
                                   [&](std::size_t s) { return shapes_[s].shape == shape; });
    std::size_t id = 0;
    if (same != candidates.end()) {
      id = *same;
    } else {
      id = shapes_.size();
      candidates.push_back(id);
      shapes_.push_back({std::move(shape), {}});
    }
    shapes_[id].groups.insert(root);
    shape_of_[root] = id;
  }
}

void FlowGroups::build() {
  const auto n = static_cast<std::uint32_t>(flows_.size());
  route_begin_.assign(n, 0);
  route_size_.assign(n, 0);
  links_.clear();
  uses_.clear();
  number_ = {};
  members_.clear();
  shape_of_.clear();
  shapes_.clear();
  shapes_by_hash_.clear();
  parent_.resize(n);
  std::vector<std::uint32_t> all(n);
  for (std::uint32_t f = 0; f < n; ++f) {
    // A phase of every rank's flow is hundreds of thousands of routes: a second of set-up.
    poll_outside_actors(f, n, "routing the step's flows", "flow", ROUTES_BETWEEN_POLLS);
    route(f);
    parent_[f] = f;
    all[f] = f;
  }
  group(all);
}

void FlowGroups::update(std::vector<Flow> flows) {
  std::vector<std::uint32_t> changed;
  if (flows.size() == flows_.size()) {
    for (std::uint32_t f = 0; f < flows.size(); ++f) {
      if (flows[f] != flows_[f]) changed.push_back(f);
    }
  }
  if (flows.size() != flows_.size() || changed.size() * UPDATE_AT_MOST_ONE_IN > flows.size()) {
    flows_ = std::move(flows);
    build();
    return;
  }
  regroup(flows, changed);
}

void FlowGroups::update(const std::vector<Flow>& flows, std::vector<std::uint32_t> candidates) {
  // The same changed flows as update(flows) finds, looking only where they may be.
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<std::uint32_t> changed;
  for (std::uint32_t f : candidates) {
    if (flows[f] != flows_[f]) changed.push_back(f);
  }
  if (changed.size() * UPDATE_AT_MOST_ONE_IN > flows.size()) {
    flows_ = flows;
    build();
    return;
  }
  regroup(flows, changed);
}

void FlowGroups::regroup(const std::vector<Flow>& flows,
                         const std::vector<std::uint32_t>& changed) {
  if (changed.empty()) return;
  // The groups to form again: those of the changed flows, and those of every flow on a link a
  // changed flow crossed or now crosses (whose decision may change). Any other link joins what
  // it joined before, within the groups kept.
  std::vector<std::uint32_t> touched_links;
  const auto touch = [&](std::uint32_t f) {
    touched_links.insert(touched_links.end(), links_.begin() + route_begin_[f],
                         links_.begin() + route_begin_[f] + route_size_[f]);
  };
  for (std::uint32_t f : changed) {
    touch(f);
    unroute(f);
    flows_[f] = flows[f];
    route(f);
    touch(f);
  }
  std::set<std::uint32_t> roots;
  for (std::uint32_t f : changed) roots.insert(find(f));
  for (std::uint32_t l : touched_links) {
    for (std::uint32_t f : uses_[l].flows) roots.insert(find(f));
  }
  std::vector<std::uint32_t> again;
  for (std::uint32_t root : roots) {
    std::vector<std::uint32_t>& its = members_[root];
    again.insert(again.end(), its.begin(), its.end());
    shapes_[shape_of_[root]].groups.erase(root);
    shape_of_.erase(root);
    members_.erase(root);
  }
  std::sort(again.begin(), again.end());
  for (std::uint32_t f : again) parent_[f] = f;
  group(again);
}

std::vector<Flow> FlowGroups::representatives() const {
  std::vector<std::uint32_t> kept;
  for (const Shape& s : shapes_) {
    if (s.groups.empty()) continue;
    const std::vector<std::uint32_t>& its = members_.at(*s.groups.begin());
    kept.insert(kept.end(), its.begin(), its.end());
  }
  std::sort(kept.begin(), kept.end());
  std::vector<Flow> out;
  out.reserve(kept.size());
  for (std::uint32_t f : kept) out.push_back(flows_[f]);
  return out;
}

std::vector<Flow> representatives(const std::vector<Flow>& flows) {
  if (flows.size() < 2) return flows;
  return FlowGroups(flows).representatives();
}

}  // namespace failsim::sim
