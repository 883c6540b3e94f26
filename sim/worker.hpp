// A worker actor: pull parameters, compute a real gradient on its own batch with exactly those
// parameters (costing gradient_flops on its host), push it; repeat.
#pragma once

#include <memory>

#include "sim/messages.hpp"
#include "sim/run_context.hpp"

namespace failsim::sim {

class Worker {
 public:
  Worker(RunContext& context, int index);

  /// The actor's body: loops until the simulation stops.
  void operator()();

 private:
  void send(std::unique_ptr<ServerMessage> message, double bytes);

  RunContext& context_;
  int index_;
  BatchStream batches_;
};

}  // namespace failsim::sim
