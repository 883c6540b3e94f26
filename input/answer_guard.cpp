#include "input/answer_guard.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>

#include "input/interrupt.hpp"

namespace failsim::input {

namespace {
/// How often the guard looks at the flag.
constexpr std::chrono::milliseconds LOOK_EVERY{50};
}  // namespace

AnswerGuard::AnswerGuard(std::function<std::string(int signal)> message)
    : message_(std::move(message)), thread_([this] { watch(); }) {}

AnswerGuard::~AnswerGuard() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void AnswerGuard::watch() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mutex_);
  Clock::time_point seen{};  // when the guard first saw the signal
  while (!wake_.wait_for(lock, LOOK_EVERY, [this] { return done_; })) {
    const int signal = caught_interrupt();
    if (signal == 0) continue;
    const Clock::time_point now = Clock::now();
    if (seen == Clock::time_point{}) seen = now - LOOK_EVERY;  // caught since the last look
    if (std::chrono::duration<double>(now - seen).count() < ANSWER_GUARD_SECONDS) continue;
    // The mutex is held: the destructor cannot return, so the code that owns the guard is still
    // inside its unanswering work, and nothing it writes after the guard has begun.
    fmt::print(stderr, "{}\n", message_(signal));
    exit_interrupted(signal);
  }
}

}  // namespace failsim::input
