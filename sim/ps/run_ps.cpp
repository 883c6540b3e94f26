// The parameter-server runner (run_ps.hpp): sets up the context and the actors, runs the engine,
// and reads the result off them.
#include "sim/ps/run_ps.hpp"

#include <fmt/core.h>
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "sim/engine/log.hpp"
#include "sim/ps/actors/worker.hpp"
#include "sim/ps/branching.hpp"
#include "sim/ps/failures/failure_injector.hpp"
#include "sim/ps/job.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/platform.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/strategy.hpp"
#include "sim/ps/run_context.hpp"

XBT_LOG_EXTERNAL_CATEGORY(failsim);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(run, failsim, "setting up and running one simulation");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

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

std::pair<std::vector<Scenario>, std::vector<std::string>> members_of(const Scenario& scenario,
                                                                      const RunOptions& options) {
  std::vector<Scenario> members{scenario};
  members.insert(members.end(), options.branches.begin(), options.branches.end());
  std::vector<std::string> labels{options.file_label};
  labels.insert(labels.end(), options.branch_labels.begin(), options.branch_labels.end());
  labels.resize(members.size(), options.file_label);
  return {std::move(members), std::move(labels)};
}

namespace {
/// Where the simulation is now (for RunOptions::on_progress; RunSetup adds the wall clock).
Progress progress_of(RunContext& context) {
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
  return p;
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

/// What the run's processes hold at its end: its status, final parameters, hosts, pending
/// gradients and shards, checked against the gradient accounting.
void read_end(RunResult& result, RunContext& context, const Job& job, bool deadlock) {
  if (deadlock) {
    result.status = RunStatus::DEADLOCK;
    result.stop_reason = "deadlock";
  } else {
    result.stop_reason = context.stop_reason;
    if (context.stop_reason == "diverged") result.status = RunStatus::DIVERGED;
  }
  result.final_snapshot = context.observed_snapshot();
  if (context.scenario.evaluation.final_full_test)
    result.final_evaluation = Observer::measure(context, 0);
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
}

/// The run's parts in dependency order: the context, then the job and the failure injector made
/// from it. The context's hooks (sim/ps/hooks/) reach the job and the injector through this
/// object, which passes each call on: the context is built whole, and no call comes before the
/// simulation runs, when every part exists. The injector tells the job of repaired hosts itself.
class Parts final : public UpdateEvents, public HostRepairs, public WorkerRestarts, public Resizes {
 public:
  Parts(const Scenario& scenario, const ResolvedJob& resolved, const RunOptions& options,
        RunSetup& setup, TrainingMath& math, Recorder& recorder, Branching& branching)
      : context{.scenario = scenario,
                .math = math,
                .recorder = recorder,
                .time = resolved.time,
                .first_shards = resolved.shards,
                .gradient_buffers = BufferPool(math.model().num_params()),
                .coordinator = Coordinator(scenario.cluster.num_workers(), scenario.cluster.shards),
                .roles = build_platform(setup.engine(), scenario.cluster, options.file_label,
                                        local_disk_level(scenario.recovery)),
                .branching = branching,
                .updates = *this,
                .repairs = *this,
                .restarts = *this,
                .resizes = *this,
                .on_evaluation =
                    [on_evaluation = &options.on_evaluation, run = &setup](const EvalRecord& e) {
                      if (*on_evaluation) (*on_evaluation)(e);
                      run->report_progress(true);
                    }},
        job(context),
        injector(context, job) {}

  void after_update(int shard, std::int64_t n) override { injector.after_update(shard, n); }
  bool wait_until_up(sg4::Host* host) override { return injector.wait_until_up(host); }
  void restart_worker(Worker& worker) override { injector.restart_worker(worker); }
  bool resizes_for(const Strategy& owner, double host_back) override {
    return job.resizes_for(owner, host_back);
  }

  RunContext context;
  Job job;
  FailureInjector injector;
};
}  // namespace

RunResult run_ps(const Scenario& scenario, const ResolvedJob& resolved, const RunOptions& options,
                 std::chrono::steady_clock::time_point wall_start) {
  auto [members, labels] = members_of(scenario, options);
  Branching branching(std::move(members), std::move(labels));
  RunSetup setup(options.simgrid_args, wall_start);
  setup.watch(options.on_progress);

  TrainingMath math(scenario, options.threads);
  RunResult result;
  result.scenario = scenario;
  Parts parts(scenario, resolved, options, setup, math, result.recorder, branching);
  RunContext& context = parts.context;
  if (scenario.output.intervals) result.recorder.keep_intervals();
  result.num_params = math.model().num_params();
  result.param_bytes = context.time.param_bytes;
  result.gradient_flops = context.time.gradient_flops;
  result.recorder.event(0.0, EventType::START, "",
                        {{"workers", context.roles.workers.size()}, {"params", result.num_params}});

  parts.job.start();
  for (int i = 0; i < scenario.cluster.num_workers(); ++i) {
    context.workers.push_back(std::make_unique<Worker>(context, i));
    context.workers.back()->launch();
  }
  parts.injector.launch();
  Observer observer(context);
  sg4::Actor::create("observer", context.roles.coordinator, [&observer] { observer(); });

  RunSetup::stop_if_interrupted();  // a signal while the data loaded
  setup.run([&context] { return progress_of(context); });

  result.end_time = sg4::Engine::get_clock();
  parts.injector.finish(result.end_time);
  for (const auto& w : context.workers) w->finish(result.end_time);
  read_end(result, context, parts.job, setup.deadlock());
  // The members still together had the same failures to the end: the same results.
  result.member = branching.settle();
  result.scenario = branching.member(result.member);
  parts.injector.record_not_injected(result.scenario.failures.events, result.end_time);
  result.children = branching.children();
  result.math_seconds = math.math_seconds();
  result.setup_seconds = setup.setup_seconds();
  result.wall_seconds = setup.wall_seconds();
  return result;
}

}  // namespace failsim::sim
