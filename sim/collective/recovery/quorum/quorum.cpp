#include "sim/collective/recovery/quorum/quorum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/quorum/settings.hpp"
#include "sim/engine/never.hpp"

namespace failsim::sim {

namespace {

std::string group_name(int k) { return "group-" + std::to_string(k); }
}  // namespace

void PerStepQuorum::start(CollectiveJob& job) {
  per_group_ = job.scenario().collective.recovery.get<QuorumConfig>().group_replicas;
  groups_ = job.plan().dp / per_group_;
  if (groups_ < 1 || groups_ * per_group_ != job.plan().dp) {
    throw std::logic_error("quorum: group_replicas must divide dp (the resolve step checks it)");
  }
  since_.assign(static_cast<std::size_t>(groups_), 0.0);
  // Version 0: what the job starts from again if every group is lost.
  if (job.math() != nullptr) initial_ = job.math()->save();
}

bool PerStepQuorum::active(const Assignment& a, int k) const {
  return a.active[static_cast<std::size_t>(k * per_group_)];
}

void PerStepQuorum::set_group(Assignment& a, int k, bool on) const {
  for (int d = k * per_group_; d < (k + 1) * per_group_; ++d)
    a.active[static_cast<std::size_t>(d)] = on;
}

void PerStepQuorum::set_streams(Assignment& a) const {
  // A group takes its replicas' batches once it holds the state (a joining group's gradient
  // is not counted: TorchFT's healing replica contributes zeros and is not a participant).
  a.streams.clear();
  for (int k = 0; k < groups_; ++k) {
    if (!active(a, k) || std::count(joining_.begin(), joining_.end(), k) > 0) continue;
    for (int d = k * per_group_; d < (k + 1) * per_group_; ++d) a.streams.push_back(d);
  }
}

std::vector<int> PerStepQuorum::nodes_of(const CollectiveJob& job, int k) const {
  const CollectivePlan& plan = job.plan();
  const int per_replica = plan.tp * plan.pp;
  std::vector<int> out;
  for (int r = k * per_group_ * per_replica; r < (k + 1) * per_group_ * per_replica; ++r) {
    out.push_back(job.assignment().node_of(plan, r));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool PerStepQuorum::failed(const CollectiveJob& job, int k) const {
  // A node's latest outage ends after the group joined: it began after (the group joined with
  // every node up), so the group's processes on it died.
  const std::vector<int> nodes = nodes_of(job, k);
  return std::any_of(nodes.begin(), nodes.end(), [&](int n) {
    return job.nodes().back(n) > since_[static_cast<std::size_t>(k)] ||
           !job.nodes().up(n, job.now());
  });
}

double PerStepQuorum::ready_at(const CollectiveJob& job, int k) const {
  double back = 0.0;
  for (int n : nodes_of(job, k)) back = std::max(back, job.nodes().back(n));
  if (std::isinf(back)) return NEVER;
  // Its own processes start once its last node is back (the scheduler's delay, the start).
  const RestartConfig& restart = job.scenario().collective.recovery.restart;
  return back + restart.scheduler_delay + restart.process_start;
}

std::vector<int> PerStepQuorum::earliest_ready(const CollectiveJob& job, int needed) const {
  std::vector<std::pair<double, int>> idle;
  for (int k = 0; k < groups_; ++k) {
    if (!active(job.assignment(), k)) idle.emplace_back(ready_at(job, k), k);
  }
  std::sort(idle.begin(), idle.end());
  std::vector<int> out;
  for (std::size_t i = 0; i < idle.size() && static_cast<int>(out.size()) < needed; ++i) {
    out.push_back(idle[i].second);
  }
  return out;
}

std::optional<double> PerStepQuorum::detected_at(const CollectiveJob& job) const {
  const QuorumConfig& q = job.scenario().collective.recovery.get<QuorumConfig>();
  if (q.detection == QuorumDetection::COLLECTIVE_TIMEOUT) return std::nullopt;
  // The collective errors out at once and the step is lost; the next quorum forms without the
  // group when the lighthouse has missed its heartbeats for heartbeat_timeout.
  return job.failure().at + q.heartbeat_timeout;
}

std::vector<Flow> PerStepQuorum::heal_flows(CollectiveJob& job) const {
  const CollectivePlan& plan = job.plan();
  // Every rank of a joining replica receives the model's state of its (pipeline stage, tensor
  // shard) from the same coordinates in a live replica: checkpoint_bytes / (tp x pp) each.
  // Joining replicas take their sources round-robin over the live ones.
  std::vector<int> live;
  for (int d : job.assignment().streams) live.push_back(d);
  if (live.empty()) throw std::logic_error("quorum: a group joins with no live peer");
  const double bytes = plan.checkpoint_bytes / static_cast<double>(plan.tp * plan.pp);
  std::vector<Flow> flows;
  std::size_t next = 0;
  for (int k : joining_) {
    for (int d = k * per_group_; d < (k + 1) * per_group_; ++d) {
      const int source = live[next++ % live.size()];
      for (int p = 0; p < plan.pp; ++p) {
        for (int t = 0; t < plan.tp; ++t) {
          flows.push_back({job.network().host(plan.rank_of({source, p, t})),
                           job.network().host(plan.rank_of({d, p, t})), bytes});
        }
      }
    }
  }
  return flows;
}

Interrupt PerStepQuorum::before_step(CollectiveJob& job) {
  const QuorumConfig& q = job.scenario().collective.recovery.get<QuorumConfig>();
  // Groups whose processes are up again join this quorum.
  Assignment a = job.assignment();
  bool joined = false;
  for (int k = 0; k < groups_; ++k) {
    if (active(a, k) || ready_at(job, k) > job.now()) continue;
    set_group(a, k, true);
    joining_.push_back(k);
    joined = true;
  }
  if (joined) {
    set_streams(a);
    job.reassign(a);
    reconfigure_ = true;
  }
  Interrupt i = job.sleep_until(job.now() + q.latency, TimeCause::QUORUM);
  if (i != Interrupt::NONE) return i;
  if (reconfigure_) {
    // A new quorum: every rank reconfigures its process groups (a communicator's
    // initialisation over the new members).
    const double seconds = q.reconfigure.value_or(job.plan().restart_init_seconds);
    i = job.sleep_until(job.now() + seconds, TimeCause::RESTART);
    if (i != Interrupt::NONE) return i;
    reconfigure_ = false;
  }
  if (!joining_.empty() && !heal_) {
    for (int k : joining_) since_[static_cast<std::size_t>(k)] = job.now();
    heal_.emplace(heal_flows(job));
  }
  return Interrupt::NONE;
}

Interrupt PerStepQuorum::before_update(CollectiveJob& job, const StepSpan& /*span*/) {
  if (!heal_) return Interrupt::NONE;
  // The live groups serve their state until the copy is over: their update waits for it.
  if (const Interrupt i = job.wait(*heal_, TimeCause::CHECKPOINT_LOAD); i != Interrupt::NONE) {
    return i;
  }
  heal_.reset();
  for (int k : joining_) {
    job.recorder().event(
        job.now(), EventType::REPLICA_JOINED, group_name(k),
        {{"version", job.version()}, {"bytes", job.plan().checkpoint_bytes * per_group_}});
  }
  return Interrupt::NONE;
}

Interrupt PerStepQuorum::after_step(CollectiveJob& job) {
  // The joined groups hold the state now: their batches count from the next step on.
  if (!joining_.empty() && !heal_) {
    joining_.clear();
    Assignment a = job.assignment();
    set_streams(a);
    job.reassign(a);
  }
  return Interrupt::NONE;
}

Interrupt PerStepQuorum::wait_for_groups(CollectiveJob& job, const std::vector<int>& groups) {
  while (true) {
    double back = 0.0;
    double ready = 0.0;
    for (int k : groups) {
      for (int n : nodes_of(job, k)) back = std::max(back, job.nodes().back(n));
      ready = std::max(ready, ready_at(job, k));
    }
    // A node down for good: the job waits for the stop, or ends (wait_for_nodes says so).
    if (std::isinf(back)) return job.wait_for_nodes();
    if (back > job.now()) {
      if (const Interrupt i = job.sleep_until(back, TimeCause::REPAIR_WAIT); i != Interrupt::NONE)
        return i;
      continue;
    }
    if (ready > job.now()) {
      if (const Interrupt i = job.sleep_until(ready, TimeCause::RESTART); i != Interrupt::NONE)
        return i;
      continue;
    }
    return Interrupt::NONE;
  }
}

void PerStepQuorum::drop_failed(CollectiveJob& job) {
  Assignment a = job.assignment();
  // Groups still without the state leave the quorum: they join a later one.
  for (int k : joining_) set_group(a, k, false);
  joining_.clear();
  std::vector<int> dropped;
  for (int k = 0; k < groups_; ++k) {
    if (!active(a, k) || !failed(job, k)) continue;
    set_group(a, k, false);
    dropped.push_back(k);
  }
  set_streams(a);
  job.reassign(a);
  reconfigure_ = true;
  if (!dropped.empty()) {
    job.recorder().event(job.now(), EventType::RESIZED, "quorum",
                         {{"dropped", dropped}, {"groups", a.active_replicas() / per_group_}});
  }
}

bool PerStepQuorum::recover(CollectiveJob& job) {
  const QuorumConfig& q = job.scenario().collective.recovery.get<QuorumConfig>();
  // No rollback, no restart: the failed groups leave, the others go on from where they are.
  if (heal_) {
    heal_->cancel();
    heal_.reset();
  }
  drop_failed(job);
  while (true) {
    const int live = job.assignment().active_replicas() / per_group_;
    if (live >= q.min_replicas) return true;
    if (live == 0) return restart_from_scratch(job);
    // Too few for a quorum: the live groups wait for the earliest groups to come back, then
    // those join (and heal) at the next quorum.
    const std::vector<int> wanted = earliest_ready(job, q.min_replicas - live);
    Assignment a = job.assignment();
    for (int k : wanted) {
      set_group(a, k, true);
      joining_.push_back(k);
    }
    set_streams(a);
    job.reassign(a);
    const Interrupt i = wait_for_groups(job, wanted);
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::NONE) return true;
    drop_failed(job);  // a failure meanwhile: choose again
  }
}

bool PerStepQuorum::restart_from_scratch(CollectiveJob& job) {
  const QuorumConfig& q = job.scenario().collective.recovery.get<QuorumConfig>();
  // Every group is down: no live peer holds the state and there is no checkpoint. The job
  // waits for min_replicas groups to be back and starts from version 0.
  while (true) {
    const std::vector<int> wanted = earliest_ready(job, q.min_replicas);
    Assignment a = job.assignment();
    for (int k : wanted) set_group(a, k, true);
    set_streams(a);
    job.reassign(a);
    const Interrupt i = wait_for_groups(job, wanted);
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::FAILURE) {
      // One of them failed again: none holds anything yet, choose again.
      a = job.assignment();
      for (int k = 0; k < groups_; ++k) set_group(a, k, false);
      set_streams(a);
      job.reassign(a);
      continue;
    }
    for (int k : wanted) since_[static_cast<std::size_t>(k)] = job.now();
    ++job.counts().restarts;
    job.recorder().event(job.now(), EventType::RESTART, "job",
                         {{"version", 0}, {"reason", "every replica group was down"}});
    job.roll_back_to(0, initial_);
    reconfigure_ = true;
    return true;
  }
}

void PerStepQuorum::finish(CollectiveJob& /*job*/) {
  if (heal_) heal_->cancel();
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> quorum::make() { return std::make_unique<PerStepQuorum>(); }

}  // namespace failsim::sim
