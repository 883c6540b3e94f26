#include "sim/scenario/collective/work.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "input/input_error.hpp"
#include "input/printable.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/format_bytes.hpp"

namespace failsim::sim {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

/// A source of work with the field that sets it, for the message that refuses it.
struct Source {
  double seconds = 0.0;  ///< wall seconds at the measured rate
  std::string field;     ///< the JSON path to change
  std::string what;      ///< what it counts, e.g. "4.2e+06 failures and restarts"
};

/// The steps at most (at least, by version only), and the stop field that bounds them.
std::pair<double, std::string> steps_bound(const Scenario& s, const CollectivePlan& plan) {
  double steps = INF;
  std::string field = "/stop";
  const auto take = [&](double n, const char* f) {
    if (n < steps) {
      steps = n;
      field = f;
    }
  };
  if (s.stop.updates) take(static_cast<double>(*s.stop.updates), "/stop/updates");
  // By version: at least that many steps (more when failures roll some back).
  if (s.stop.version) take(static_cast<double>(*s.stop.version), "/stop/version");
  // A step is at least its compute (the plan's lower bound of its length).
  if (s.stop.time)
    take(plan.compute_seconds > 0.0 ? std::floor(*s.stop.time / plan.compute_seconds) + 1.0 : INF,
         "/stop/time");
  return {steps, field};
}

/// Every random failure process: failures.stochastic's, then failures.rates' table.
std::vector<std::pair<ClusterStochasticFailures, std::string>> failure_processes(
    const ClusterFailureConfig& f) {
  std::vector<std::pair<ClusterStochasticFailures, std::string>> out;
  for (std::size_t i = 0; i < f.stochastic.size(); ++i)
    out.emplace_back(f.stochastic[i], fmt::format("/failures/stochastic/{}/lifetime", i));
  if (f.rates)
    for (const ClusterStochasticFailures& p : f.rates->processes)
      out.emplace_back(p, "/failures/rates/file");
  return out;
}

/// Checkpoints every `every_steps` steps of the design, and the field that sets them.
std::pair<double, std::string> checkpoints(const Scenario& s, double steps) {
  const CollectiveRecoveryConfig& r = s.collective.recovery;
  const DesignSettingsFormat& format = collective_design(r.strategy).settings;
  const CheckpointCadence cadence =
      format.checkpoint_cadence != nullptr
          ? format.checkpoint_cadence(r.settings)
          : CheckpointCadence{r.checkpoint.every_steps, "/recovery/checkpoint/every_steps"};
  if (cadence.every_steps <= 0) return {0.0, cadence.field};
  return {std::floor(steps / static_cast<double>(cadence.every_steps)), cadence.field};
}

std::string count(double n) { return std::isinf(n) ? "unbounded" : fmt::format("{:.3g}", n); }

/// A process's expected events over `horizon`: each of its components cycles through a mean
/// lifetime (or gap), shortened by its rate factor, and a mean repair (or spell) again and again.
double process_events(ClusterTarget target, const ClusterPlatformConfig& platform, double horizon,
                      const Distribution& up, const Distribution& down, double rate_factor = 1.0) {
  return static_cast<double>(component_count(target, platform)) * horizon /
         (mean_of(up) / rate_factor + mean_of(down));
}

/// A failure process's rate factor over `horizon`, averaged over its components.
double rate_factor(const ClusterStochasticFailures& p, double horizon) {
  return p.heterogeneity ? mean_rate_factor(*p.heterogeneity, horizon) : 1.0;
}

/// `failures` expected when each costs `per_restart` before a restart completes (none stay none).
double with_restarts(double failures, double per_restart) {
  return failures > 0.0 ? failures * per_restart : 0.0;
}

/// ", N of them before each restart completes (...)" when failures cost more failures before a
/// restart completes (w.failures_per_restart), else nothing; `them` names the failures.
std::string restart_text(const Scenario& s, const CollectivePlan& plan, const CollectiveWork& w,
                         const char* them = "of them") {
  if (!(w.failures_per_restart > 1.0)) return "";
  return fmt::format(
      ", {} {} before each restart completes (it needs {:.3g} s without a "
      "failure)",
      count(w.failures_per_restart), them, restart_seconds(s, plan));
}

}  // namespace

double restart_seconds(const Scenario& s, const CollectivePlan& plan) {
  const RestartConfig& r = s.collective.recovery.restart;
  return r.scheduler_delay + r.process_start + plan.restart_init_seconds;
}

double failures_per_restart(const Scenario& s, const CollectivePlan& plan) {
  double rate = 0.0;  // lambda, failures a second
  for (const auto& [p, field] : failure_processes(s.collective.failures)) {
    // Without a horizon, the rate the heterogeneity reaches in the end (ageing's k).
    rate += static_cast<double>(component_count(p.target, s.collective.platform)) *
            rate_factor(p, std::numeric_limits<double>::infinity()) / mean_of(p.lifetime);
  }
  const double r = restart_seconds(s, plan);
  if (!(rate > 0.0) || !(r > 0.0)) return 1.0;
  return std::exp(rate * r);
}

double collective_event_rows(double failures, double restarts, double checkpoints) {
  return failures + restarts + 2.0 * checkpoints;
}

double collective_wall_seconds(double steps, double failures_and_restarts, double spells,
                               double checkpoints) {
  return steps / COLLECTIVE_STEPS_PER_WALL_SECOND +
         failures_and_restarts / COLLECTIVE_FAILURES_PER_WALL_SECOND +
         spells / COLLECTIVE_SPELLS_PER_WALL_SECOND +
         checkpoints / COLLECTIVE_CHECKPOINTS_PER_WALL_SECOND;
}

double CollectiveWork::wall_seconds() const {
  return setup_seconds + collective_wall_seconds(steps, failures + restarts, spells, checkpoints);
}

double CollectiveWork::result_bytes(const OutputConfig& output) const {
  return event_rows * (EVENT_JSON_BYTES + (output.events ? EVENT_CSV_BYTES : 0.0)) +
         timeseries_rows * TIMESERIES_ROW_BYTES + listed_events * LISTED_EVENT_JSON_BYTES;
}

CollectiveWork estimate_collective_work(const Scenario& s, const CollectivePlan& plan) {
  CollectiveWork w;
  w.steps = steps_bound(s, plan).first;
  w.horizon_known = s.stop.time.has_value();
  w.horizon = s.stop.time ? *s.stop.time : w.steps * plan.compute_seconds;
  if (std::isnan(w.horizon)) w.horizon = 0.0;  // no step length and no stop time
  const ClusterFailureConfig& f = s.collective.failures;
  const ClusterPlatformConfig& platform = s.collective.platform;
  // Failures: components x horizon / (mean lifetime + mean repair) per process, and the finite
  // ones of the scenario and the trace.
  for (const auto& [p, field] : failure_processes(f)) {
    w.failures += process_events(p.target, platform, w.horizon, p.lifetime, p.repair,
                                 rate_factor(p, w.horizon));
  }
  w.failures += static_cast<double>(f.events.size());
  if (f.trace) w.failures += static_cast<double>(f.trace->outages.size());
  // Without a stop time the run lasts until its restarts get through: every failure costs
  // e^(lambda R) of them first (with a stop time, the processes' own counts bound them).
  if (!w.horizon_known) w.failures_per_restart = failures_per_restart(s, plan);
  w.failures = with_restarts(w.failures, w.failures_per_restart);
  w.restarts = w.failures;
  w.spells = static_cast<double>(f.stragglers.size());
  w.listed_events = static_cast<double>(f.events.size() + f.stragglers.size());
  for (const StochasticStragglers& st : f.stochastic_stragglers) {
    w.spells += process_events(st.target, platform, w.horizon, st.every, st.duration);
  }
  w.checkpoints = checkpoints(s, w.steps).first;
  if (s.collective.workload.real_math) {
    if (s.evaluation.interval > 0.0) w.evaluations += w.horizon / s.evaluation.interval;
    if (s.evaluation.every_updates > 0)
      w.evaluations += w.steps / static_cast<double>(s.evaluation.every_updates);
  }
  w.event_rows = collective_event_rows(w.failures, w.restarts, w.checkpoints);
  const double row_bytes = EVENT_JSON_BYTES + (s.output.events ? EVENT_CSV_BYTES : 0.0);
  // What the listed events leave of output.max_size (the estimate refuses a run they fill).
  w.max_event_rows = std::max(0.0, s.output.max_size.value_or(DEFAULT_MAX_RESULT_BYTES) -
                                       w.listed_events * LISTED_EVENT_JSON_BYTES) /
                     row_bytes;
  w.timeseries_rows = s.output.timeseries ? w.evaluations : 0.0;
  const CollectiveSetup setup = estimate_collective_setup(s);
  w.setup_seconds = setup.total();
  w.setup_bytes = setup.bytes;
  return w;
}

namespace {

/// The largest source of work, for the message.
Source largest_source(const Scenario& s, const CollectivePlan& plan, const CollectiveWork& w) {
  std::vector<Source> sources;
  const auto [steps, steps_field] = steps_bound(s, plan);
  sources.push_back(
      {collective_wall_seconds(steps, 0, 0, 0), steps_field,
       fmt::format("{} steps of at least {:.3g} s", count(steps), plan.compute_seconds)});
  const ClusterFailureConfig& f = s.collective.failures;
  const std::string restarts = restart_text(s, plan, w);
  for (const auto& [p, field] : failure_processes(f)) {
    const double n = with_restarts(process_events(p.target, s.collective.platform, w.horizon,
                                                  p.lifetime, p.repair, rate_factor(p, w.horizon)),
                                   w.failures_per_restart);
    sources.push_back(
        {collective_wall_seconds(0, 2.0 * n, 0, 0), field,
         fmt::format("{} failures and as many restarts from {} {}s of {} s mean "
                     "lifetime and {} s mean repair{}",
                     count(n), component_count(p.target, s.collective.platform),
                     to_string(p.target), mean_of(p.lifetime) / rate_factor(p, w.horizon),
                     mean_of(p.repair), restarts)});
  }
  if (f.trace) {
    const double n =
        with_restarts(static_cast<double>(f.trace->outages.size()), w.failures_per_restart);
    sources.push_back({collective_wall_seconds(0, 2.0 * n, 0, 0), "/failures/trace/file",
                       fmt::format("{} replayed outages{}", count(n), restarts)});
  }
  for (std::size_t i = 0; i < f.stochastic_stragglers.size(); ++i) {
    const StochasticStragglers& st = f.stochastic_stragglers[i];
    const double n =
        process_events(st.target, s.collective.platform, w.horizon, st.every, st.duration);
    sources.push_back({collective_wall_seconds(0, 0, n, 0),
                       fmt::format("/failures/stochastic_stragglers/{}/every", i),
                       fmt::format("{} straggler spells of {} s every {} s", count(n),
                                   mean_of(st.duration), mean_of(st.every))});
  }
  const auto [ckpts, ckpt_field] = checkpoints(s, w.steps);
  sources.push_back({collective_wall_seconds(0, 0, 0, ckpts), ckpt_field,
                     fmt::format("{} checkpoints", count(ckpts))});
  // The set-up (estimate_collective_setup), alone within the limit but not with the rest.
  sources.push_back({w.setup_seconds, "/platform/nodes",
                     fmt::format("a set-up of {:.3g} s for {} ranks on {} nodes", w.setup_seconds,
                                 input::grouped(s.collective.platform.accelerators()),
                                 input::grouped(s.collective.platform.nodes))});
  return *std::max_element(sources.begin(), sources.end(),
                           [](const Source& a, const Source& b) { return a.seconds < b.seconds; });
}

/// A stop that bounds the work: time, updates or version.
void check_stop_bounds(const Scenario& s, const std::string& file) {
  if (!s.stop.time && !s.stop.updates && !s.stop.version) {
    throw input::InputError(file, "/stop",
                            "a stop by 'time', 'updates' or 'version' for a collective run "
                            "(target_accuracy alone bounds no work: a run that never reaches it "
                            "never ends)",
                            "target_accuracy only");
  }
}

/// The listed events and spells that result.json's scenario copies, when there are some.
std::string listed_text(const CollectiveWork& w) {
  if (!(w.listed_events > 0.0)) return "";
  return fmt::format(
      ", with {} listed failure events and straggler spells at {:.0f} bytes each "
      "(result.json's copy of the scenario)",
      count(w.listed_events), LISTED_EVENT_JSON_BYTES);
}

std::string horizon_text(const CollectiveWork& w) {
  return w.horizon_known
             ? fmt::format("over the stop time of {:.6g} s", w.horizon)
             : fmt::format("over at least {:.6g} s (the stop's steps at their least length)",
                           w.horizon);
}

}  // namespace

CollectiveWork check_collective_limits(const Scenario& s, const CollectivePlan& plan,
                                       const std::string& file) {
  check_stop_bounds(s, file);
  const CollectiveWork w = estimate_collective_work(s, plan);
  if (!(w.wall_seconds() <= MAX_COLLECTIVE_WALL_SECONDS)) {
    const Source top = largest_source(s, plan, w);
    throw input::InputError(
        file, top.field,
        fmt::format("a run of at most {:.0f} s of wall time (about an hour at the measured {:.0f} "
                    "steps, {:.0f} failures or restarts, {:.0f} straggler spells or {:.0f} "
                    "checkpoints a second; docs/scenario-format.md, \"Limits\")",
                    MAX_COLLECTIVE_WALL_SECONDS, COLLECTIVE_STEPS_PER_WALL_SECOND,
                    COLLECTIVE_FAILURES_PER_WALL_SECOND, COLLECTIVE_SPELLS_PER_WALL_SECOND,
                    COLLECTIVE_CHECKPOINTS_PER_WALL_SECOND),
        fmt::format("{}: {}, {}",
                    std::isinf(w.wall_seconds())
                        ? std::string("unbounded")
                        : fmt::format("{}{} s", w.horizon_known ? "" : "at least ",
                                      count(w.wall_seconds())),
                    top.what, horizon_text(w)));
  }
  const double limit = s.output.max_size.value_or(DEFAULT_MAX_RESULT_BYTES);
  const double bytes = w.result_bytes(s.output);
  if (bytes > limit) {
    throw input::InputError(
        file, "/output/max_size",
        fmt::format("a result of at most {} (output.max_size, default 1 GiB: raise it, "
                    "e.g. --set /output/max_size=4GiB, or write fewer events)",
                    format_bytes(limit)),
        fmt::format("{}: {} events ({} failures, {} restarts, {} checkpoints of 2 "
                    "events) at {:.0f} bytes each and {} timeseries rows{}, {}{}",
                    format_bytes(bytes), count(w.event_rows), count(w.failures), count(w.restarts),
                    count(w.checkpoints),
                    EVENT_JSON_BYTES + (s.output.events ? EVENT_CSV_BYTES : 0.0),
                    count(w.timeseries_rows), listed_text(w), horizon_text(w),
                    restart_text(s, plan, w, "failures")));
  }
  return w;
}

namespace {

/// With real math: each step is dp gradients, and evaluations are test passes.
void check_real_math(const Scenario& s, const CollectivePlan& plan, const CollectiveWork& work,
                     const std::string& file) {
  double steps = std::numeric_limits<double>::infinity();
  if (s.stop.updates) steps = std::min(steps, static_cast<double>(*s.stop.updates));
  if (s.stop.time) steps = std::min(steps, *s.stop.time / plan.compute_seconds + 1.0);
  const double gradients = steps * plan.dp;
  if (gradients > MAX_GRADIENTS && !std::isinf(gradients)) {
    const std::string field = s.stop.updates ? "/stop/updates" : "/stop/time";
    throw input::InputError(
        file, field,
        fmt::format("a run of at most {:.0f} gradients ({:.3g} steps of {} replicas' gradients "
                    "before this stop: a step is at least {:.3g} s of compute)",
                    MAX_GRADIENTS, steps, plan.dp, plan.compute_seconds),
        s.stop.updates ? std::to_string(*s.stop.updates) : fmt::format("{}", *s.stop.time));
  }
  if (work.evaluations > MAX_EVALUATIONS) {
    throw input::InputError(
        file, s.evaluation.interval > 0.0 ? "/evaluation/interval" : "/evaluation/every_updates",
        fmt::format("at most {:.0f} scheduled evaluations in the run ({:.3g} at this interval)",
                    MAX_EVALUATIONS, work.evaluations),
        s.evaluation.interval > 0.0 ? fmt::format("{}", s.evaluation.interval)
                                    : std::to_string(s.evaluation.every_updates));
  }
}

}  // namespace

CollectiveWork check_collective_work(const Scenario& s, const CollectivePlan& plan,
                                     const std::string& file) {
  // The stop, then the real math's own limits (their messages name the gradients a stop makes).
  check_stop_bounds(s, file);
  if (s.collective.workload.real_math)
    check_real_math(s, plan, estimate_collective_work(s, plan), file);
  return check_collective_limits(s, plan, file);
}

// ---- The set-up ---------------------------------------------------------------------------

double collective_platform_seconds(double nodes, double accelerators) {
  return accelerators * PLATFORM_SECONDS_PER_ACCELERATOR + nodes * PLATFORM_SECONDS_PER_NODE;
}

namespace {

/// A random process of the schedules, with the field that names it.
struct StreamSource {
  double streams = 0.0;
  std::string field;
};

/// Every random process's streams (failures over the platform, spares included; stragglers over
/// the job's nodes), and the scheduled entries (events, a trace's outages, spells) as one more.
std::vector<StreamSource> stream_sources(const Scenario& s) {
  const ClusterFailureConfig& f = s.collective.failures;
  ClusterPlatformConfig job_nodes = s.collective.platform;
  job_nodes.spares = 0;
  std::vector<StreamSource> out;
  for (const auto& [p, field] : failure_processes(f)) {
    // A process of failures.stochastic is named by its target; the rate table's by its file.
    const std::string lifetime = "/lifetime";
    const bool stochastic = field.ends_with(lifetime);
    out.push_back(
        {static_cast<double>(component_count(p.target, s.collective.platform)),
         stochastic ? field.substr(0, field.size() - lifetime.size()) + "/target" : field});
  }
  for (std::size_t i = 0; i < f.stochastic_stragglers.size(); ++i)
    out.push_back(
        {static_cast<double>(component_count(f.stochastic_stragglers[i].target, job_nodes)),
         fmt::format("/failures/stochastic_stragglers/{}/target", i)});
  out.push_back({static_cast<double>(f.events.size() + f.stragglers.size() +
                                     (f.trace ? f.trace->outages.size() : 0)),
                 "/failures/events"});
  return out;
}

}  // namespace

double first_step_flow_sets(const Scenario& s) {
  const LayoutConfig& l = s.collective.layout;
  double sets = 0.0;
  if (l.tp > 1) sets += 1.0;  // every tensor-parallel group's ring at once
  if (l.pp > 1) sets += 1.0;  // every stage boundary's send at once
  if (l.dp > 1) {
    // As the plan makes them (plan.cpp): ZeRO's collectives, an all-reduce hierarchically in
    // three (the nodes' reduce-scatters, the rings across nodes, the nodes' all-gathers).
    const int collectives = l.zero_stage <= 1 ? 1 : l.zero_stage == 2 ? 2 : 3;
    const bool hierarchical =
        l.zero_stage <= 1 && l.dp_algorithm == DataParallelAlgorithm::HIERARCHICAL;
    sets += hierarchical ? 3.0 : collectives;
  }
  // A checkpoint's write: every rank's share to the file system at once.
  if (checkpoints(s, 1.0e18).first > 0.0) sets += 1.0;
  return std::max(sets, 1.0);
}

CollectiveSetup estimate_collective_setup(const Scenario& s) {
  const ClusterPlatformConfig& platform = s.collective.platform;
  // In doubles: the counts were checked in 64 bits by the reader, their products are not ints.
  const double nodes = platform.platform_nodes();
  const double per_node = platform.node.accelerators;
  const double ranks = static_cast<double>(platform.nodes) * per_node;
  CollectiveSetup setup;
  setup.ranks = ranks * SETUP_SECONDS_PER_RANK;
  setup.platform = collective_platform_seconds(nodes, nodes * per_node);
  setup.first_step = first_step_flow_sets(s) * ranks * FIRST_STEP_SECONDS_PER_FLOW;
  setup.bytes = ranks * SETUP_BYTES_PER_RANK + nodes * per_node * SETUP_BYTES_PER_ACCELERATOR +
                nodes * SETUP_BYTES_PER_NODE;
  for (const StreamSource& source : stream_sources(s))
    setup.schedules += source.streams * SETUP_SECONDS_PER_STREAM;
  return setup;
}

CollectiveSetup check_collective_setup(const Scenario& s, const std::string& file) {
  const CollectiveSetup setup = estimate_collective_setup(s);
  const bool too_long = setup.total() > MAX_COLLECTIVE_WALL_SECONDS;
  if (!too_long && setup.bytes <= MAX_COLLECTIVE_SETUP_BYTES) return setup;
  const ClusterPlatformConfig& platform = s.collective.platform;
  // The field to change: the process of the most streams when the schedules dominate, else the
  // platform's nodes (the ranks are nodes x accelerators a node), or its spares when they are
  // more.
  std::string field = platform.spares > platform.nodes ? "/platform/spares" : "/platform/nodes";
  if (too_long && setup.schedules > setup.ranks + setup.platform + setup.first_step) {
    const std::vector<StreamSource> sources = stream_sources(s);
    field = std::max_element(
                sources.begin(), sources.end(),
                [](const StreamSource& a, const StreamSource& b) { return a.streams < b.streams; })
                ->field;
  }
  const std::string job = fmt::format(
      "{} ranks on {} nodes of {} accelerators{}",
      input::grouped(static_cast<long long>(platform.nodes) * platform.node.accelerators),
      input::grouped(platform.nodes), input::grouped(platform.node.accelerators),
      platform.spares > 0 ? fmt::format(" and {} spares", input::grouped(platform.spares))
                          : std::string());
  if (!too_long) {
    throw input::InputError(
        file, field,
        fmt::format("a set-up of at most {} of memory (at the measured {} a rank, {} an "
                    "accelerator and {} a node of the platform; docs/scenario-format.md, "
                    "\"Limits\")",
                    format_bytes(MAX_COLLECTIVE_SETUP_BYTES), format_bytes(SETUP_BYTES_PER_RANK),
                    format_bytes(SETUP_BYTES_PER_ACCELERATOR), format_bytes(SETUP_BYTES_PER_NODE)),
        fmt::format("{}: {}", format_bytes(setup.bytes), job));
  }
  throw input::InputError(
      file, field,
      fmt::format("a set-up of at most {:.0f} s of wall time up to the end of the first step "
                  "(about an hour at the measured {:.2g} s a rank, {:.2g} s an accelerator and "
                  "{:.2g} s a node of the platform, {:.2g} s a random stream, {:.2g} s a flow "
                  "of the first step; docs/scenario-format.md, \"Limits\")",
                  MAX_COLLECTIVE_WALL_SECONDS, SETUP_SECONDS_PER_RANK,
                  PLATFORM_SECONDS_PER_ACCELERATOR, PLATFORM_SECONDS_PER_NODE,
                  SETUP_SECONDS_PER_STREAM, FIRST_STEP_SECONDS_PER_FLOW),
      fmt::format("{:.3g} s: {} (the plan and the step network {:.3g} s, the platform {:.3g} s, "
                  "the failure and straggler schedules {:.3g} s, the first step's flows {:.3g} "
                  "s)",
                  setup.total(), job, setup.ranks, setup.platform, setup.schedules,
                  setup.first_step));
}

}  // namespace failsim::sim
