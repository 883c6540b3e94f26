// The observer actor: measures test accuracy on the evaluation schedule without costing
// simulated time (it reads the server's current snapshot), and stops the run at the stop time
// or when the target accuracy is reached.
#pragma once

#include "sim/ps/run_context.hpp"

namespace failsim::sim {

class Observer {
 public:
  explicit Observer(RunContext& context) : context_(context) {}
  void operator()();

  /// Evaluates the server's current parameters now on the first `limit` test samples (0 = all).
  static EvalRecord measure(RunContext& context, int limit);

  /// A scheduled evaluation: measures on the test subset, records it, and stops the run when the
  /// target accuracy is reached or the loss is no longer finite. Returns whether it stopped.
  static bool evaluate_now(RunContext& context);

 private:
  RunContext& context_;
};

}  // namespace failsim::sim
