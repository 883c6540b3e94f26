// Ctrl-C and `kill` as a user's request to stop (docs/cli.md, "Interruptions"): SIGINT and
// SIGTERM set a flag instead of ending the process, so a run or a sweep stops at a point of its
// own choosing, says where it was and what it wrote, and exits with 128 + the signal number.
// Engine-free: the simulation and the sweep runner each poll the flag at their own steps.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace failsim::input {

/// From now on SIGINT and SIGTERM are caught (not restarting interrupted system calls, so a
/// blocking waitpid() returns). Installs the handler again when called again: SimGrid's engine
/// installs its own SIGINT handler, which must be replaced after it.
void catch_interrupts();

/// The first SIGINT or SIGTERM caught since catch_interrupts(), 0 if none.
int caught_interrupt();

/// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal);

/// Unwinds a command that a caught signal interrupted. what() says where it was.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& where);
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Throws Interrupted(caught_interrupt(), "while <doing>, at <unit> <i> of <n>"), the counts
/// written with input::grouped: "while building the plan's ranks, at rank 1,048,576 of
/// 10,000,000".
[[noreturn]] void throw_interrupted(long long i, long long n, std::string_view doing,
                                    std::string_view unit);

/// Ends the process at once with status 128 + `signal`, its output flushed: for a command that
/// has said where the signal stopped it and wrote nothing. What it built is not taken apart (a
/// SimGrid platform of a million hosts or a plan of millions of ranks takes seconds to free,
/// longer than the second a signal is answered in).
[[noreturn]] void exit_interrupted(int signal);

/// Throws Interrupted(caught_interrupt(), where) when a signal was caught: between two steps of
/// a set-up that do not look themselves, e.g. "after the resolve step".
void throw_if_interrupted(std::string_view where);

/// Iterations of a set-up loop between two looks for a signal when each is cheap (a push, a
/// random draw, a small vector: well under a microsecond), so that the looks are milliseconds
/// apart and cost nothing measurable.
constexpr long long POLL_EVERY = 1 << 14;

/// For a loop of set-up work whose length the input decides (a plan's ranks, a schedule's
/// components, a platform's routes), which runs before the simulation's own check of the clock:
/// throws as throw_interrupted() when a signal was caught, looking only every `every`-th
/// iteration (i = 0, every, 2 every, ...) so that a loop of cheap iterations stays cheap. Pick
/// `every` so that that many iterations take well under a second.
inline void poll_interrupt(long long i, long long n, std::string_view doing, std::string_view unit,
                           long long every = POLL_EVERY) {
  if (i % every == 0 && caught_interrupt() != 0) throw_interrupted(i, n, doing, unit);
}

}  // namespace failsim::input
