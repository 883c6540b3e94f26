// The small collective scenario the simulation tests work out by hand (tests/test_collective.cpp,
// tests/test_universal.cpp) and the helpers that read its results.
//
// The platform makes every number simple: 2 nodes x 2 accelerators of 1 Gflop/s, every link
// 1 GB/s each way and without latency, a file system of 1 GB/s each way; dp 4 (tp = pp = 1),
// one micro-batch of one sequence per replica; a transformer posing as N = 1e6 parameters with
// L = h = s = 1, so a step's flops are (6 N + 12 L h s) x T = (6e6 + 12) x 4.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "sim_harness.hpp"

namespace failsim::testing::collective {

using nlohmann::json;

// One rank's micro-batch: F / (dp tp pp m) / speed = (6e6 + 12) x 4 / 4 / 1e9 s.
constexpr double T_MB = (6e6 + 12.0) * 4.0 / 4.0 / 1e9;
// The data-parallel ring all-reduce of each rank's 1e6 x 2 bytes over 4 ranks: every rank sends
// 2 (4 - 1) / 4 x 2e6 = 3e6 bytes to its successor at 1 GB/s, no two flows on one link.
constexpr double T_DP = 3e6 / 1e9;
// Without overlap a step is its compute, then the all-reduce.
constexpr double STEP = T_MB + T_DP;
// A checkpoint (ZeRO 0): rank 0 alone writes 14 x 1e6 bytes at 1 GB/s; at a restart the 4 ranks
// each read 14e6 bytes through the file system's one read link of 1 GB/s.
constexpr double WRITE = 14e6 / 1e9;
constexpr double LOAD = 4.0 * 14e6 / 1e9;

inline json build(const std::string& name, const json& patch) {
  json s = json::parse(R"({
    "protocol": "collective",
    "seed": 3,
    "data": {"kind": "synthetic", "num_classes": 4, "dim": 8, "train_size": 400, "test_size": 100},
    "model": {"kind": "softmax"},
    "optimizer": {"learning_rate": 0.1, "batch_size": 10},
    "platform": {
      "node": {"accelerators": 2, "accelerator_speed": "1Gf", "device_memory": "80GB",
               "host_memory": "1TB", "intra_bandwidth": "1GBps", "intra_latency": 0,
               "nics": 1, "nic_bandwidth": "1GBps", "nic_latency": 0},
      "nodes": 2,
      "topology": {"nodes_per_leaf": 2, "switch_latency": 0},
      "file_system": {"write_bandwidth": "1GBps", "read_bandwidth": "1GBps"},
      "domains": {"nodes_per_rack": 1, "racks_per_power": 1}
    },
    "layout": {"dp": 4, "overlap": false},
    "workload": {"transformer": {"parameters": 1e6, "layers": 1, "hidden": 1, "sequence": 1,
                                 "global_batch_tokens": 4}},
    "evaluation": {"interval": "10ms"},
    "stop": {"version": 10},
    "recovery": {"checkpoint": {"every_steps": 5},
                 "restart": {"scheduler_delay": "100ms", "process_start": "100ms",
                             "init_base": "100ms", "init_per_rank": 0}}
  })");
  s["name"] = name;
  s.merge_patch(patch);
  return s;
}

/// The optimizers the designs' tests train with, both with a state that a checkpoint or a copy
/// must carry: 0, SGD with momentum (its velocity); 1, AdamW (its two moments and its count of
/// steps), its warm-up and its cosine decay both within the fixture's 10 steps.
inline json optimizer_section(int which) {
  if (which == 0) return {{"learning_rate", 0.1}, {"momentum", 0.9}, {"batch_size", 10}};
  return {{"kind", "adamw"},
          {"learning_rate", 0.01},
          {"warmup_steps", 3},
          {"decay_steps", 8},
          {"batch_size", 10}};
}

inline const json& time_of(const IsolatedRun& run) {
  return run.result["summary"]["collective"]["time"];
}

inline double sum_of_causes(const IsolatedRun& run) {
  double total = 0.0;
  for (const auto& item : time_of(run).items()) total += item.value().get<double>();
  return total;
}

/// Checks that two runs of one scenario wrote the same results: events, time series, summary and
/// final parameters (a reuse of measured times against every step simulated, for one).
inline void check_same_results(const IsolatedRun& a, const IsolatedRun& b) {
  CHECK(a.events == b.events);
  CHECK(a.timeseries == b.timeseries);
  CHECK(a.result["summary"] == b.result["summary"]);
  CHECK(a.final_params == b.final_params);
}

inline Catch::Detail::Approx near(double v) {
  return Catch::Detail::Approx(v).epsilon(1e-9).margin(1e-12);
}

}  // namespace failsim::testing::collective
