// The collective runner (run_collective.hpp): the engine with the cluster's network model, the
// platform, the step network, the math and the job's driver actor; the result read off them.
#include "sim/collective/run_collective.hpp"

#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "input/answer_guard.hpp"
#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/network/cluster_platform.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/collective/recovery/recovery.hpp"
#include "sim/collective/summary.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
/// The final parameters, the full test set's evaluation if asked for, and the math's seconds.
void read_math(RunResult& result, const Scenario& scenario, const ReplicaMath& math,
               TrainingMath& training) {
  result.final_snapshot = math.parameters();
  if (scenario.evaluation.final_full_test) {
    const models::EvalResult r = training.evaluate(math.parameters(), 0);
    result.final_evaluation = EvalRecord{.time = result.end_time,
                                         .version = math.version(),
                                         .test_accuracy = r.accuracy,
                                         .test_loss = r.loss,
                                         .train_loss = std::nullopt,
                                         .test_samples = r.samples,
                                         .tokens = std::nullopt};  // not a row of timeseries.csv
  }
  result.math_seconds = training.math_seconds();
}

/// Records the scheduled failures the run did not reach as such.
void record_not_injected(RunResult& result, const Scenario& scenario, const CollectiveJob& job) {
  for (std::size_t i = 0; i < scenario.collective.failures.events.size(); ++i) {
    if (job.events_injected()[i]) continue;
    const ClusterFailureEvent& e = scenario.collective.failures.events[i];
    result.recorder.event(result.end_time, EventType::FAILURE_NOT_INJECTED, "",
                          {{"event", i}, {"target", to_string(e.target)}, {"at", e.at}});
  }
}

/// The bad components of each heterogeneous failure process, at the run's end: those bad from the
/// start and those that turned bad before the end (docs/cluster.md, "Heterogeneous nodes").
void record_bad_nodes(RunResult& result, const Scenario& scenario, const CollectiveJob& job) {
  const std::vector<ClusterStochasticFailures>& entries = scenario.collective.failures.stochastic;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ComponentRates* rates = job.nodes().schedule().component_rates(i);
    if (rates == nullptr || entries[i].heterogeneity->spread != RateSpread::NONE) continue;
    std::vector<std::pair<double, int>> turned;
    for (std::size_t c = 0; c < rates->turns_bad_at.size(); ++c) {
      if (rates->turns_bad_at[c] < result.end_time)
        turned.emplace_back(rates->turns_bad_at[c], static_cast<int>(c));
    }
    std::sort(turned.begin(), turned.end());
    nlohmann::json at = nlohmann::json::array(), who = nlohmann::json::array();
    for (const auto& [t, c] : turned) {
      at.push_back(t);
      who.push_back(c);
    }
    result.recorder.event(result.end_time, EventType::BAD_NODES, to_string(entries[i].target),
                          {{"entry", i},
                           {"factor", rates->bad_factor},
                           {"bad", rates->bad},
                           {"turned_bad", who},
                           {"turned_bad_at", at}});
  }
}
}  // namespace

RunResult run_collective(const Scenario& scenario, const ResolvedJob& resolved,
                         const RunOptions& options) {
  const CollectivePlan& plan = *resolved.collective;
  // The cluster's network model is set before the user's settings, which may change it: they
  // are applied after the engine exists, not through its argv.
  RunSetup setup({}, std::chrono::steady_clock::now());
  use_cluster_network_model(setup.engine());
  // A flow set touches at most every accelerator and the file system: beyond what fits in the
  // memory mappings with a guard page per endpoint actor's stack, the stacks come from the heap.
  const ClusterPlatformConfig& cluster = scenario.collective.platform;
  prepare_endpoint_stacks(setup.engine(),
                          static_cast<std::size_t>(cluster.platform_nodes()) *
                                  static_cast<std::size_t>(cluster.node.accelerators) +
                              1);
  for (const std::string& a : options.simgrid_args) {
    if (a.rfind("--cfg=", 0) == 0) setup.engine().set_config(a.substr(6));
    if (a.rfind("--log=", 0) == 0) xbt_log_control_set(a.substr(6).c_str());
  }
  setup.watch(options.on_progress);
  setup.guard_answers(options.say_interrupted);

  // The platform's construction looks for signals itself, but its last step, SimGrid's seal()
  // of the root zone, is one call of about half a second at 655,360 hosts.
  auto guard = setup.guard([] { return std::string("while building the platform"); });
  const ClusterPlatform platform =
      build_cluster_platform(setup.engine(), scenario.collective.platform);
  guard.reset();
  StepNetwork network(plan, platform, scenario.collective.layout.dp_algorithm);
  RunResult result;
  result.scenario = scenario;
  std::unique_ptr<TrainingMath> training;
  std::unique_ptr<ReplicaMath> math;
  if (scenario.collective.workload.real_math) {
    training = std::make_unique<TrainingMath>(scenario, options.threads);
    math = std::make_unique<ReplicaMath>(*training, scenario.optimizer, plan.dp);
    result.num_params = training->model().num_params();
  }
  result.recorder.event(0.0, EventType::START, "",
                        {{"ranks", plan.ranks()}, {"nodes", scenario.collective.platform.nodes}});
  CollectiveJob job(scenario, plan, network, math.get(), training.get(), result.recorder,
                    make_collective_recovery(scenario.collective.recovery.strategy),
                    {.simulate_every_step = options.simulate_every_step,
                     .on_evaluation =
                         [&](const EvalRecord& e) {
                           if (options.on_evaluation) options.on_evaluation(e);
                           setup.report_progress(true);
                         },
                     .max_work_seconds = resolved.collective_work.max_wall_seconds,
                     .max_event_rows = resolved.collective_work.max_event_rows});
  sg4::Actor::create("job", platform.coordinator, [&job] { job(); });
  setup.run([&job, &result] {
    Progress p;
    p.time = sg4::Engine::get_clock();
    p.updates = job.counts().steps_completed;
    p.version = job.version();
    if (!result.recorder.evaluations().empty()) p.evaluation = result.recorder.evaluations().back();
    p.stalled_since = result.recorder.stalled_since();
    return p;
  });

  result.end_time = sg4::Engine::get_clock();
  result.stop_reason = setup.deadlock() ? "deadlock" : job.stop_reason();
  result.status = setup.deadlock()                  ? RunStatus::DEADLOCK
                  : job.stop_reason() == "diverged" ? RunStatus::DIVERGED
                                                    : RunStatus::COMPLETED;
  if (math) read_math(result, scenario, *math, *training);
  record_not_injected(result, scenario, job);
  record_bad_nodes(result, scenario, job);
  result.collective = collective_summary(scenario, plan, job, network, result.end_time);
  result.setup_seconds = setup.setup_seconds();
  result.wall_seconds = setup.wall_seconds();
  return result;
}

}  // namespace failsim::sim
