#include "sim/collective/run_collective.hpp"

#include <fmt/core.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <memory>

#include "input/interrupt.hpp"
#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/network/cluster_platform.hpp"
#include "sim/collective/network/step_network.hpp"
#include "sim/engine/simgrid_probe.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

RunResult run_collective(const Scenario& scenario, const ResolvedJob& resolved,
                         const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const CollectivePlan& plan = *resolved.collective;
  // SimGrid consumes its own --cfg= and --log= arguments (failsim's defaults first); the
  // cluster's network model is set before the user's settings, which may change it.
  std::vector<std::string> args{"failsim"};
  for (const std::string& a : simgrid_arguments({})) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  xbt_log_control_set("root.thresh:critical");  // quiet unless --log= asks otherwise
  sg4::Engine engine(&argc, argv.data());
  use_cluster_network_model(engine);
  for (const std::string& a : options.simgrid_args) {
    if (a.rfind("--cfg=", 0) == 0) engine.set_config(a.substr(6));
    if (a.rfind("--log=", 0) == 0) xbt_log_control_set(a.substr(6).c_str());
  }
  input::catch_interrupts();
  // The progress callback, as the parameter server's run() calls it: at most every
  // PROGRESS_INTERVAL_SECONDS of wall clock (read every 64th advance) and after evaluations.
  const CollectiveJob* progress_job = nullptr;  // set once the job exists
  const Recorder* progress_recorder = nullptr;
  auto sim_start = std::chrono::steady_clock::now();
  double last_progress = -PROGRESS_INTERVAL_SECONDS;
  std::uint64_t advances = 0;
  const auto report_progress = [&](bool now) {
    if (!options.on_progress || progress_job == nullptr) return;
    if (!now && ++advances % 64 != 0) return;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sim_start).count();
    if (!now && wall - last_progress < PROGRESS_INTERVAL_SECONDS) return;
    last_progress = wall;
    Progress p;
    p.time = sg4::Engine::get_clock();
    p.updates = progress_job->counts().steps_completed;
    p.version = progress_job->version();
    if (!progress_recorder->evaluations().empty())
      p.evaluation = progress_recorder->evaluations().back();
    p.stalled_since = progress_recorder->stalled_since();
    p.wall_seconds = wall;
    options.on_progress(p);
  };
  sg4::Engine::on_time_advance_cb([&](double /*elapsed*/) {
    if (const int signal = input::caught_interrupt()) {
      throw input::Interrupted(signal,
                               fmt::format("at simulated time {:.2f} s", sg4::Engine::get_clock()));
    }
    report_progress(false);
  });
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });

  const ClusterPlatform platform = build_cluster_platform(engine, scenario.collective.platform);
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
                    {.simulate_every_step = options.simulate_every_step,
                     .on_evaluation = [&](const EvalRecord& e) {
                       if (options.on_evaluation) options.on_evaluation(e);
                       report_progress(true);
                     }});
  sg4::Actor::create("job", platform.coordinator, [&job] { job(); });
  progress_job = &job;
  progress_recorder = &result.recorder;
  result.setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  sim_start = std::chrono::steady_clock::now();
  engine.run();
  if (const int signal = input::caught_interrupt()) {
    throw input::Interrupted(signal,
                             fmt::format("at simulated time {:.2f} s", sg4::Engine::get_clock()));
  }

  result.end_time = sg4::Engine::get_clock();
  result.stop_reason = deadlock ? "deadlock" : job.stop_reason();
  result.status = deadlock                          ? RunStatus::DEADLOCK
                  : job.stop_reason() == "diverged" ? RunStatus::DIVERGED
                                                    : RunStatus::COMPLETED;
  if (math) {
    result.final_snapshot = math->parameters();
    if (scenario.evaluation.final_full_test) {
      const models::EvalResult r = training->evaluate(math->parameters(), 0);
      result.final_evaluation = EvalRecord{.time = result.end_time,
                                           .version = math->version(),
                                           .test_accuracy = r.accuracy,
                                           .test_loss = r.loss,
                                           .train_loss = std::nullopt,
                                           .test_samples = r.samples};
    }
    result.math_seconds = training->math_seconds();
  }
  // The scheduled failures the run did not reach are recorded as such.
  for (std::size_t i = 0; i < scenario.collective.failures.events.size(); ++i) {
    if (job.events_injected()[i]) continue;
    const ClusterFailureEvent& e = scenario.collective.failures.events[i];
    result.recorder.event(result.end_time, EventType::FAILURE_NOT_INJECTED, "",
                          {{"event", i}, {"target", to_string(e.target)}, {"at", e.at}});
  }

  CollectiveSummary summary;
  summary.real_math = scenario.collective.workload.real_math;
  summary.counts = job.counts();
  summary.version = job.version();
  summary.samples_kept = job.ledger().samples_kept();
  for (std::size_t c = 0; c < TIME_CAUSES; ++c)
    summary.seconds[c] = job.ledger().seconds(static_cast<TimeCause>(c));
  summary.ettr = result.end_time > 0 ? summary.seconds[0] / result.end_time : 0.0;
  summary.ranks = plan.ranks();
  summary.nodes = scenario.collective.platform.nodes;
  summary.spare_nodes = scenario.collective.platform.spares;
  summary.pool_node_hours = job.pool_node_seconds(result.end_time) / 3600.0;
  summary.step_flops = plan.step_flops;
  summary.tokens_per_step = plan.tokens_per_step;
  summary.samples_per_step = plan.samples_per_step;
  summary.compute_seconds = plan.compute_seconds;
  summary.bubble_fraction = plan.bubble_fraction;
  summary.device_memory_bytes = plan.memory.total();
  summary.checkpoint_bytes = plan.checkpoint_bytes;
  summary.flows_per_step = network.flows_per_step();
  // Every completed step is kept or rolled back, and so is every sample it took (a step's
  // batch depends on the assignment); every simulated second is in one cause: a violation is a
  // bug.
  const CollectiveCounts& n = summary.counts;
  if (n.steps_completed - n.steps_rolled_back != summary.version) {
    throw std::logic_error(
        fmt::format("step accounting broken: completed {} - rolled back {} != kept {}",
                    n.steps_completed, n.steps_rolled_back, summary.version));
  }
  if (std::abs(n.samples_completed - n.samples_rolled_back - summary.samples_kept) >
      1e-9 * std::max(1.0, n.samples_completed)) {
    throw std::logic_error(
        fmt::format("sample accounting broken: completed {} - rolled back {} != kept {}",
                    n.samples_completed, n.samples_rolled_back, summary.samples_kept));
  }
  const double total = job.ledger().total();
  if (std::abs(total - result.end_time) > 1e-6 * std::max(1.0, result.end_time)) {
    throw std::logic_error(fmt::format(
        "time ledger broken: causes sum to {} s, the run ended at {} s", total, result.end_time));
  }
  result.collective = summary;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace failsim::sim
