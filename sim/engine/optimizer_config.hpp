// The scenario's `optimizer` section as the models' optimisers take it: one conversion, used by
// the parameter server, the collective's replicas and DiLoCo's groups.
#pragma once

#include <cstddef>

#include "models/optimizer.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// SGD's settings (kind "sgd").
models::SgdConfig sgd_config(const OptimizerConfig& optimizer);
/// AdamW's settings (kind "adamw").
models::AdamWConfig adamw_config(const OptimizerConfig& optimizer);
/// The optimiser of version 0 of `num_params` parameters, of the section's kind.
models::Optimizer make_optimizer(const OptimizerConfig& optimizer, std::size_t num_params);

}  // namespace failsim::sim
