// What the actors of one run share: the scenario, the math, the recorder, the time model, the
// stop signal. One object per simulation, owned by run().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/buffer_pool.hpp"
#include "sim/recorder.hpp"
#include "sim/scenario.hpp"
#include "sim/time_model.hpp"
#include "sim/training_math.hpp"

namespace simgrid::s4u {
class Mailbox;
}

namespace failsim::sim {

class ParameterServer;

struct RunContext {
  const Scenario& scenario;
  TrainingMath& math;
  Recorder& recorder;
  TimeModel time;
  BufferPool gradient_buffers;
  simgrid::s4u::Mailbox* server_mailbox = nullptr;
  ParameterServer* server = nullptr;  ///< the live server's state, read by the observer
  std::string stop_reason{};          ///< set once by request_stop()
  std::function<void(const EvalRecord&)> on_evaluation;  ///< e.g. the CLI's progress line

  /// Ends the simulation now: records why, then kills every other actor (the caller returns).
  void request_stop(const std::string& reason);
  bool stopping() const { return !stop_reason.empty(); }
};

}  // namespace failsim::sim
