#include "sim/collective/recovery/diloco/diloco.hpp"

#include <algorithm>

#include "sim/collective/job/collective_job.hpp"

namespace failsim::sim {

void Diloco::start(CollectiveJob& job) {
  const CollectivePlan& plan = job.plan();
  const DilocoConfig& config = job.scenario().collective.recovery.get<DilocoConfig>();
  inner_steps_ = config.inner_steps;
  const double psi = plan.parameters / (plan.tp * plan.pp);  // a rank's stage and slice
  outer_bytes_ = psi * config.outer_gradient_bytes;
  // The outer momentum travels in fp32 with the copy (none without momentum).
  copy_outer_bytes_ = config.outer_momentum > 0.0 ? psi * 4.0 : 0.0;
  if (job.math() != nullptr && job.training() != nullptr) {
    math_.emplace(*job.training(), job.scenario().optimizer, config, plan.dp);
    initial_ = job.math()->save();
  }
  live_.assign(static_cast<std::size_t>(plan.dp), true);
  heal_.clear();
  heal_.resize(static_cast<std::size_t>(plan.dp));
}

std::vector<int> Diloco::group_nodes(const CollectiveJob& job, int g) const {
  const CollectivePlan& plan = job.plan();
  const int per_group = plan.tp * plan.pp;
  std::vector<int> nodes;
  for (int r = g * per_group; r < (g + 1) * per_group; ++r)
    nodes.push_back(job.assignment().node_of(plan, r));
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

bool Diloco::group_up(const CollectiveJob& job, int g) const {
  const auto nodes = group_nodes(job, g);
  return std::all_of(nodes.begin(), nodes.end(),
                     [&](int n) { return job.nodes().up(n, job.now()); });
}

Assignment Diloco::next_assignment(const CollectiveJob& job) const {
  Assignment a = job.assignment();
  a.active = live_;
  a.streams.clear();
  for (std::size_t g = 0; g < live_.size(); ++g) {
    if (live_[g]) a.streams.push_back(static_cast<int>(g));
  }
  a.data_parallel.emplace();  // an inner step: no data-parallel collective
  if (outer_now()) {
    // The outer all-reduce of every data-parallel group (stage, slice) among the live groups
    // and those coming back (their copy started: they receive the outer gradient), after the
    // H-th inner step's update.
    for (int g : receiving_) a.active[static_cast<std::size_t>(g)] = true;
    a.data_parallel->push_back({CollectiveOp::ALL_REDUCE, StepPhase::AFTER_BACKWARD, outer_bytes_});
  }
  return a;
}

void Diloco::start_copy(CollectiveJob& job, int g) {
  const CollectivePlan& plan = job.plan();
  // Groups coming back copy from the live groups in turn (group g from the (g mod L)-th of
  // the L live ones), so that two copies do not share a source's links.
  std::vector<int> live;
  for (int l = 0; l < static_cast<int>(live_.size()); ++l) {
    if (live_[static_cast<std::size_t>(l)]) live.push_back(l);
  }
  const int source = live[static_cast<std::size_t>(g) % live.size()];
  const int per_group = plan.tp * plan.pp;
  // Rank r of the group copies from the same (stage, slice) rank of the source group: its
  // training state (what a restart would load of a checkpoint) and the outer momentum.
  std::vector<Flow> flows;
  for (int i = 0; i < per_group; ++i) {
    const int to = g * per_group + i;
    const int from = source * per_group + i;
    const double bytes =
        plan.checkpoint_read_bytes[static_cast<std::size_t>(to)] + copy_outer_bytes_;
    flows.push_back({job.network().host(from), job.network().host(to), bytes});
  }
  Heal& heal = *heal_[static_cast<std::size_t>(g)];
  heal.copy.emplace(flows);
  heal.copy_of = round_start_;
  heal.source = source;
  heal.copied = false;
  if (math_) heal.inner = math_->inner_optimizer(source);
}

void Diloco::update_copying() {
  copying_ = std::any_of(heal_.begin(), heal_.end(),
                         [](const auto& h) { return h && h->copy && !h->copied; });
}

void Diloco::poll(CollectiveJob& job) {
  const RestartConfig& restart = job.scenario().collective.recovery.restart;
  const double restart_seconds =
      restart.scheduler_delay + restart.process_start + job.plan().restart_init_seconds;
  for (int g = 0; g < static_cast<int>(live_.size()); ++g) {
    if (live_[static_cast<std::size_t>(g)]) continue;
    auto& heal = heal_[static_cast<std::size_t>(g)];
    if (!group_up(job, g)) {
      heal.reset();  // down (again): a copy under way is cancelled
      continue;
    }
    if (!heal) {
      // Its nodes are back: its processes restart (in the background: the others train on).
      double back = 0.0;
      for (int n : group_nodes(job, g)) back = std::max(back, job.nodes().back(n));
      heal.emplace();
      heal->ready_at = back + restart_seconds;
      job.recorder().event(job.now(), EventType::RESTART, "group-" + std::to_string(g),
                           {{"group", g}, {"ready_at", heal->ready_at}});
    }
    if (!heal->copy && job.now() >= heal->ready_at) start_copy(job, g);
    if (heal->copy && !heal->copied && heal->copy->done()) {
      heal->copied = true;
      job.recorder().event(job.now(), EventType::CHECKPOINT_LOADED, "group-" + std::to_string(g),
                           {{"group", g},
                            {"version", heal->copy_of},
                            {"from", "group-" + std::to_string(heal->source)}});
    }
  }
  update_copying();
  // Groups whose copy started receive the outer step about to run (its outer gradient updates
  // the outer parameters they copy); those whose copy ended join with the next round.
  receiving_.clear();
  joining_.clear();
  if (outer_now()) {
    for (int g = 0; g < static_cast<int>(heal_.size()); ++g) {
      const auto& heal = heal_[static_cast<std::size_t>(g)];
      if (!heal || !heal->copy) continue;
      receiving_.push_back(g);
      if (heal->copied) joining_.push_back(g);
    }
  }
  const Assignment next = next_assignment(job);
  if (!(next == job.assignment())) job.reassign(next);
}

void Diloco::publish(CollectiveJob& job) const {
  ReplicaMath::State state = job.math()->save();
  state.parameters = math_->outer();
  state.optimizer = nullptr;  // the job's own optimizer takes no step under DiLoCo
  job.math()->restore(state);
}

void Diloco::apply_update(CollectiveJob& job) {
  if (!math_) return;
  const std::vector<int>& groups = job.assignment().streams;
  math_->inner_step(groups);
  if (!outer_now()) return;
  math_->outer_step(groups, job.version() + 1);
  for (int g : joining_) math_->rejoin(g, *heal_[static_cast<std::size_t>(g)]->inner);
  publish(job);
}

Interrupt Diloco::after_step(CollectiveJob& job) {
  if (!outer_now()) {
    ++round_steps_;
    return Interrupt::NONE;
  }
  round_steps_ = 0;
  round_start_ = job.version();
  for (int g : joining_) {
    live_[static_cast<std::size_t>(g)] = true;
    heal_[static_cast<std::size_t>(g)].reset();
    job.recorder().event(job.now(), EventType::REPLICA_JOINED, "group-" + std::to_string(g),
                         {{"group", g}, {"version", job.version()}});
  }
  joining_.clear();
  receiving_.clear();
  update_copying();
  return Interrupt::NONE;
}

bool Diloco::recover(CollectiveJob& job) {
  // The groups the failure hit (its nodes, or any node down now): the live ones lose their
  // inner steps of this round, a joining one its copy. The others train on.
  const Outage& failure = job.failure();
  std::vector<int> dropped;
  for (int g = 0; g < static_cast<int>(live_.size()); ++g) {
    const bool receiving = std::find(receiving_.begin(), receiving_.end(), g) != receiving_.end();
    if (!live_[static_cast<std::size_t>(g)] && !receiving) continue;
    const auto nodes = group_nodes(job, g);
    const bool hit = !group_up(job, g) || std::any_of(nodes.begin(), nodes.end(), [&](int n) {
      return std::find(failure.nodes.begin(), failure.nodes.end(), n) != failure.nodes.end();
    });
    if (!hit) continue;
    dropped.push_back(g);
    heal_[static_cast<std::size_t>(g)].reset();
    if (!live_[static_cast<std::size_t>(g)]) continue;
    live_[static_cast<std::size_t>(g)] = false;
    // Its samples of this round never reach the outer parameters.
    const double per_group = job.plan().samples_per_step / job.plan().dp;
    job.counts().samples_rolled_back += job.ledger().discard_samples_after(round_start_, per_group);
  }
  joining_.clear();
  receiving_.clear();
  update_copying();
  std::vector<int> groups;
  for (int g = 0; g < static_cast<int>(live_.size()); ++g) {
    if (live_[static_cast<std::size_t>(g)]) groups.push_back(g);
  }
  job.recorder().event(job.now(), EventType::RESIZED, "job",
                       {{"groups", groups}, {"dropped", dropped}});
  if (groups.empty()) return restart_from_scratch(job);
  job.reassign(next_assignment(job));
  return true;
}

bool Diloco::restart_from_scratch(CollectiveJob& job) {
  // The outer parameters were in the groups' memory only: version 0 again, every group.
  for (auto& heal : heal_) heal.reset();
  update_copying();
  live_.assign(live_.size(), true);
  round_steps_ = 0;
  round_start_ = 0;
  job.roll_back_to(0, initial_);
  if (math_) math_->reset();
  job.reassign(next_assignment(job));
  while (true) {
    if (job.wait_for_nodes() == Interrupt::STOP) return false;
    const Interrupt i = job.restart_processes();
    if (i == Interrupt::STOP) return false;
    if (i == Interrupt::NONE) return true;
  }
}

void Diloco::finish(CollectiveJob& /*job*/) {
  for (auto& heal : heal_) heal.reset();
  copying_ = false;
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> diloco::make() { return std::make_unique<Diloco>(); }

}  // namespace failsim::sim
