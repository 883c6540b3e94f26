#include "sim/collective/recovery/universal/universal_checkpoint.hpp"

#include <algorithm>
#include <numeric>

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/universal/settings.hpp"

namespace failsim::sim {

namespace {
int how_many(const std::vector<bool>& v) {
  return static_cast<int>(std::count(v.begin(), v.end(), true));
}
}  // namespace

std::vector<bool> UniversalCheckpoint::replicas_up(const CollectiveJob& job) const {
  // Replica d's ranks are d x tp x pp onwards (rank = (d x pp + p) x tp + t): a replica spans
  // nodes when tp x pp > G, and a node holding parts of several replicas takes them all down.
  const CollectivePlan& plan = job.plan();
  const int per_replica = plan.tp * plan.pp;
  std::vector<bool> up(static_cast<std::size_t>(plan.dp), true);
  for (int r = 0; r < plan.ranks(); ++r) {
    if (!job.nodes().up(job.assignment().node_of(plan, r), job.now()))
      up[static_cast<std::size_t>(r / per_replica)] = false;
  }
  return up;
}

Assignment UniversalCheckpoint::layout(const CollectiveJob& job,
                                       const std::vector<bool>& active) const {
  const bool keep =
      job.scenario().collective.recovery.get<UniversalConfig>().batch == UniversalBatch::KEEP;
  Assignment a = job.assignment();
  a.active = active;
  a.streams.clear();
  for (std::size_t d = 0; d < active.size(); ++d) {
    if (keep || active[d]) a.streams.push_back(static_cast<int>(d));
  }
  return a;
}

Interrupt UniversalCheckpoint::wait_at_most(CollectiveJob& job) {
  const double limit =
      job.now() + job.scenario().collective.recovery.get<UniversalConfig>().wait_limit;
  while (job.now() < limit) {
    double back = 0.0;
    for (int n : job.assignment().nodes_in_use(job.plan()))
      back = std::max(back, job.nodes().back(n));
    if (back <= job.now()) break;
    // A failure of another node in use meanwhile (taken) waits on, to the same limit.
    if (job.sleep_until(std::min(back, limit), TimeCause::REPAIR_WAIT) == Interrupt::STOP)
      return Interrupt::STOP;
  }
  return Interrupt::NONE;
}

Interrupt UniversalCheckpoint::load(CollectiveJob& job) {
  const CollectivePlan& plan = job.plan();
  const std::int64_t version = checkpoints_.durable_version();
  const int replicas = job.assignment().active_replicas();
  // ZeRO's shards are cut for the replicas that wrote them; a checkpoint nothing shards (ZeRO 0:
  // every replica holds the whole state of its stage and slice) loads on any number of them.
  if (version > 0 && version != universal_version_ && replicas != checkpoints_.durable_replicas() &&
      plan.checkpoint_sharded_per_parameter > 0) {
    // The conversion (ds_to_universal) on the first node in use: its accelerators' processes
    // read the whole checkpoint, then write it again as per-parameter files.
    const ClusterPlatform& platform = job.network().platform();
    const int node = job.assignment().nodes_in_use(plan).front();
    const int g = platform.accelerators_per_node;
    std::vector<Flow> reads, writes;
    for (int a = 0; a < g; ++a) {
      simgrid::s4u::Host* host = platform.accelerator(node, a);
      reads.push_back({platform.file_system, host, plan.checkpoint_bytes / g, 0.0});
      writes.push_back({host, platform.file_system, plan.checkpoint_bytes / g, 0.0});
    }
    for (std::vector<Flow>* part : {&reads, &writes}) {
      FlowSet flows(*part);
      const Interrupt i = job.wait(flows, TimeCause::CHECKPOINT_LOAD);
      if (i == Interrupt::FAILURE) job.take_due_outages();
      if (i != Interrupt::NONE) return i;
    }
    universal_version_ = version;
    converted_ = true;
  }
  // Every rank of the new layout reads its new shard (the universal files' slices for it).
  return checkpoints_.load(job, job.network().checkpoint_reads());
}

Interrupt UniversalCheckpoint::restart_on(CollectiveJob& job, const Assignment& next) {
  if (next.active != running_) {
    job.recorder().event(job.now(), EventType::RESIZE, "job",
                         {{"replicas", next.active_replicas()},
                          {"from_replicas", how_many(running_)},
                          {"version", checkpoints_.durable_version()}});
  }
  job.reassign(next);
  converted_ = false;
  Interrupt i = job.restart_processes();
  if (i == Interrupt::NONE) i = load(job);
  if (i != Interrupt::NONE) return i;
  if (next.active != running_) {
    job.recorder().event(job.now(), EventType::RESIZED, "job",
                         {{"replicas", next.active_replicas()},
                          {"streams", next.streams.size()},
                          {"micro_batch_rounds", next.rounds()},
                          {"converted", converted_}});
  }
  running_ = next.active;
  return Interrupt::NONE;
}

void UniversalCheckpoint::start(CollectiveJob& job) {
  running_ = job.assignment().active;
  checkpoints_.start(job);
}

Interrupt UniversalCheckpoint::after_step(CollectiveJob& job) {
  if (const Interrupt i = checkpoints_.after_step(job); i != Interrupt::NONE) return i;
  if (job.scenario().collective.recovery.get<UniversalConfig>().grow !=
          UniversalGrow::AT_CHECKPOINT ||
      !CheckpointRestart::due(job)) {
    return Interrupt::NONE;
  }
  // The nodes in use are up (a step just completed): more replicas up means repaired nodes.
  const std::vector<bool> up = replicas_up(job);
  if (how_many(up) <= job.assignment().active_replicas()) return Interrupt::NONE;
  // A planned restart onto them from this checkpoint, once durable: nothing is rolled back.
  if (const Interrupt i = checkpoints_.flush(job); i != Interrupt::NONE) return i;
  return restart_on(job, layout(job, up));
}

bool UniversalCheckpoint::recover(CollectiveJob& job) {
  checkpoints_.roll_back(job);
  const int min_replicas = job.scenario().collective.recovery.get<UniversalConfig>().min_replicas;
  // Wait at most wait_limit, then restart on every replica whose nodes are up (repaired ones
  // that had been dropped too); a failure during the restart or the load decides again.
  while (true) {
    if (wait_at_most(job) == Interrupt::STOP) return false;
    std::vector<bool> up = replicas_up(job);
    if (how_many(up) < min_replicas) {
      // Too few to go on: wait (repair_wait) for the replicas that come back first, as many as
      // it takes; a node down for good among them ends the progress as in checkpoint-restart.
      const CollectivePlan& plan = job.plan();
      std::vector<double> back(up.size(), 0.0);
      for (int r = 0; r < plan.ranks(); ++r) {
        auto& b = back[static_cast<std::size_t>(r / (plan.tp * plan.pp))];
        b = std::max(b, job.nodes().back(job.assignment().node_of(plan, r)));
      }
      std::vector<int> order(up.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return back[static_cast<std::size_t>(a)] < back[static_cast<std::size_t>(b)];
      });
      std::vector<bool> waiting = up;
      for (int d : order) {
        if (how_many(waiting) >= min_replicas) break;
        waiting[static_cast<std::size_t>(d)] = true;
      }
      job.reassign(layout(job, waiting));
      if (job.wait_for_nodes() == Interrupt::STOP) return false;
      up = replicas_up(job);
    }
    const Interrupt i = restart_on(job, layout(job, up));
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::NONE) return true;
  }
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> universal::make() {
  return std::make_unique<UniversalCheckpoint>();
}

}  // namespace failsim::sim
