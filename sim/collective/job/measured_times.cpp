#include "sim/collective/job/measured_times.hpp"

namespace failsim::sim {

const StepTimes* MeasuredTimes::step(const Assignment& assignment) const {
  // The flows depend on which replicas run, where, and on the data-parallel collectives a design
  // asks for; not on the streams they take.
  for (const auto& [a, times] : steps_) {
    if (a.active == assignment.active && a.node == assignment.node &&
        a.data_parallel == assignment.data_parallel)
      return &times;
  }
  return nullptr;
}

bool MeasuredTimes::add_step(const Assignment& assignment, const StepTimes& times) {
  // What the flows take on the idle network they take whenever it is idle again under the same
  // assignment.
  steps_.emplace_back(assignment, times);
  return steps_.size() == 1;
}

MeasuredTimes::Transfer MeasuredTimes::transfer(const std::string& what,
                                                const Assignment& assignment,
                                                const std::vector<Flow>& flows) {
  for (const Measured& t : transfers_) {
    if (t.what == what && t.assignment == assignment) return {t.seconds, nullptr};
  }
  // Another assignment whose flows have the same shape (e.g. a spare in a failed node's place:
  // the same file-system links, the spare's NIC for the failed node's) takes the same time.
  auto shape = std::make_shared<const FlowShape>(shape_of(flows));
  for (const Measured& t : transfers_) {
    if (t.what == what && *t.shape == *shape) {
      const double seconds = t.seconds;
      transfers_.push_back({what, assignment, seconds, t.shape});
      return {seconds, nullptr};
    }
  }
  return {std::nullopt, std::move(shape)};
}

void MeasuredTimes::add_transfer(const std::string& what, const Assignment& assignment,
                                 double seconds, std::shared_ptr<const FlowShape> shape) {
  transfers_.push_back({what, assignment, seconds, std::move(shape)});
}

}  // namespace failsim::sim
