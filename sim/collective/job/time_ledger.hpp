// Where a collective job's wall time went (docs/cluster.md, "Effective training time"): every
// simulated second from the start to the end of the run is in exactly one cause, so the causes
// sum to the run's end time and ETTR = productive / total. A step's time is provisional until no
// rollback can undo it: a rollback moves the steps after the restored version to lost work.
// Engine-free.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string_view>

#include "result_format/time_cause.hpp"

namespace failsim::sim {

// The causes and their spellings are result files' vocabulary (result_format/time_cause.hpp).
using result_format::TIME_CAUSES;
using result_format::TimeCause;

class TimeLedger {
 public:
  void add(TimeCause cause, double seconds) { seconds_[index(cause)] += seconds; }
  /// Step `version` (the parameters' version it produced) took nominal + stragglers +
  /// interference seconds and consumed `samples`; provisional until committed.
  void step(std::int64_t version, double nominal, double stragglers, double interference,
            double samples);
  /// No rollback will go back before `version` (a checkpoint of it is safe): its steps and the
  /// earlier ones are final.
  void commit_through(std::int64_t version);
  /// A restart restored `version`: the provisional steps after it become lost work. Returns
  /// how many steps were rolled back.
  std::int64_t roll_back_to(std::int64_t version);
  /// Of each provisional step after `version`, `samples` (at most its own) no longer count as
  /// kept: a design discarded them without undoing the steps (a DiLoCo group lost with its inner
  /// steps of the round). Returns the samples discarded.
  double discard_samples_after(std::int64_t version, double samples);

  /// Seconds of `cause`, provisional steps counted as kept.
  double seconds(TimeCause cause) const;
  double total() const;
  /// Samples of the steps kept (not rolled back).
  double samples_kept() const { return samples_kept_; }

 private:
  static std::size_t index(TimeCause c) { return static_cast<std::size_t>(c); }
  struct StepTime {
    std::int64_t version;
    double nominal, stragglers, interference, samples;
  };
  double samples_kept_ = 0.0;
  std::array<double, TIME_CAUSES> seconds_{};  // final accounts
  std::deque<StepTime> provisional_;
};

}  // namespace failsim::sim
