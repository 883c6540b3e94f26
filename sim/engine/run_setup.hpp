// What every protocol's runner sets up around its simulation, in one place: the options of a
// run, the SimGrid engine made from failsim's and the user's arguments, a quiet log threshold,
// Ctrl-C and SIGTERM turned into input::Interrupted at the next simulated event (docs/cli.md,
// "Interruptions"), the progress callback's throttle, the deadlock flag, and the set-up and wall
// clocks. The runners (sim/ps/run_ps.hpp, sim/collective/run_collective.hpp) add their platform
// and actors between the constructor and run().
#pragma once

#include <simgrid/s4u/Engine.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/output/progress.hpp"
#include "sim/output/recorder.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/wall_estimate.hpp"

namespace failsim::input {
class AnswerGuard;
}  // namespace failsim::input

namespace failsim::sim {

struct RunOptions {
  std::string file_label = "scenario";    ///< names the scenario file in error messages
  std::vector<std::string> simgrid_args;  ///< e.g. "--cfg=network/model:CM02", "--log=..."
  /// Threads computing the math (sim/engine/math_pool.hpp), >= 1; the results do not depend on it.
  int threads = 1;
  std::function<void(const EvalRecord&)> on_evaluation;  ///< called after each evaluation
  /// Collective runs: simulate the network of every step, not once per state of the network
  /// (the check that the cached step times are exact; results are identical).
  bool simulate_every_step = false;
  /// Called after each evaluation and every PROGRESS_INTERVAL_SECONDS of wall clock as simulated
  /// time advances; reads the simulation, changes nothing in it.
  std::function<void(const Progress&)> on_progress;
  /// Called once the scenario is checked, before its set-up: the run's expected wall time.
  std::function<void(const WallEstimate&)> on_estimate;
  /// Further scenarios simulated with this one, forking where their failures at a time differ
  /// (sim/ps/branching.hpp), and their file labels.
  std::vector<Scenario> branches;
  std::vector<std::string> branch_labels;
  /// How the command says an interruption that the simulation could not answer in time itself
  /// (input::AnswerGuard: SimGrid inside one long simulated instant): given "interrupted by
  /// SIGTERM at simulated time ...", the line it prints before the process ends. Collective
  /// runs only: a parameter-server run may fork mid-run (branching.hpp), which the guard's
  /// thread does not survive. Empty: no guard.
  std::function<std::string(const std::string& interrupted)> say_interrupted;
};

/// Wall seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start);

class RunSetup {
 public:
  using Clock = std::chrono::steady_clock;

  /// Creates the engine from `simgrid_args` after failsim's defaults (simgrid_arguments()),
  /// SimGrid's log threshold set to critical first (quiet unless --log= asks otherwise).
  /// `wall_start` is when the run began (setup_seconds and wall_seconds count from it).
  RunSetup(const std::vector<std::string>& simgrid_args, Clock::time_point wall_start);
  /// Takes the engine apart, but not when an exception unwinds the run after a signal was
  /// caught (input::Interrupted): the process is about to exit, and a platform of a million
  /// hosts takes a second to free.
  ~RunSetup();
  RunSetup(const RunSetup&) = delete;
  RunSetup& operator=(const RunSetup&) = delete;

  simgrid::s4u::Engine& engine() { return *engine_; }

  /// Catches Ctrl-C and SIGTERM (after the engine, which installs its own SIGINT handler that
  /// exits with status 1), and hooks the engine's time advances (an interruption stops the run
  /// there; the progress callback) and its deadlock (deadlock()).
  void watch(std::function<void(const Progress&)> on_progress);
  /// run() keeps an input::AnswerGuard while the engine runs, which prints
  /// `say(interrupted)` (RunOptions::say_interrupted) when it ends the process.
  void guard_answers(std::function<std::string(const std::string& interrupted)> say);
  /// While the result lives, a signal the code has not answered within
  /// input::ANSWER_GUARD_SECONDS ends the process with `say(interrupted by SIGTERM <where()>)`
  /// (guard_answers): for set-up work inside one SimGrid call that cannot look for a signal.
  /// Null when no guard_answers was given.
  std::unique_ptr<input::AnswerGuard> guard(std::function<std::string()> where) const;
  /// Throws input::Interrupted if a signal was caught (at the current simulated time).
  static void stop_if_interrupted();
  /// Calls the progress callback with `sample()` now (`now`, e.g. after an evaluation) or if
  /// PROGRESS_INTERVAL_SECONDS of wall clock passed (the clock is read every 64th advance only:
  /// a run has millions of them). Nothing before run() set the sampler.
  void report_progress(bool now);

  /// Records the set-up's wall clock, runs the engine with `sample` giving the progress, then
  /// stops if a signal came meanwhile.
  void run(std::function<Progress()> sample);

  bool deadlock() const { return deadlock_; }
  double setup_seconds() const { return setup_seconds_; }
  /// Wall seconds since the run began, set-up included.
  double wall_seconds() const { return seconds_since(wall_start_); }

 private:
  Clock::time_point wall_start_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::function<void(const Progress&)> on_progress_;
  std::function<Progress()> sample_;  // set by run()
  Clock::time_point sim_start_;
  double last_progress_ = -PROGRESS_INTERVAL_SECONDS;
  std::uint64_t advances_ = 0;
  bool deadlock_ = false;
  double setup_seconds_ = 0.0;
  std::function<std::string(const std::string&)> say_interrupted_;
  std::atomic<double> last_time_{0.0};  // simulated, at the last advance: read by the guard
};

}  // namespace failsim::sim
