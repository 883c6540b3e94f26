#include "input/interrupt.hpp"

#include <fmt/format.h>

#include <csignal>

namespace failsim::input {

namespace {
volatile std::sig_atomic_t caught = 0;

extern "C" void on_interrupt(int signal) {
  if (caught == 0) caught = signal;
}
}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the caller looks
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int caught_interrupt() { return caught; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

Interrupted::Interrupted(int signal, const std::string& where)
    : std::runtime_error(fmt::format("interrupted by {} {}", signal_name(signal), where)),
      signal_(signal) {}

}  // namespace failsim::input
