// The collective tests' platform worked out by hand (tests/test_collective.cpp,
// tests/test_diloco.cpp): 2 nodes x 2 accelerators of 1 Gflop/s, every link 1 GB/s each way and
// without latency, a file system of 1 GB/s each way; dp 4 (tp = pp = 1), one micro-batch of one
// sequence per replica; a transformer posing as N = 1e6 parameters with L = h = s = 1, so a
// step's flops are (6 N + 12 L h s) x T = (6e6 + 12) x 4. Checkpoint-restart every 5 steps, 10
// steps; each test patches what it changes.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "sim_harness.hpp"

namespace failsim::testing {

// One rank's micro-batch: F / (dp tp pp m) / speed = (6e6 + 12) x 4 / 4 / 1e9 s.
constexpr double HAND_T_MB = (6e6 + 12.0) * 4.0 / 4.0 / 1e9;

/// The scenario named `name`, with `patch` merged in (RFC 7386).
inline nlohmann::json hand_cluster(const std::string& name, const nlohmann::json& patch) {
  nlohmann::json s = nlohmann::json::parse(R"({
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

/// summary.collective.time of a run.
inline const nlohmann::json& time_of(const IsolatedRun& run) {
  return run.result["summary"]["collective"]["time"];
}

/// The causes' seconds summed (the run's end time when the ledger holds).
inline double sum_of_causes(const IsolatedRun& run) {
  double total = 0.0;
  for (const auto& item : time_of(run).items()) total += item.value().get<double>();
  return total;
}

/// Equal to 1e-9 relative (the simulated clock's rounding).
inline Catch::Detail::Approx near(double v) {
  return Catch::Detail::Approx(v).epsilon(1e-9).margin(1e-12);
}

}  // namespace failsim::testing
