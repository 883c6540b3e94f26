// What a collective job measured on the idle network (no design's traffic on it), to reuse
// instead of simulating the same flows again (docs/cluster.md, "Cost proportional to events"): a
// step's communication times per assignment, and each transfer (a blocking checkpoint write, a
// load at a restart) per assignment and per shape of its flows (FlowShape: another assignment
// whose flows cross links alike takes the same time).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/step_network.hpp"

namespace failsim::sim {

class MeasuredTimes {
 public:
  /// A step's communication times under `assignment`, once measured (nullptr before).
  const StepTimes* step(const Assignment& assignment) const;
  /// Records them; true for the first assignment measured (the full one: the nominal step).
  bool add_step(const Assignment& assignment, const StepTimes& times);

  /// What is known of a transfer: its seconds when measured, else the shape of its flows (when
  /// computed) to record it under once simulated.
  struct Transfer {
    std::optional<double> seconds;
    std::shared_ptr<const FlowShape> shape;
  };
  /// The transfer named `what` of `flows` under `assignment`: measured under it, or under
  /// another assignment with flows of the same shape (then recorded under this one too).
  Transfer transfer(const std::string& what, const Assignment& assignment,
                    const std::vector<Flow>& flows);
  /// Records the transfer named `what` under `assignment`, simulated in `seconds`.
  void add_transfer(const std::string& what, const Assignment& assignment, double seconds,
                    std::shared_ptr<const FlowShape> shape);

 private:
  // Per assignment measured (few: the full one and the few a design moves between).
  std::vector<std::pair<Assignment, StepTimes>> steps_;
  struct Measured {
    std::string what;
    Assignment assignment;
    double seconds;
    std::shared_ptr<const FlowShape> shape;  // of its flows
  };
  std::vector<Measured> transfers_;
};

}  // namespace failsim::sim
