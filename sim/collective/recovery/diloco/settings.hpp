// Design "diloco"'s settings (recovery.diloco, docs/cluster.md "DiLoCo"): its struct;
// settings.cpp reads and writes them (engine-free, in failsim_scenario).
#pragma once

#include <cstdint>

namespace failsim::sim {

/// DiLoCo (Douillard et al. 2023, docs/cluster.md "DiLoCo"): the data-parallel replicas
/// (groups) each take `inner_steps` steps of the scenario's optimizer on their own parameters,
/// then an outer step: Delta = mean over the groups of (theta_outer - theta_group), v = mu v +
/// Delta, theta_outer -= lr_outer (Delta + mu v) with Nesterov momentum, lr_outer v without.
struct DilocoConfig {
  std::int64_t inner_steps = 4;      ///< H, >= 1
  double outer_learning_rate = 0.7;  ///< lr_outer, > 0
  double outer_momentum = 0.9;       ///< mu, in [0, 1)
  bool nesterov = true;
  /// Bytes per parameter of the outer gradient on the wire (4: fp32; 2: bf16; 0.5: 4-bit as
  /// Streaming DiLoCo): the time of the outer all-reduce only, the math stays fp32.
  double outer_gradient_bytes = 4.0;

  bool operator==(const DilocoConfig&) const = default;
};

}  // namespace failsim::sim
