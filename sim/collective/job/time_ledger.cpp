#include "sim/collective/job/time_ledger.hpp"

#include <algorithm>

namespace failsim::sim {

void TimeLedger::step(std::int64_t version, double nominal, double stragglers, double interference,
                      double samples) {
  provisional_.push_back({version, nominal, stragglers, interference, samples});
  samples_kept_ += samples;
}

void TimeLedger::commit_through(std::int64_t version) {
  while (!provisional_.empty() && provisional_.front().version <= version) {
    const StepTime& s = provisional_.front();
    add(TimeCause::PRODUCTIVE, s.nominal);
    add(TimeCause::STRAGGLERS, s.stragglers);
    add(TimeCause::INTERFERENCE, s.interference);
    provisional_.pop_front();
  }
}

std::int64_t TimeLedger::roll_back_to(std::int64_t version) {
  std::int64_t rolled = 0;
  while (!provisional_.empty() && provisional_.back().version > version) {
    const StepTime& s = provisional_.back();
    add(TimeCause::LOST_WORK, s.nominal + s.stragglers + s.interference);
    samples_kept_ -= s.samples;
    provisional_.pop_back();
    ++rolled;
  }
  return rolled;
}

double TimeLedger::discard_samples_after(std::int64_t version, double samples) {
  double discarded = 0.0;
  for (StepTime& s : provisional_) {
    if (s.version <= version) continue;
    const double d = std::min(samples, s.samples);
    s.samples -= d;
    discarded += d;
  }
  samples_kept_ -= discarded;
  return discarded;
}

double TimeLedger::seconds(TimeCause cause) const {
  double s = seconds_[index(cause)];
  for (const StepTime& p : provisional_) {
    if (cause == TimeCause::PRODUCTIVE) s += p.nominal;
    if (cause == TimeCause::STRAGGLERS) s += p.stragglers;
    if (cause == TimeCause::INTERFERENCE) s += p.interference;
  }
  return s;
}

double TimeLedger::total() const {
  double t = 0.0;
  for (std::size_t c = 0; c < TIME_CAUSES; ++c) t += seconds(static_cast<TimeCause>(c));
  return t;
}

}  // namespace failsim::sim
