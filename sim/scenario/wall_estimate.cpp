#include "sim/scenario/wall_estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace failsim::sim {

namespace {

/// Loading (Fashion-MNIST, text) or generating (synthetic) the data sets, when the run has real
/// math.
double data_seconds(const Scenario& s, const ResolvedJob& job) {
  const double rate = s.data.kind == DatasetKind::SYNTHETIC ? SYNTHETIC_BYTES_PER_WALL_SECOND
                                                            : IDX_BYTES_PER_WALL_SECOND;
  return job.memory.data_bytes / rate;
}

/// The math of `gradients` gradients and `evaluations` scheduled evaluations (and the final one).
double math_seconds(const Scenario& s, const ResolvedJob& job, double gradients,
                    double evaluations) {
  const WorkEstimate& w = job.work;
  if (w.gradient_math_flops == 0.0) return 0.0;  // time only
  const models::DataShape& d = job.train;
  const double batch_bytes =
      static_cast<double>(s.optimizer.batch_size) * sizeof(float) * d.channels * d.height * d.width;
  return (gradients * w.gradient_math_flops + evaluations * w.evaluation_math_flops +
          w.final_evaluation_math_flops) /
             EXPECTED_MATH_FLOPS_PER_WALL_SECOND +
         gradients * batch_bytes / BATCH_BYTES_PER_WALL_SECOND;
}

/// The share of a collective run's steps expected to be taken when a stop time bounds it (the
/// steps of CollectiveWork are what the stop time holds without failures): each failure costs
/// its detection, a restart and half a checkpoint interval of steps done again (Young's and
/// Daly's account), at least a twentieth of the run left. 1 without a stop time (the steps are
/// the stop's) or without failures.
double expected_progress(const Scenario& s, const CollectivePlan& plan, const CollectiveWork& w) {
  if (!w.horizon_known || w.failures == 0.0 || w.horizon <= 0.0) return 1.0;
  const DetectionConfig& d = s.collective.failures.detection;
  const double detection =
      d.kind == DetectionKind::WATCHDOG ? d.timeout : d.interval * static_cast<double>(d.misses);
  const double interval = w.checkpoints > 0.0 ? w.steps / w.checkpoints * plan.compute_seconds : 0;
  const double lost = detection + restart_seconds(s, plan) + interval / 2.0;
  return std::max(0.05, 1.0 - w.failures * lost / w.horizon);
}

WallEstimate collective_estimate(const Scenario& s, const ResolvedJob& job) {
  const CollectiveWork& cw = job.collective_work;
  const ClusterPlatformConfig& platform = s.collective.platform;
  WallEstimate e;
  e.known = true;
  e.at_least = !cw.horizon_known && cw.failures > 0.0;
  e.process_seconds = PROCESS_SECONDS;
  // In doubles, as estimate_collective_setup counts them: the product of two ints may not fit.
  const double accelerators =
      static_cast<double>(platform.platform_nodes()) * platform.node.accelerators;
  e.setup_seconds = accelerators * COLLECTIVE_SETUP_SECONDS_PER_ACCELERATOR + data_seconds(s, job);
  const double ranks = static_cast<double>(job.collective->ranks());
  e.simulation_seconds =
      cw.steps / COLLECTIVE_EXPECTED_STEPS_PER_WALL_SECOND +
      (cw.failures + cw.restarts) * COLLECTIVE_EVENT_SECONDS_PER_SQRT_RANK * std::sqrt(ranks) +
      cw.checkpoints * COLLECTIVE_CHECKPOINT_SECONDS;
  // Every data-parallel replica's gradient each step (s.workload.real_math; 0 flops without).
  const double gradients =
      s.collective.workload.real_math
          ? cw.steps * expected_progress(s, *job.collective, cw) * s.collective.layout.dp
          : 0.0;
  e.math_seconds = math_seconds(s, job, gradients, cw.evaluations);
  return e;
}

/// The share of the paced gradients a parameter-server run is expected to compute when its
/// random failures take workers away (each for its detection, repair and restart) and, in sync
/// mode or when a server fails, hold every worker's round until the failure is detected (and a
/// server's until it is back): 1 without random failures.
double expected_share(const Scenario& s) {
  if (!s.stop.time) return 1.0;
  const double stop = *s.stop.time;
  const double workers = s.cluster.num_workers();
  const FailureConfig& f = s.failures;
  double down = 0.0, held = 0.0;  // worker-seconds away; seconds every worker waits
  for (const StochasticFailures& p : s.failures.stochastic) {
    const double cycle = mean_of(p.lifetime) + mean_of(p.repair);
    const double away = f.detection_timeout + mean_of(p.repair) + f.restart_delay;
    if (p.target == FailureTarget::WORKER) {
      const double failures = workers * stop / cycle;
      down += failures * away;
      if (s.consistency.mode == ConsistencyMode::SYNC) held += failures * f.detection_timeout;
    } else if (p.target == FailureTarget::SERVER) {
      held += s.cluster.num_servers() * s.cluster.shards * stop / cycle * away;
    }
  }
  return std::max(0.0, 1.0 - down / (workers * stop)) * std::max(0.0, 1.0 - held / stop);
}

}  // namespace

WallEstimate estimate_wall_time(const Scenario& s, const ResolvedJob& job) {
  if (s.protocol == Protocol::COLLECTIVE) return collective_estimate(s, job);
  WallEstimate e;
  const WorkEstimate& w = job.work;
  e.known = std::isfinite(w.paced_gradients) && w.paced_gradients > 0.0;
  if (!e.known) return e;
  const double gradients = w.paced_gradients * expected_share(s);
  e.process_seconds = PROCESS_SECONDS;
  e.setup_seconds = data_seconds(s, job);
  // A gradient's pull and push go to every shard: the events, messages and actor switches of
  // the simulation grow with the shards (sharded-kill.json stopped at 60 s without its kill:
  // 0.53, 0.88, 1.41 and 2.29 s of CPU at 1, 2, 3 and 6 shards).
  e.simulation_seconds = gradients * s.cluster.shards / EXPECTED_GRADIENTS_PER_WALL_SECOND;
  e.math_seconds = math_seconds(s, job, gradients, w.evaluations + w.evaluations_by_updates);
  return e;
}

std::string duration_text(double seconds) {
  if (seconds < 10.0) return fmt::format("{:.2g} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 60) return fmt::format("{} s", whole);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  const long long minutes = (whole + 30) / 60;
  return fmt::format("{} h {} min", minutes / 60, minutes % 60);
}

}  // namespace failsim::sim
