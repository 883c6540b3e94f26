#include "sim/collective/flows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <utility>

#include <simgrid/s4u.hpp>

#include "sim/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(flows, failsim, "flows of the collective protocol's network");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
void sleep_until(double time) {
  if (time > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(time);
}
}  // namespace

FlowSet::FlowSet(const std::vector<Flow>& flows) {
  comms_.reserve(flows.size());
  extra_latency_.reserve(flows.size());
  for (const Flow& flow : flows) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(std::max(0.0, flow.bytes)));
    comms_.push_back(sg4::Comm::sendto_async(flow.from, flow.to, bytes));
    extra_latency_.push_back(flow.extra_latency);
  }
  start_ = sg4::Engine::get_clock();
  end_ = start_;
}

FlowSet& FlowSet::operator=(FlowSet&& other) noexcept {
  if (this != &other) {
    cancel();
    comms_ = std::move(other.comms_);
    extra_latency_ = std::move(other.extra_latency_);
    arrived_ = std::exchange(other.arrived_, 0);
    start_ = other.start_;
    end_ = other.end_;
    cancelled_ = std::exchange(other.cancelled_, false);
    other.comms_.clear();
  }
  return *this;
}

FlowSet::~FlowSet() {
  // Not while an exception unwinds the actor (a ForcefulKillException when it is killed): a
  // simcall then could not return. Those flows run on; only a coordinator's death does that.
  if (std::uncaught_exceptions() == 0) cancel();
}

bool FlowSet::all_arrived() {
  while (arrived_ < comms_.size() && comms_[arrived_]->test()) ++arrived_;
  if (arrived_ < comms_.size()) return false;
  end_ = start_;  // an empty set ends when it starts
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    end_ = std::max(end_, comms_[i]->get_finish_time() + extra_latency_[i]);
  }
  return true;
}

bool FlowSet::done() {
  if (cancelled_) return false;
  return all_arrived() && sg4::Engine::get_clock() >= end_;
}

bool FlowSet::wait_until(double deadline) {
  if (cancelled_) return false;
  if (arrived_ < comms_.size()) {
    const std::vector<sg4::CommPtr> pending(comms_.begin() + static_cast<std::ptrdiff_t>(arrived_),
                                            comms_.end());
    const double now = sg4::Engine::get_clock();
    // wait_all_for waits with wait_any_for, which leaves a comm running when the time is up.
    const double timeout = std::isinf(deadline) ? -1.0 : std::max(0.0, deadline - now);
    arrived_ += sg4::Comm::wait_all_for(pending, timeout);
    if (!all_arrived()) return false;  // the clock is at the deadline
  } else if (!all_arrived()) {
    return false;
  }
  if (end_ > deadline) {
    sleep_until(deadline);
    return false;
  }
  sleep_until(end_);
  return true;
}

void FlowSet::cancel() {
  if (comms_.empty() || cancelled_) return;
  std::size_t running = 0;
  for (std::size_t i = arrived_; i < comms_.size(); ++i) {
    if (!comms_[i]->test()) {
      comms_[i]->cancel();
      ++running;
    }
  }
  cancelled_ = true;
  if (running > 0) {
    FAILSIM_VERBOSE("{} of {} flows cancelled", running, comms_.size());
  }
}

}  // namespace failsim::sim
