// A 7B-like collective scenario built as a struct, for the engine-free tests of the plan
// (tests/test_collective_plan.cpp) and those that need a plan of a few ranks
// (tests/test_collectives.cpp).
#pragma once

#include "sim/scenario/scenario.hpp"

namespace failsim::testing {

/// A 7B-like transformer (Llama 2 7B's shape: N = 7e9, L = 32, h = 4096, s = 4096, 32 heads by
/// the default head dimension of 128) with a global batch of 4M = 2^22 = 4,194,304 tokens (1024
/// sequences), on 8 nodes x 8 accelerators of 1e15 flop/s at half of it achieved and 80 GB
/// each, in dp 8 x tp 8 x pp 1 with 128 micro-batches (b = 1024 / (8 x 128) = 1 sequence).
/// Time only, every activation kept (no recomputation): the plan tests' numbers are Korthikanti's
/// first formula; their recomputation test changes it.
inline failsim::sim::Scenario seven_b() {
  failsim::sim::Scenario s;
  s.protocol = failsim::sim::Protocol::COLLECTIVE;
  auto& c = s.collective;
  c.platform.nodes = 8;
  c.platform.node.accelerators = 8;
  c.platform.node.accelerator_speed = 1e15;
  c.platform.node.device_memory = 80e9;
  c.layout.dp = 8;
  c.layout.tp = 8;
  c.layout.pp = 1;
  c.layout.micro_batches = 128;
  failsim::sim::TransformerConfig x;
  x.parameters = 7e9;
  x.layers = 32;
  x.hidden = 4096;
  x.sequence = 4096;
  x.global_batch_tokens = 4194304.0;
  c.workload.transformer = x;
  c.workload.achieved_fraction = 0.5;
  c.workload.real_math = false;
  c.workload.recompute = failsim::sim::Recompute::NONE;
  return s;
}

}  // namespace failsim::testing
