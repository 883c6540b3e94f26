// What a collective job measured on the idle network (no design's traffic on it), to reuse
// instead of simulating the same flows again (docs/cluster.md, "Cost proportional to events"): a
// step's communication times per assignment, each part of a step (step_network.hpp) per shape of
// its flows, and each transfer (a blocking checkpoint write, a load at a restart) per assignment
// and per shape of its flows (FlowShape: another assignment whose flows cross links alike takes
// the same time). So a spare swap simulates only the parts of the step whose routes it changed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/job/assignment_log.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/link_numbers.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/collective/network/tracked_flows.hpp"

namespace failsim::sim {

class MeasuredTimes {
 public:
  /// A step's communication times under `assignment`, once measured (nullptr before). The
  /// pointer stays valid while this lives.
  const StepTimes* step(const Assignment& assignment) const;
  /// Whether a step was measured under any assignment.
  bool any_step() const { return !steps_.empty(); }

  /// What is known of the parts of a step not measured yet: per part, the shape of its flows
  /// and, when a part of that shape was measured, its seconds.
  struct StepParts {
    KnownParts seconds;
    std::array<std::shared_ptr<const PartShape>, STEP_PARTS> shapes;
  };
  /// The parts of `network`'s step under its current assignment (computes their shapes).
  StepParts step_parts(StepNetwork& network);
  /// Records the step's times under `assignment`, and those of its parts that `parts` did not
  /// know under their shapes; true for the first assignment measured (the full one: the
  /// nominal step).
  bool add_step(const Assignment& assignment, const StepTimes& times, const StepParts& parts);

  /// What is known of a transfer: its seconds when measured, else the shape of its flows (when
  /// computed) to record it under once simulated.
  struct Transfer {
    std::optional<double> seconds;
    std::shared_ptr<const FlowShape> shape;
  };
  /// The transfer named `what` of `flows` under `assignment`: measured under it, or under
  /// another assignment with flows of the same shape (then recorded under this one too). The
  /// shape is decided from the flows that changed since the last transfer of that name when
  /// they are few (a spare swap's: the moved node's), by renaming (renamed()).
  Transfer transfer(const std::string& what, const Assignment& assignment,
                    const std::vector<Flow>& flows);
  /// The same for flows kept in place: when the last transfer of that name was of these
  /// (flows.serial()), only the flows written since are compared (TrackedFlows::written_since).
  Transfer transfer(const std::string& what, const Assignment& assignment,
                    const TrackedFlows& flows);
  /// Records the transfer named `what` of `flows` under `assignment`, simulated in `seconds`
  /// (`tracked`: the flows kept in place they are, when they are).
  void add_transfer(const std::string& what, const Assignment& assignment, double seconds,
                    std::shared_ptr<const FlowShape> shape, const std::vector<Flow>& flows,
                    const TrackedFlows* tracked = nullptr);

 private:
  // Per assignment measured (the full one, those a design moves between, one per spare swap),
  // found by the hash of what a step depends on (key()): a job of 66,000 swaps looked through
  // them all at each one.
  AssignmentLog assignments_;                            // those of steps_ and transfers_
  std::deque<std::pair<std::size_t, StepTimes>> steps_;  // by number in assignments_
  std::unordered_multimap<std::uint64_t, std::size_t> step_index_;
  /// The hash of what a step's flows depend on: which replicas run, where, and the
  /// data-parallel collectives a design asks for (not the streams they take).
  std::uint64_t key(const Assignment& assignment) const;
  // The last assignment hashed (what key() reads of it) and its hash: a swap's assignment is
  // looked up and recorded several times (its step, its checkpoint load), and comparing its
  // 12,544 nodes costs a fraction of hashing them.
  struct Hashed {
    std::vector<bool> active;
    std::vector<int> node;
    std::size_t data_parallel = 0;
    std::uint64_t key = 0;
    bool known = false;
  };
  mutable Hashed last_key_;
  // Per part, the latest shapes measured, the most recently used last: a part's shape is about
  // 9 doubles a flow (a megabyte for 16,384 flows), and a spare pool makes a new assignment per
  // swap, so at most MAX_SHAPES_PER_PART are kept (a shape dropped is simulated again if met).
  struct MeasuredPart {
    std::shared_ptr<const PartShape> shape;
    double seconds;
  };
  static constexpr std::size_t MAX_SHAPES_PER_PART = 4;
  std::array<std::deque<MeasuredPart>, STEP_PARTS> parts_;
  struct Measured {
    std::string what;
    std::size_t assignment;  // its number in assignments_
    double seconds;
    std::shared_ptr<const FlowShape> shape;  // of its flows
  };
  std::vector<Measured> transfers_;
  std::unordered_multimap<std::uint64_t, std::size_t> transfer_index_;  // by key() and name
  std::uint64_t transfer_key(const std::string& what, const Assignment& assignment) const;
  void add_measured(const std::string& what, const Assignment& assignment, double seconds,
                    std::shared_ptr<const FlowShape> shape);
  // Per name, the last transfer measured or taken: its flows, and per link the flows crossing
  // it (at most ~2 links a flow: the file system's and a node's, numbered in `links`); when its
  // flows were kept in place (TrackedFlows), their serial and version then (else serial 0).
  struct Latest {
    std::vector<Flow> flows;
    LinkNumbers links;
    std::vector<std::uint32_t> crossing;  // by link number
    double seconds = 0.0;
    std::shared_ptr<const FlowShape> shape;
    std::uint64_t serial = 0;
    std::uint64_t version = 0;
  };
  std::map<std::string, Latest> latest_;
  Transfer transfer(const std::string& what, const Assignment& assignment,
                    const std::vector<Flow>& flows, const TrackedFlows* tracked);
  void set_latest(const std::string& what, const std::vector<Flow>& flows, double seconds,
                  std::shared_ptr<const FlowShape> shape, const TrackedFlows* tracked);
  /// Whether `flows` are `latest`'s up to a renaming of links: the flows that differ are few,
  /// of the same bytes and extra latency, and there is a one-to-one map from the links they
  /// crossed to the links they cross, of the same bandwidth, latency, sharing and state, that
  /// keeps every link another flow crosses. Then both sets number their links alike, flow by
  /// flow: the same shape. If so, `latest` becomes `flows`. `candidates` (when given): the only
  /// indices at which `flows` may differ from `latest`'s, ascending.
  static bool renamed(Latest& latest, const std::vector<Flow>& flows,
                      const std::vector<std::uint32_t>* candidates = nullptr);
};

}  // namespace failsim::sim
