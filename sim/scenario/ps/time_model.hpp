// How much simulated work each step costs (docs/time-model.md): flops on a host's CPU and bytes
// on the links. Derived from the real model unless the scenario's `timing` overrides it, so a
// scenario can pose as a bigger model on faster hardware while the math stays real.
#pragma once

#include "models/model.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

struct TimeModel {
  double gradient_flops = 0.0;  ///< one batch: flops_per_sample x batch_size
  double param_bytes = 0.0;     ///< a parameter snapshot or a gradient on the wire
  double update_flops = 0.0;    ///< the server applying one gradient: 2 flops per parameter

  static TimeModel from(const Scenario& scenario, const models::Model& model) {
    TimeModel t;
    const double per_sample =
        scenario.timing.flops_per_sample.value_or(model.train_flops_per_sample());
    t.gradient_flops = per_sample * scenario.optimizer.batch_size;
    t.param_bytes = scenario.timing.param_bytes.value_or(static_cast<double>(model.param_bytes()));
    t.update_flops = 2.0 * t.param_bytes / sizeof(float);
    return t;
  }
};

}  // namespace failsim::sim
