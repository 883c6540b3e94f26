// A node preset read on its own, outside a scenario (`failsim import megatron --node`): the node a
// collective scenario's `platform.node` string names, read by the platform reader's own code.
#pragma once

#include <string>

#include "sim/scenario/collective/config.hpp"

namespace failsim::sim {

/// The node of a preset's name (scenarios/cluster/nodes) or of a node file ending in ".json"
/// (relative to the working directory). Its refusals name `label` (the option that gave it:
/// "--node").
NodeSpec read_node_preset(const std::string& preset, const std::string& label);

}  // namespace failsim::sim
