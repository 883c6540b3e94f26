#include "sim/collective/job/background_replays.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

namespace failsim::sim {

namespace {
double now() { return simgrid::s4u::Engine::get_clock(); }

bool within(const StepTimes& a, const StepTimes& b, double tolerance) {
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    const auto part = static_cast<StepPart>(p);
    if (std::abs(a[part] - b[part]) > tolerance) return false;
  }
  return true;
}
}  // namespace

double BackgroundReplays::Recording::length() const {
  double end = 0.0;
  for (double s : write_seconds) end = std::max(end, s);
  for (const auto& [offset, times] : steps) end = std::max(end, offset);
  return end;
}

const BackgroundReplays::Recording* BackgroundReplays::find(const std::vector<std::string>& names,
                                                            const Context& context) const {
  for (const Recording& r : recordings_) {
    if (r.names == names && r.context.slowdown == context.slowdown &&
        r.context.assignment == context.assignment)
      return &r;
  }
  return nullptr;
}

std::vector<FlowSet> BackgroundReplays::start(const std::vector<BackgroundSet>& sets,
                                              const Context& context) {
  episode_.reset();  // one not seen idle: nothing is known of it
  std::vector<std::string> names;
  for (const BackgroundSet& set : sets) names.push_back(set.what);
  Episode e;
  e.start = now();
  e.replay = find(names, context);
  // Its steps must all begin before anything changes their lengths.
  if (e.replay != nullptr && !(context.quiet_until > e.start + e.replay->length()))
    e.replay = nullptr;
  std::vector<FlowSet> out;
  if (e.replay != nullptr && !context.simulate_every_step) {
    ++replayed_;
    for (double seconds : e.replay->write_seconds) out.push_back(FlowSet::lasting(seconds));
  } else {
    for (std::size_t i = 0; i < sets.size(); ++i) {
      out.emplace_back(sets[i].flows);
      auto end = std::make_shared<double>(std::numeric_limits<double>::quiet_NaN());
      if (e.replay != nullptr) {
        // Simulated again: an end within the clock's rounding of the recorded one is it.
        const double recorded = e.replay->write_seconds[i];
        const double precision = simgrid::config::get_value<double>("surf/precision");
        out.back().report_end(end, recorded, precision + 1e-12 * recorded);
      } else {
        out.back().report_end(end);
      }
      e.ends.push_back(std::move(end));
    }
  }
  e.recording.names = std::move(names);
  e.recording.context = context;
  episode_ = std::move(e);
  return out;
}

std::optional<StepTimes> BackgroundReplays::step(double begin) {
  if (!episode_ || episode_->replay == nullptr || !episode_->ends.empty()) return std::nullopt;
  Episode& e = *episode_;
  const auto& steps = e.replay->steps;
  // The episode goes as recorded: its k-th step begins where the recording's did (up to the
  // clock's rounding), or the key missed something that changes the steps (a bug).
  const std::size_t k = e.next_step++;
  const double offset = begin - e.start;
  if (k >= steps.size() || std::abs(steps[k].first - offset) > 1e-6 * (1.0 + offset)) {
    throw std::logic_error(fmt::format(
        "background replay: step {} of a replayed episode began {} s after its start, "
        "recorded {}",
        k, offset, k < steps.size() ? fmt::format("{} s", steps[k].first) : "no such step"));
  }
  return steps[k].second;
}

StepTimes BackgroundReplays::measured(double begin, const StepTimes& times, double tolerance) {
  if (!episode_) return times;
  Episode& e = *episode_;
  if (e.replay != nullptr) {
    // Every step simulated: the recorded episode's step, when this one is it but for rounding.
    const std::size_t k = e.next_step++;
    const auto& steps = e.replay->steps;
    if (k < steps.size() && within(times, steps[k].second, tolerance)) return steps[k].second;
    return times;
  }
  e.recording.steps.emplace_back(begin - e.start, times);
  return times;
}

void BackgroundReplays::idle() {
  if (!episode_) return;
  Episode e = std::move(*episode_);
  episode_.reset();
  if (e.replay != nullptr) return;  // known already
  for (const std::shared_ptr<double>& end : e.ends) {
    if (std::isnan(*end)) return;  // cancelled, or its end not seen
    e.recording.write_seconds.push_back(*end);
  }
  // A straggler's change before a recorded step began would have changed it.
  if (!(e.recording.context.quiet_until > e.start + e.recording.length())) return;
  if (recordings_.size() == MAX_RECORDINGS) recordings_.pop_front();
  recordings_.push_back(std::move(e.recording));
}

void BackgroundReplays::cut() { episode_.reset(); }

}  // namespace failsim::sim
