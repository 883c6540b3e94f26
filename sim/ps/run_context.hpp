// What the actors of one run share: the scenario, the math, the recorder, the time model, the
// coordinator, the shards and their recovery strategies, the stop signal, and the hooks through
// which actors and strategies reach the job and the failure injector (sim/ps/hooks/, one
// interface each). One object per simulation, built whole by run_ps() (run_ps.cpp): the hooks
// are bound at construction; only run state (shards, strategies, workers, stop_reason,
// on_evaluation, the observed cache) changes afterwards.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/engine/snapshot.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/output/recorder.hpp"
#include "sim/ps/actors/buffer_pool.hpp"
#include "sim/ps/coordinator.hpp"
#include "sim/ps/hooks/host_repairs.hpp"
#include "sim/ps/hooks/resizes.hpp"
#include "sim/ps/hooks/update_events.hpp"
#include "sim/ps/hooks/worker_restarts.hpp"
#include "sim/ps/platform.hpp"
#include "sim/ps/sharding.hpp"
#include "sim/scenario/ps/time_model.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

class Branching;
class Strategy;
class Worker;

struct RunContext {
  const Scenario& scenario;
  TrainingMath& math;
  Recorder& recorder;
  TimeModel time;
  /// Generation 0's shards as the resolve step partitioned them (sim/scenario/resolve.hpp).
  std::vector<ShardShare> first_shards;
  BufferPool gradient_buffers;
  Coordinator coordinator;
  Roles roles;
  Branching& branching;      ///< the scenarios this simulation stands for (branching.hpp)
  UpdateEvents& updates;     ///< told of every update (the failure injector)
  HostRepairs& repairs;      ///< waits for a host's repair (the failure injector)
  WorkerRestarts& restarts;  ///< restarts a worker process (the failure injector)
  Resizes& resizes;          ///< elastic resume (the job)
  /// The running generation's parameter server shards (one without sharding; job.hpp).
  std::span<const Shard> shards{};
  std::vector<Strategy*> strategies{};  ///< one per shard, in shard order
  std::vector<std::unique_ptr<Worker>> workers{};
  std::string stop_reason{};                               ///< set once by request_stop()
  std::function<void(const EvalRecord&)> on_evaluation{};  ///< e.g. the CLI's progress line

  /// Ends the simulation now: records why, then kills every other actor (the caller returns).
  void request_stop(const std::string& reason);
  bool stopping() const { return !stop_reason.empty(); }
  /// The parameters training would use now: every shard's strategy's observed snapshot, put
  /// together (S = 1: shard 0's snapshot itself). Its version and gradient count are the sums
  /// of the shards'. Made again only when a shard's snapshot changed.
  SnapshotPtr observed_snapshot();

  // observed_snapshot()'s last answer with S > 1, and the shards' snapshots it was made of
  // (public only so that RunContext stays an aggregate).
  SnapshotPtr observed_cache{};
  std::vector<SnapshotPtr> observed_cache_parts{};
};

}  // namespace failsim::sim
