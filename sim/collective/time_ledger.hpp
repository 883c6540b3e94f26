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

namespace failsim::sim {

enum class TimeCause {
  PRODUCTIVE,        ///< kept steps at their nominal time (no straggler, no contention)
  STRAGGLERS,        ///< kept steps' excess while a straggler was slowing them
  INTERFERENCE,      ///< kept steps' excess from contention (a checkpoint written meanwhile)
  CHECKPOINT_STALL,  ///< training waiting for a checkpoint (its write, or its copy to host)
  LOST_WORK,         ///< steps rolled back by a restart, and the step a failure interrupted
  DETECTION,         ///< from a failure until it is noticed
  REPAIR_WAIT,       ///< waiting for failed nodes to come back
  RESTART,           ///< scheduler, process start, communicator initialisation
  CHECKPOINT_LOAD,   ///< reading the checkpoint back
  UNFINISHED,        ///< the step the stop interrupted
};
constexpr std::size_t TIME_CAUSES = 10;

/// Its key in result.json's summary.time_lost (docs/result-format.md).
std::string_view spelling(TimeCause cause);

class TimeLedger {
 public:
  void add(TimeCause cause, double seconds) { seconds_[index(cause)] += seconds; }
  /// Step `version` (the parameters' version it produced) took nominal + stragglers +
  /// interference seconds; provisional until committed.
  void step(std::int64_t version, double nominal, double stragglers, double interference);
  /// No rollback will go back before `version` (a checkpoint of it is safe): its steps and the
  /// earlier ones are final.
  void commit_through(std::int64_t version);
  /// A restart restored `version`: the provisional steps after it become lost work. Returns
  /// how many steps were rolled back.
  std::int64_t roll_back_to(std::int64_t version);

  /// Seconds of `cause`, provisional steps counted as kept.
  double seconds(TimeCause cause) const;
  double total() const;

 private:
  static std::size_t index(TimeCause c) { return static_cast<std::size_t>(c); }
  struct StepTime {
    std::int64_t version;
    double nominal, stragglers, interference;
  };
  std::array<double, TIME_CAUSES> seconds_{};  // final accounts
  std::deque<StepTime> provisional_;
};

}  // namespace failsim::sim
