// Runs simulations for tests, each in a forked child process: SimGrid allows one engine per
// process and does not reset its clock between engines, so a test that runs several
// simulations (e.g. to compare them) forks one child per run. The parent never creates an
// engine. The child writes the result directory and the final parameters into a temporary
// directory that the parent reads and removes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scratch.hpp"
#include "temp_dir.hpp"  // TempDir, for the tests that use the harness

namespace failsim::testing {

struct IsolatedRun {
  nlohmann::json result;    ///< result.json
  std::string result_text;  ///< result.json as written
  std::string timeseries;   ///< timeseries.csv as written
  std::string events;       ///< events.csv as written
  std::vector<float> final_params;
  /// Sets of flows the run simulated (flows.hpp, flow_sets_started).
  std::size_t flow_sets = 0;
};

/// Parses `scenario_text` (a JSON scenario) and runs it in a child process with the given
/// SimGrid arguments. Throws std::runtime_error with the child's message if the run fails.
/// `simulate_every_step`: RunOptions::simulate_every_step (collective scenarios); `threads`:
/// RunOptions::threads (the math's).
IsolatedRun run_isolated(const std::string& scenario_text,
                         const std::vector<std::string>& simgrid_args = {},
                         bool simulate_every_step = false, int threads = 1);

std::string read_file(const std::string& path);

/// The events of `run` of type `type` whose subject starts with `subject_prefix`, in order.
std::vector<nlohmann::json> events_of(const IsolatedRun& run, const std::string& type,
                                      const std::string& subject_prefix = "");

/// The small scenario the simulation tests work out by hand, named `name`: softmax regression
/// on 8 synthetic inputs and 4 classes (36 parameters), one async worker whose gradient takes
/// 10 ms (batch 10 at 1e6 flops per sample on 1 Gflop/s), transfers that take next to no time
/// (8 bytes on 100 Gbps without latency), detection after 100 ms, restarts 200 ms later,
/// requests timing out after 50 ms, an evaluation every second, 3 s of training.
nlohmann::json small_scenario(const std::string& name);

/// The test accuracy of `run`'s first evaluation after time `after` (simulated seconds) at
/// parameter version `version`, read from its timeseries.csv; nullopt if there is none.
std::optional<double> accuracy_at(const IsolatedRun& run, double after, long version);

/// The parameters after `updates` plain SGD steps (the scenario's learning rate, no momentum) on
/// worker 0's batch stream: what a one-worker run without failures computes, worked out without
/// the simulation. Creates no engine.
models::FloatBuffer sgd_by_hand(const std::string& scenario_text, int updates);

/// The test accuracy of `params` on the scenario's test set.
double accuracy_of(const std::string& scenario_text, const models::FloatBuffer& params);

}  // namespace failsim::testing
