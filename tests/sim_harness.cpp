#include "sim_harness.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "models/evaluate.hpp"
#include "models/sgd.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/output/result_writer.hpp"
#include "sim/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<nlohmann::json> events_of(const IsolatedRun& run, const std::string& type,
                                      const std::string& subject_prefix) {
  std::vector<nlohmann::json> found;
  for (const auto& e : run.result["events"]) {
    if (e["type"] == type && e["subject"].get<std::string>().rfind(subject_prefix, 0) == 0) {
      found.push_back(e);
    }
  }
  return found;
}

nlohmann::json small_scenario(const std::string& name) {
  nlohmann::json s = nlohmann::json::parse(R"({
    "seed": 7,
    "data": {"kind": "synthetic", "num_classes": 4, "dim": 8, "train_size": 2000, "test_size": 400},
    "model": {"kind": "softmax"},
    "optimizer": {"learning_rate": 0.05, "batch_size": 10},
    "cluster": {"workers": {"count": 1, "speed": "1Gf"}, "servers": {"speed": "1Gf"},
                "network": {"bandwidth": "100Gbps", "latency": 0}},
    "timing": {"flops_per_sample": 1e6, "param_bytes": 8},
    "consistency": {"mode": "async"},
    "evaluation": {"interval": "1s"},
    "failures": {"detection_timeout": "100ms", "restart_delay": "200ms", "request_timeout": "50ms"},
    "stop": {"time": "3s"}
  })");
  s["name"] = name;
  return s;
}

std::optional<double> accuracy_at(const IsolatedRun& run, double after, long version) {
  std::istringstream rows(run.timeseries);
  std::string line;
  std::getline(rows, line);  // the header
  while (std::getline(rows, line)) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, ',');) cells.push_back(c);
    if (std::stod(cells[0]) > after && std::stol(cells[1]) == version) return std::stod(cells[2]);
  }
  return std::nullopt;
}

models::FloatBuffer sgd_by_hand(const std::string& scenario_text, int updates) {
  const sim::Scenario scenario = sim::parse_scenario_text(scenario_text, "hand.json");
  sim::TrainingMath math(scenario);
  sim::Snapshot snapshot = *math.initial_snapshot();
  models::Sgd sgd({static_cast<float>(scenario.optimizer.learning_rate), 0, 0},
                  snapshot.params.size());
  auto stream = math.batch_stream(0);
  models::FloatBuffer grad(snapshot.params.size());
  for (int k = 0; k < updates; ++k) {
    math.gradient(snapshot, stream.next(), math.dropout_seed(0, k), grad);
    sgd.step(snapshot.params, grad);
  }
  return snapshot.params;
}

double accuracy_of(const std::string& scenario_text, const models::FloatBuffer& params) {
  const sim::Scenario scenario = sim::parse_scenario_text(scenario_text, "hand.json");
  sim::TrainingMath math(scenario);
  models::Evaluator evaluator(math.model());
  return evaluator.evaluate(params, math.test_set()).accuracy;
}

namespace {
void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

[[noreturn]] void child(const std::string& scenario_text,
                        const std::vector<std::string>& simgrid_args, bool simulate_every_step,
                        int threads, const std::string& dir) {
  try {
    const sim::Scenario scenario = sim::parse_scenario_text(scenario_text, "test-scenario.json");
    sim::RunOptions options;
    options.file_label = "test-scenario.json";
    options.simgrid_args = simgrid_args;
    options.simulate_every_step = simulate_every_step;
    options.threads = threads;
    const sim::RunResult result = sim::run(scenario, options);
    sim::write_result_directory(result, dir + "/result", {});
    // A time-only run (collective, workload.math "none") has no parameters.
    std::string params_bytes;
    if (result.final_snapshot) {
      const auto& params = result.final_snapshot->params;
      params_bytes.assign(reinterpret_cast<const char*>(params.data()),
                          params.size() * sizeof(float));
    }
    write_file(dir + "/params.bin", params_bytes);
    write_file(dir + "/flow_sets.txt", std::to_string(sim::flow_sets_started()));
    std::_Exit(0);
  } catch (const std::exception& e) {
    write_file(dir + "/error.txt", e.what());
  }
  std::_Exit(1);
}
}  // namespace

IsolatedRun run_isolated(const std::string& scenario_text,
                         const std::vector<std::string>& simgrid_args, bool simulate_every_step,
                         int threads) {
  TempDir dir;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) child(scenario_text, simgrid_args, simulate_every_step, threads, dir.path());
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string error_file = dir.path() + "/error.txt";
    throw std::runtime_error("simulation failed: " + (std::filesystem::exists(error_file)
                                                          ? read_file(error_file)
                                                          : "child exited abnormally"));
  }
  IsolatedRun run;
  run.result_text = read_file(dir.path() + "/result/result.json");
  run.result = nlohmann::json::parse(run.result_text);
  run.timeseries = read_file(dir.path() + "/result/timeseries.csv");
  run.events = read_file(dir.path() + "/result/events.csv");
  const std::string params = read_file(dir.path() + "/params.bin");
  run.final_params.resize(params.size() / sizeof(float));
  std::memcpy(run.final_params.data(), params.data(), params.size());
  run.flow_sets = std::stoul(read_file(dir.path() + "/flow_sets.txt"));
  return run;
}

}  // namespace failsim::testing
