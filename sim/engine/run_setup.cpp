// The run set-up both protocols share (run_setup.hpp).
#include "sim/engine/run_setup.hpp"

#include <fmt/core.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <exception>
#include <utility>

#include "input/answer_guard.hpp"
#include "input/interrupt.hpp"
#include "sim/engine/simgrid_probe.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

RunSetup::RunSetup(const std::vector<std::string>& simgrid_args, Clock::time_point wall_start)
    : wall_start_(wall_start), sim_start_(Clock::now()) {
  // SimGrid consumes its own --cfg= and --log= arguments from an argv (failsim's defaults first).
  std::vector<std::string> args{"failsim"};
  for (const std::string& a : simgrid_arguments(simgrid_args)) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  xbt_log_control_set("root.thresh:critical");  // quiet unless --log= asks otherwise
  engine_ = std::make_unique<sg4::Engine>(&argc, argv.data());
}

RunSetup::~RunSetup() {
  // A caught signal never goes away: unwinding with one caught is the way to exit_interrupted.
  if (std::uncaught_exceptions() > 0 && input::caught_interrupt() != 0)
    static_cast<void>(engine_.release());
}

void RunSetup::watch(std::function<void(const Progress&)> on_progress) {
  on_progress_ = std::move(on_progress);
  sg4::Engine::on_deadlock_cb([this] { deadlock_ = true; });
  input::catch_interrupts();
  sg4::Engine::on_time_advance_cb([this](double /*elapsed*/) {
    last_time_.store(sg4::Engine::get_clock(), std::memory_order_relaxed);
    stop_if_interrupted();
    report_progress(false);
  });
}

void RunSetup::guard_answers(std::function<std::string(const std::string& interrupted)> say) {
  say_interrupted_ = std::move(say);
}

std::unique_ptr<input::AnswerGuard> RunSetup::guard(std::function<std::string()> where) const {
  if (!say_interrupted_) return nullptr;
  return std::make_unique<input::AnswerGuard>(
      [say = say_interrupted_, where = std::move(where)](int signal) {
        return say(fmt::format("interrupted by {} {}", input::signal_name(signal), where()));
      });
}

void RunSetup::stop_if_interrupted() {
  if (const int signal = input::caught_interrupt()) {
    throw input::Interrupted(signal,
                             fmt::format("at simulated time {:.2f} s", sg4::Engine::get_clock()));
  }
}

void RunSetup::report_progress(bool now) {
  if (!on_progress_ || !sample_) return;
  if (!now && ++advances_ % 64 != 0) return;
  const double wall = seconds_since(sim_start_);
  if (!now && wall - last_progress_ < PROGRESS_INTERVAL_SECONDS) return;
  last_progress_ = wall;
  Progress p = sample_();
  p.wall_seconds = wall;
  on_progress_(p);
}

void RunSetup::run(std::function<Progress()> sample) {
  setup_seconds_ = seconds_since(wall_start_);
  sample_ = std::move(sample);
  sim_start_ = Clock::now();
  {
    const auto guard = this->guard([this] {
      return fmt::format(
          "at simulated time {:.2f} s or later, inside a simulated instant SimGrid had not "
          "finished (docs/cli.md, \"Interruptions\")",
          last_time_.load(std::memory_order_relaxed));
    });
    engine_->run();
  }
  stop_if_interrupted();
}

}  // namespace failsim::sim
