#include "sim/collective/recovery/live_migration/live_migration.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/collective/job/collective_job.hpp"
#include "sim/collective/recovery/live_migration/settings.hpp"
#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(live_migration, failsim,
                                "live migration of a failed node's ranks to a warm standby");

namespace failsim::sim {

namespace {
std::string node_name(int n) { return "node-" + std::to_string(n); }
}  // namespace

LiveMigration::Attempt LiveMigration::attempt(Interrupt i) {
  return i == Interrupt::STOP ? Attempt::STOP : Attempt::FAILURE;
}

void LiveMigration::start(CollectiveJob& job) {
  checkpoints_.start(job);
  const std::size_t plan_nodes = job.assignment().node.size();
  joined_.assign(plan_nodes, 0.0);
  pending_.assign(plan_nodes, 0);
  moved_.assign(plan_nodes, 0);
}

bool LiveMigration::failed(const CollectiveJob& job, int p) const {
  // Its node was up when its processes started there: an outage that ends after that began
  // after, and killed them (a failure shorter than the detection leaves the node up again).
  const int n = job.assignment().node[static_cast<std::size_t>(p)];
  return !job.nodes().up(n, job.now()) ||
         job.nodes().back(n) > joined_[static_cast<std::size_t>(p)];
}

int LiveMigration::source_replica(const CollectiveJob& job, int rank) const {
  // With ZeRO 0 (the resolve step's demand) every replica of (p, t) holds the same parameters and
  // optimizer state; one whose node kept its processes and has its state can send it.
  const CollectivePlan& plan = job.plan();
  const RankCoordinates c = plan.coordinates(rank);
  for (int k = 1; k < plan.dp; ++k) {
    const int d = (c.d + k) % plan.dp;
    const int peer = plan.rank_of({d, c.p, c.t});
    if (pending_[static_cast<std::size_t>(plan.node_of_rank[static_cast<std::size_t>(peer)])] ==
        0) {
      return d;
    }
  }
  return -1;
}

std::vector<int> LiveMigration::ranks_of(const CollectiveJob& job,
                                         const std::vector<char>& nodes) const {
  const CollectivePlan& plan = job.plan();
  std::vector<int> ranks;
  for (std::size_t p = 0; p < nodes.size(); ++p) {
    if (nodes[p] == 0) continue;
    const int first = static_cast<int>(p) * plan.accelerators_per_node;
    for (int r = first; r < std::min(first + plan.accelerators_per_node, plan.ranks()); ++r)
      ranks.push_back(r);
  }
  return ranks;
}

std::vector<Flow> LiveMigration::copy_flows(CollectiveJob& job) const {
  // Each rank receives what a checkpoint of it holds (what a restart would read back), from the
  // rank of the same stage and tensor shard in its source replica, accelerator to accelerator.
  const CollectivePlan& plan = job.plan();
  std::vector<Flow> flows;
  for (const int r : ranks_of(job, pending_)) {
    const RankCoordinates c = plan.coordinates(r);
    const int source = plan.rank_of({source_replica(job, r), c.p, c.t});
    flows.push_back({job.network().host(source), job.network().host(r),
                     plan.checkpoint_read_bytes[static_cast<std::size_t>(r)]});
  }
  return flows;
}

double LiveMigration::rebuild_seconds(const CollectiveJob& job) const {
  const auto& config = job.scenario().collective.recovery.get<LiveMigrationConfig>();
  if (config.communicator_init) return *config.communicator_init;
  // The restart's rendezvous (init_base + init_per_rank x ranks) over the ranks of the groups
  // that include a moved rank: its tensor-parallel group, its pipeline, its data-parallel group
  // (those of more than one rank); every other communicator stays as it was.
  const CollectivePlan& plan = job.plan();
  std::vector<char> member(static_cast<std::size_t>(plan.ranks()), 0);
  for (const int r : ranks_of(job, moved_)) {
    const RankCoordinates c = plan.coordinates(r);
    if (plan.tp > 1) {
      for (int t = 0; t < plan.tp; ++t)
        member[static_cast<std::size_t>(plan.rank_of({c.d, c.p, t}))] = 1;
    }
    if (plan.pp > 1) {
      for (int p = 0; p < plan.pp; ++p)
        member[static_cast<std::size_t>(plan.rank_of({c.d, p, c.t}))] = 1;
    }
    for (int d = 0; d < plan.dp; ++d)
      member[static_cast<std::size_t>(plan.rank_of({d, c.p, c.t}))] = 1;
  }
  const auto ranks = static_cast<double>(std::count(member.begin(), member.end(), 1));
  const RestartConfig& restart = job.scenario().collective.recovery.restart;
  return restart.init_base + restart.init_per_rank * ranks;
}

std::optional<std::vector<int>> LiveMigration::mark_failed(CollectiveJob& job) {
  std::vector<int> in_place;
  int down = 0;
  for (std::size_t p = 0; p < pending_.size(); ++p) {
    if (!failed(job, static_cast<int>(p))) continue;
    pending_[p] = 1;
    moved_[p] = 1;
    if (job.nodes().up(job.assignment().node[p], job.now())) {
      in_place.push_back(static_cast<int>(p));
    } else {
      ++down;
    }
  }
  if (down > job.spares_up()) return std::nullopt;
  for (const int r : ranks_of(job, pending_)) {
    if (source_replica(job, r) < 0) return std::nullopt;
  }
  return in_place;
}

LiveMigration::Attempt LiveMigration::take_standbys(CollectiveJob& job,
                                                    const std::vector<int>& in_place) {
  // The spare pool's swap: every down node in use gets a standby at once (mark_failed saw the
  // pool has enough up), whose processes are already running (warm).
  const std::vector<int> before = job.assignment().node;
  if (job.wait_for_nodes() == Interrupt::STOP) return Attempt::STOP;
  for (std::size_t p = 0; p < before.size(); ++p) {
    if (job.assignment().node[p] != before[p]) joined_[p] = job.now();
  }
  if (in_place.empty()) return Attempt::MIGRATED;
  // A failed node already back starts its own processes again (it is allocated: no scheduler).
  const double start = job.scenario().collective.recovery.restart.process_start;
  const Interrupt i = job.sleep_until(job.now() + start, TimeCause::RESTART);
  if (i != Interrupt::NONE) return attempt(i);
  for (const int p : in_place) joined_[static_cast<std::size_t>(p)] = job.now();
  return Attempt::MIGRATED;
}

LiveMigration::Attempt LiveMigration::copy_state(CollectiveJob& job) {
  const std::vector<Flow> copy = copy_flows(job);
  double bytes = 0.0;
  for (const Flow& f : copy) bytes += f.bytes;
  const Interrupt i = job.transfer(copy, TimeCause::CHECKPOINT_LOAD, "live migration copy");
  if (i != Interrupt::NONE) return attempt(i);
  std::vector<int> nodes;
  for (std::size_t p = 0; p < pending_.size(); ++p) {
    if (pending_[p] == 0) continue;
    nodes.push_back(job.assignment().node[p]);
    pending_[p] = 0;
  }
  if (!nodes.empty()) {
    job.recorder().event(job.now(), EventType::CHECKPOINT_LOADED, node_name(nodes.front()),
                         {{"version", job.version()},
                          {"from", "data-parallel-peer"},
                          {"nodes", nodes},
                          {"bytes", bytes}});
  }
  return Attempt::MIGRATED;
}

LiveMigration::Attempt LiveMigration::migrate(CollectiveJob& job) {
  // 1. Which plan nodes lost their processes; whether standbys and peers are there for them.
  const std::optional<std::vector<int>> in_place = mark_failed(job);
  if (!in_place) return Attempt::FALL_BACK;
  // 2. Standbys for the nodes still down, in-place restarts for those back.
  if (const Attempt a = take_standbys(job, *in_place); a != Attempt::MIGRATED) return a;
  // 3. The state, from the peers.
  if (const Attempt a = copy_state(job); a != Attempt::MIGRATED) return a;
  // 4. The communicators of the groups with a moved rank.
  const Interrupt i = job.sleep_until(job.now() + rebuild_seconds(job), TimeCause::RESTART);
  if (i != Interrupt::NONE) return attempt(i);
  std::fill(moved_.begin(), moved_.end(), 0);
  FAILSIM_INFO("migrated at {:.3f} s, version {}", job.now(), job.version());
  return Attempt::MIGRATED;
}

bool LiveMigration::recover(CollectiveJob& job) {
  // The failed node's ranks were writing their shares of a checkpoint under way, if any: lost.
  checkpoints_.drop_write();
  while (true) {
    switch (migrate(job)) {
      case Attempt::MIGRATED:
        return true;
      case Attempt::STOP:
        return false;
      case Attempt::FAILURE:
        continue;  // another node failed meanwhile (taken): try again with it
      case Attempt::FALL_BACK: {
        FAILSIM_INFO("no standby or no live peer at {:.3f} s: checkpoint-restart", job.now());
        const bool back = checkpoints_.recover(job);
        // Every process started again; every rank loaded the checkpoint.
        std::fill(joined_.begin(), joined_.end(), job.now());
        std::fill(pending_.begin(), pending_.end(), 0);
        std::fill(moved_.begin(), moved_.end(), 0);
        return back;
      }
    }
  }
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> live_migration::make() {
  return std::make_unique<LiveMigration>();
}

}  // namespace failsim::sim
