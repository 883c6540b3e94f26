// Background writes at the price of their events (docs/cluster.md, "Cost proportional to
// events"): a design's writes that stream in the background while training goes on (the
// partner and file-system copies of an in-memory or multi-level checkpoint) share the links with
// the steps' flows, so those steps are simulated flow by flow. But an **episode** - the writes
// started together at a step's end on an otherwise idle network, and the steps begun while they
// run - goes the same way every time it starts from the same state: the same sets of flows under
// the same assignment, the same slowdown of the steps, nothing else changing the steps' lengths
// before the last write ends. So the first such episode is simulated and recorded (each step's
// times and when each write ended, from the episode's start), and the next ones are replayed:
// each write a FlowSet::lasting of its recorded duration, each step its recorded times, nothing
// simulated. A failure or the stop cuts an episode as it would cut the flows (a replayed write
// not ended by then is lost, as a simulated one is); a cut recording is dropped.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/step_network.hpp"

namespace failsim::sim {

/// A write a design starts in the background: its name (the same name, the same flows under the
/// same assignment) and its flows.
struct BackgroundSet {
  std::string what;
  std::vector<Flow> flows;
};

class BackgroundReplays {
 public:
  /// What the steps of an episode depend on besides its writes.
  struct Context {
    Assignment assignment;
    double slowdown = 1.0;  ///< the stragglers' at the start
    /// Nothing changes the steps' lengths before this (the stragglers' next change).
    double quiet_until = 0.0;
    /// Every step simulated when asked (--simulate-every-step): nothing is replayed, and a
    /// step or a write within `tolerance` of its recorded time takes that time.
    bool simulate_every_step = false;
  };

  /// Starts `sets` now, on a network with no other traffic: replayed when an episode of the
  /// same sets under `context` was recorded and nothing can change its steps before it ends,
  /// else simulated (and recorded).
  std::vector<FlowSet> start(const std::vector<BackgroundSet>& sets, const Context& context);
  /// A step begun at `begin` while the episode's writes run: its recorded times when replayed
  /// (nullopt: simulate it, then say measured()).
  std::optional<StepTimes> step(double begin);
  /// The times of the step begun at `begin`, simulated: recorded, or, when simulating every step
  /// of a recorded episode, taken as the recorded ones within `tolerance` (the clock's rounding).
  StepTimes measured(double begin, const StepTimes& times, double tolerance);
  /// The network is idle again: an episode recorded in full, with nothing changing its steps
  /// meanwhile, is kept.
  void idle();
  /// A failure or the stop cut the episode under way: a recording is dropped.
  void cut();

  /// Episodes replayed, and recorded (for the tests).
  std::size_t replayed() const { return replayed_; }
  std::size_t recorded() const { return recordings_.size(); }

 private:
  struct Recording {
    std::vector<std::string> names;
    Context context;
    std::vector<double> write_seconds;  ///< per set, from the start to its end
    /// Per step begun while the writes ran: its start after the episode's, and its times.
    std::vector<std::pair<double, StepTimes>> steps;
    double length() const;
  };
  struct Episode {
    double start = 0.0;
    Recording recording;                        // being made (when not replaying)
    const Recording* replay = nullptr;          // the one replayed or, every step simulated, met
    std::vector<std::shared_ptr<double>> ends;  // per set, its duration once ended
    std::size_t next_step = 0;
  };
  const Recording* find(const std::vector<std::string>& names, const Context& context) const;

  // The latest recordings, the most recently used last: an episode's steps are a few doubles
  // each, its key an assignment.
  static constexpr std::size_t MAX_RECORDINGS = 8;
  std::deque<Recording> recordings_;
  std::optional<Episode> episode_;
  std::size_t replayed_ = 0;
};

}  // namespace failsim::sim
