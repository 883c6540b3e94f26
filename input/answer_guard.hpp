// A signal answered within a second even where the code cannot look for it (docs/cli.md,
// "Interruptions"). The simulation looks for a caught signal at each advance of simulated time,
// but SimGrid 3.32 may spend minutes at one instant: ending the flows of a step of a hundred
// thousand ranks walks a list of every flow in flight per flow, with no return to failsim's code
// (docs/performance.md, "Flows without SimGrid's list walk"). While an AnswerGuard lives, a
// thread of its own watches the flag: a signal still unanswered ANSWER_GUARD_SECONDS after it
// was caught ends the process there, with the message the command gave, as exit_interrupted
// does. The command must have written nothing yet (a run's results are written after its
// simulation, outside the guard). Engine-free.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace failsim::input {

/// Seconds a caught signal may wait for the code's own answer before the guard ends the process:
/// below the second a signal must be answered in, with room for the guard's own look (every
/// 50 ms) and the exit (the kernel takes 0.1 to 0.2 s to free a process of several GiB; at 0.6
/// the answers reached 0.85 s with two such runs side by side on two cores).
constexpr double ANSWER_GUARD_SECONDS = 0.5;

class AnswerGuard {
 public:
  /// `message(signal)` is printed to stderr, as its one line, when the guard ends the process.
  explicit AnswerGuard(std::function<std::string(int signal)> message);
  /// Stops the watch: the code answers from here on (or the work is done).
  ~AnswerGuard();
  AnswerGuard(const AnswerGuard&) = delete;
  AnswerGuard& operator=(const AnswerGuard&) = delete;

 private:
  void watch();

  std::function<std::string(int)> message_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace failsim::input
