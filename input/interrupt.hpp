// Ctrl-C and `kill` as a user's request to stop (docs/cli.md, "Interruptions"): SIGINT and
// SIGTERM set a flag instead of ending the process, so a run or a sweep stops at a point of its
// own choosing, says where it was and what it wrote, and exits with 128 + the signal number.
// Engine-free: the simulation and the sweep runner each poll the flag at their own steps.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace failsim::input
