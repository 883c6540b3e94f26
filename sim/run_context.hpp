// What the actors of one run share: the scenario, the math, the recorder, the time model, the
// coordinator, the recovery strategy, the stop signal. One object per simulation, owned by run().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/buffer_pool.hpp"
#include "sim/coordinator.hpp"
#include "sim/platform.hpp"
#include "sim/recorder.hpp"
#include "sim/scenario.hpp"
#include "sim/time_model.hpp"
#include "sim/training_math.hpp"

namespace failsim::sim {

class Branching;
class FailureInjector;
class Strategy;
class Worker;

struct RunContext {
  const Scenario& scenario;
  TrainingMath& math;
  Recorder& recorder;
  TimeModel time;
  BufferPool gradient_buffers;
  Coordinator coordinator;
  Roles roles;
  Strategy* strategy = nullptr;
  FailureInjector* injector = nullptr;
  Branching* branching = nullptr;  ///< the scenarios this simulation stands for (branching.hpp)
  std::vector<std::unique_ptr<Worker>> workers{};
  std::string stop_reason{};                               ///< set once by request_stop()
  std::function<void(const EvalRecord&)> on_evaluation{};  ///< e.g. the CLI's progress line

  /// Ends the simulation now: records why, then kills every other actor (the caller returns).
  void request_stop(const std::string& reason);
  bool stopping() const { return !stop_reason.empty(); }
};

}  // namespace failsim::sim
