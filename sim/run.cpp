#include "sim/run.hpp"

#include <fmt/core.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <span>
#include <stdexcept>
#include <utility>

#include "input/interrupt.hpp"
#include "sim/collective/run_collective.hpp"
#include "sim/engine/log.hpp"
#include "sim/engine/simgrid_probe.hpp"
#include "sim/ps/actors/worker.hpp"
#include "sim/ps/branching.hpp"
#include "sim/ps/failures/failure_injector.hpp"
#include "sim/ps/job.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/platform.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/strategy.hpp"
#include "sim/ps/run_context.hpp"
#include "sim/ps/sharding.hpp"
#include "sim/scenario/resolve.hpp"

XBT_LOG_NEW_CATEGORY(failsim, "failsim: simulation of parallel training under failures");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(run, failsim, "setting up and running one simulation");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::COMPLETED:
      return "completed";
    case RunStatus::DIVERGED:
      return "diverged";
    case RunStatus::DEADLOCK:
      return "deadlock";
  }
  return "?";
}

void RunContext::request_stop(const std::string& reason) {
  if (stopping()) return;
  stop_reason = reason;
  recorder.event(sg4::Engine::get_clock(), EventType::STOP, "", {{"reason", reason}});
  FAILSIM_INFO("stopping ({}) after {} updates", reason, recorder.updates());
  sg4::Actor::kill_all();
}

SnapshotPtr RunContext::observed_snapshot() {
  if (strategies.size() == 1) return strategies.front()->observed_snapshot();
  std::vector<SnapshotPtr> parts;
  for (Strategy* s : strategies) parts.push_back(s->observed_snapshot());
  if (observed_cache && parts == observed_cache_parts) return observed_cache;
  auto whole = std::make_shared<Snapshot>();
  whole->params.resize(math.model().num_params());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    whole->version += parts[k]->version;
    whole->gradients += parts[k]->gradients;
    std::copy(parts[k]->params.begin(), parts[k]->params.end(),
              whole->params.begin() + static_cast<std::ptrdiff_t>(shards[k].range.offset));
  }
  observed_cache_parts = std::move(parts);
  observed_cache = whole;
  return observed_cache;
}

namespace {
/// Where the simulation is now (for RunOptions::on_progress).
Progress progress_of(RunContext& context, double wall_seconds) {
  Progress p;
  p.time = sg4::Engine::get_clock();
  p.updates = context.recorder.updates();
  for (Strategy* s : context.strategies) {
    if (const SnapshotPtr snapshot = s->observed_snapshot())
      p.version = std::max(p.version, snapshot->version);
  }
  if (!context.recorder.evaluations().empty()) p.evaluation = context.recorder.evaluations().back();
  p.stalled_since = context.recorder.stalled_since();
  for (const sg4::Host* h : context.roles.servers) p.server_hosts_down += !h->is_on();
  for (const sg4::Host* h : context.roles.workers) p.worker_hosts_down += !h->is_on();
  p.storage_down = context.roles.storage != nullptr && !context.roles.storage->is_on();
  p.wall_seconds = wall_seconds;
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The multi-level checkpoint's local-disk level, if the scenario has one (its hosts get disks).
const CheckpointLevel* local_disk_level(const RecoveryConfig& recovery) {
  const CheckpointConfig* checkpoint = recovery.settings.find<CheckpointConfig>();
  if (checkpoint == nullptr) return nullptr;
  for (const CheckpointLevel& l : checkpoint->levels) {
    if (l.kind == CheckpointLevelKind::LOCAL_DISK) return &l;
  }
  return nullptr;
}

// Every computed gradient ends applied, dropped, lost or pending: a violation is a bug.
void check_accounting(const RunResult& r) {
  const Recorder& rec = r.recorder;
  const std::int64_t accounted = rec.gradients_applied() + rec.gradients_dropped() +
                                 rec.gradients_lost() + r.gradients_pending;
  if (accounted != rec.gradients_computed()) {
    throw std::logic_error(fmt::format(
        "gradient accounting broken: computed {} != applied {} + dropped {} + lost {} + pending {}",
        rec.gradients_computed(), rec.gradients_applied(), rec.gradients_dropped(),
        rec.gradients_lost(), r.gradients_pending));
  }
}
}  // namespace

namespace {
/// The scenario and its branches, and their file labels.
std::pair<std::vector<Scenario>, std::vector<std::string>> members_of(const Scenario& scenario,
                                                                      const RunOptions& options) {
  std::vector<Scenario> members{scenario};
  members.insert(members.end(), options.branches.begin(), options.branches.end());
  std::vector<std::string> labels{options.file_label};
  labels.insert(labels.end(), options.branch_labels.begin(), options.branch_labels.end());
  labels.resize(members.size(), options.file_label);
  return {std::move(members), std::move(labels)};
}
}  // namespace

CheckedRun check_run(const Scenario& scenario, const RunOptions& options) {
  // Branches share one parameter-server simulation up to a failure that tells them apart: a
  // collective scenario runs alone, whether it is the scenario or one of its branches.
  for (std::size_t m = 0; m <= options.branches.size() && !options.branches.empty(); ++m) {
    const Scenario& member = m == 0 ? scenario : options.branches[m - 1];
    if (member.protocol != Protocol::COLLECTIVE) continue;
    const std::string label = m == 0                                 ? options.file_label
                              : m - 1 < options.branch_labels.size() ? options.branch_labels[m - 1]
                                                                     : "--branch";
    throw input::InputError(label, "/protocol",
                            "\"parameter-server\" with --branch (branches share one "
                            "parameter-server simulation; a collective scenario runs alone)",
                            "\"collective\"");
  }
  const auto [members, labels] = members_of(scenario, options);
  // Every check that needs the data's and the model's sizes, as `failsim validate` makes them.
  CheckedRun checked;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const ResolvedJob r = resolve(members[m], labels[m]);
    if (m == 0) checked.job = r;
  }
  // Its checks: scenarios not run together (a collective scenario has no branches: above).
  if (scenario.protocol != Protocol::COLLECTIVE) static_cast<void>(Branching(members, labels));
  // SimGrid aborts on settings or a platform file it refuses: find out in a child process first.
  checked.stacks =
      probe_simgrid_setup(options.simgrid_args, scenario, checked.job, options.file_label);
  return checked;
}

RunResult run(const Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ResolvedJob resolved = check_run(scenario, options).job;
  if (scenario.protocol == Protocol::COLLECTIVE) return run_collective(scenario, resolved, options);
  auto [members, labels] = members_of(scenario, options);
  Branching branching(std::move(members), std::move(labels));
  // SimGrid consumes its own --cfg= and --log= arguments from an argv (failsim's defaults first).
  std::vector<std::string> args{"failsim"};
  for (const std::string& a : simgrid_arguments(options.simgrid_args)) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  xbt_log_control_set("root.thresh:critical");  // quiet unless --log= asks otherwise
  sg4::Engine engine(&argc, argv.data());

  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  // Ctrl-C or SIGTERM stops the run at its next simulated event (docs/cli.md, "Interruptions"):
  // SimGrid's engine has just installed its own SIGINT handler, which exits with status 1.
  input::catch_interrupts();
  const auto stop_if_interrupted = [] {
    if (const int signal = input::caught_interrupt()) {
      throw input::Interrupted(signal,
                               fmt::format("at simulated time {:.2f} s", sg4::Engine::get_clock()));
    }
  };
  // The progress callback, if any, at most every PROGRESS_INTERVAL_SECONDS of wall clock (the
  // clock is read every 64th advance only: a run has millions of them) and after evaluations.
  RunContext* progress_context = nullptr;  // set once the context exists
  auto sim_start = std::chrono::steady_clock::now();
  double last_progress = -PROGRESS_INTERVAL_SECONDS;
  std::uint64_t advances = 0;
  const auto report_progress = [&](bool now) {
    if (!options.on_progress || progress_context == nullptr) return;
    if (!now && ++advances % 64 != 0) return;
    const double wall = seconds_since(sim_start);
    if (!now && wall - last_progress < PROGRESS_INTERVAL_SECONDS) return;
    last_progress = wall;
    options.on_progress(progress_of(*progress_context, wall));
  };
  sg4::Engine::on_time_advance_cb([&](double /*elapsed*/) {
    stop_if_interrupted();
    report_progress(false);
  });

  TrainingMath math(scenario, options.threads);
  RunResult result;
  result.scenario = scenario;
  RunContext context{
      .scenario = scenario,
      .math = math,
      .recorder = result.recorder,
      .time = resolved.time,
      .first_shards = resolved.shards,
      .gradient_buffers = BufferPool(math.model().num_params()),
      .coordinator = Coordinator(scenario.cluster.num_workers(), scenario.cluster.shards),
      .roles = build_platform(engine, scenario.cluster, options.file_label,
                              local_disk_level(scenario.recovery)),
      .on_evaluation = [&](const EvalRecord& e) {
        if (options.on_evaluation) options.on_evaluation(e);
        report_progress(true);
      }};
  if (scenario.output.intervals) result.recorder.keep_intervals();
  result.num_params = math.model().num_params();
  result.param_bytes = context.time.param_bytes;
  result.gradient_flops = context.time.gradient_flops;
  result.recorder.event(0.0, EventType::START, "",
                        {{"workers", context.roles.workers.size()}, {"params", result.num_params}});

  context.branching = &branching;
  Job job(context);
  context.job = &job;
  FailureInjector injector(context);
  context.injector = &injector;
  job.start();
  for (int i = 0; i < scenario.cluster.num_workers(); ++i) {
    context.workers.push_back(std::make_unique<Worker>(context, i));
    context.workers.back()->launch();
  }
  injector.launch();
  Observer observer(context);
  sg4::Actor::create("observer", context.roles.coordinator, [&observer] { observer(); });

  result.setup_seconds = seconds_since(wall_start);
  stop_if_interrupted();  // a signal while the data loaded
  progress_context = &context;
  sim_start = std::chrono::steady_clock::now();
  engine.run();
  stop_if_interrupted();

  result.end_time = sg4::Engine::get_clock();
  injector.finish(result.end_time);
  for (const auto& w : context.workers) w->finish(result.end_time);
  if (deadlock) {
    result.status = RunStatus::DEADLOCK;
    result.stop_reason = "deadlock";
  } else {
    result.stop_reason = context.stop_reason;
    if (context.stop_reason == "diverged") result.status = RunStatus::DIVERGED;
  }
  result.final_snapshot = context.observed_snapshot();
  if (scenario.evaluation.final_full_test) result.final_evaluation = Observer::measure(context, 0);
  for (auto* h : context.roles.workers) result.worker_hosts.push_back(h->get_name());
  for (auto* h : context.roles.servers) result.server_hosts.push_back(h->get_name());
  for (const auto& strategy : job.strategies()) {
    result.gradients_pending += strategy->pending_at_end();
    result.peak_pending += strategy->peak_pending();
    result.peak_pending_bytes +=
        static_cast<double>(strategy->peak_pending()) * strategy->shard().bytes;
  }
  for (const Shard& shard : context.shards) result.shard_ranges.push_back(shard.range);
  for (const auto& w : context.workers) result.gradients_pending += w->holding();
  check_accounting(result);
  // The members still together had the same failures to the end: the same results.
  result.member = branching.settle();
  result.scenario = branching.member(result.member);
  injector.record_not_injected(result.scenario.failures.events, result.end_time);
  result.children = branching.children();
  result.math_seconds = math.math_seconds();
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace failsim::sim
