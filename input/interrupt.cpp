#include "input/interrupt.hpp"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "input/printable.hpp"

namespace failsim::input {

namespace {
// Written by the handler, read by the code and by AnswerGuard's thread: a lock-free atomic is
// both async-signal-safe and free of data races.
std::atomic<int> caught{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_interrupt(int signal) {
  int none = 0;
  caught.compare_exchange_strong(none, signal);
}

bool was_ignored(int signal) {
  struct sigaction current {};
  return sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}
}  // namespace

void catch_interrupts() {
  // A signal ignored when the process started stays ignored (a shell's background job ignores
  // SIGINT): only the first call can see that, before anyone installed a handler.
  static const bool ignored_at_start[2] = {was_ignored(SIGINT), was_ignored(SIGTERM)};
  const int signals[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; ++i) {
    struct sigaction action {};
    action.sa_handler = ignored_at_start[i] ? SIG_IGN : on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the caller looks
    sigaction(signals[i], &action, nullptr);
  }
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

void exit_interrupted(int signal) {
  std::fflush(nullptr);
  std::_Exit(128 + signal);
}

void throw_if_interrupted(std::string_view where) {
  if (const int signal = caught_interrupt()) throw Interrupted(signal, std::string(where));
}

void throw_interrupted(long long i, long long n, std::string_view doing, std::string_view unit) {
  throw Interrupted(caught_interrupt(),
                    fmt::format("while {}, at {} {} of {}", doing, unit, grouped(i), grouped(n)));
}

}  // namespace failsim::input
