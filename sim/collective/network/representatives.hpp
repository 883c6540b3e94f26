// Steps measured by symmetry (docs/cluster.md, "Steps measured by symmetry", issue 33): a phase
// of flows on an idle network takes the time of one group of each kind among its independent
// groups. Under max-min fair sharing (CM02), flows interact only through links that can
// saturate; two groups of flows that share none are independent (each takes the time it takes
// alone), and groups of one shape (FlowShape: the same links up to their names) take the same
// time. Every data-parallel ring of a pipeline stage on a uniform fat-tree looks alike, every
// pipeline send between two nodes too: a step of 16,384 ranks is measured from a few hundred
// flows, and a spare swap changes only the groups its node is in (FlowGroups::update).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/link_numbers.hpp"

namespace failsim::sim {

/// The independent groups of a phase's flows. Flows are joined by the links that can saturate:
/// a link cannot when what its flows can carry, bounded by the other links they cross, fits in
/// its bandwidth (the bound is in representatives.cpp). A link's bandwidth is read when the
/// groups first meet it, and its state not at all: the collective platform's links keep both
/// (a failure is the job's to count, collective_job.hpp; a platform whose links change would
/// have to form its groups again).
class FlowGroups {
 public:
  explicit FlowGroups(std::vector<Flow> flows);

  /// Moves to `flows`. When they are as many as the current ones and differ in a few (a spare
  /// swap moves one node's), only the groups the changed flows and their links touch are formed
  /// again; else all. The groups are those FlowGroups(flows) forms.
  void update(std::vector<Flow> flows);
  /// The same when `flows` may differ from the current ones only at `candidates` (indices, in
  /// any order, repeats allowed: a spare swap's moved groups'), without comparing the others.
  void update(const std::vector<Flow>& flows, std::vector<std::uint32_t> candidates);

  /// The flows whose set, started alone on an idle network, ends when all would: the first
  /// group of each shape, in the order of the flows.
  std::vector<Flow> representatives() const;

 private:
  struct LinkUse {
    simgrid::s4u::Link* link;
    double bandwidth;
    bool shared;                       // false for a fat pipe: each flow alone is bounded
    std::vector<std::uint32_t> flows;  // crossing it, ascending
  };
  struct Shape {
    FlowShape shape;
    std::set<std::uint32_t> groups;  // the first flows of the groups of this shape
  };

  void build();
  /// Forms again the groups of the flows at `changed` (ascending), now those of `flows`, and of
  /// every flow their links touch (update()).
  void regroup(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& changed);
  void route(std::uint32_t f);
  void unroute(std::uint32_t f);
  void join_through(std::uint32_t l);
  std::uint32_t find(std::uint32_t f);
  void join(std::uint32_t a, std::uint32_t b);
  /// Forms the groups of `flows` (ascending, every flow of the groups they were in), whose
  /// union-find entries are fresh, from the links they cross.
  void group(const std::vector<std::uint32_t>& flows);

  std::vector<Flow> flows_;
  std::vector<std::uint32_t> route_begin_;  // flow f's links: links_[route_begin_[f] ..)
  std::vector<std::uint8_t> route_size_;
  std::vector<std::uint32_t> links_;  // link numbers; a changed flow's route is appended
  std::vector<LinkUse> uses_;         // per link number
  LinkNumbers number_;
  std::vector<std::uint32_t> parent_;  // union-find; a group's root is its first flow
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> members_;  // by root
  std::unordered_map<std::uint32_t, std::size_t> shape_of_;                // by root
  std::vector<Shape> shapes_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> shapes_by_hash_;
  // join_through()'s work, per link number (zero, 0.0 and none between calls) and per flow.
  std::vector<std::uint32_t> meeting_;
  std::vector<double> carried_;
  std::vector<std::uint32_t> first_;
  std::vector<std::uint32_t> met_;
  std::vector<std::uint32_t> bounds_;
  std::vector<std::uint32_t> group_of_;
};

/// FlowGroups(flows).representatives().
std::vector<Flow> representatives(const std::vector<Flow>& flows);

}  // namespace failsim::sim
