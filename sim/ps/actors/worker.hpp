// A worker process: pull parameters, compute a real gradient on its own batch with exactly those
// parameters (costing gradient_flops on its host), push it; repeat. Requests go to whatever the
// coordinator names (the primary server, or the stateless store). A request that does not
// complete within failures.request_timeout is abandoned; the worker then waits until the
// coordinator names a newer endpoint (docs/failures.md). The Worker object outlives its
// processes: a restarted process continues the same batch stream.
//
// With sharded servers (docs/strategies.md, "Sharded servers") the worker pulls every shard's
// slice in parallel (a lane process per shard does exactly what the worker does alone without
// shards, retries included), puts the slices together, computes one gradient and pushes every
// shard its slice in parallel (each lane one blocking put; the pushes share the gradient's
// buffer). It cannot compute without every slice: while a shard is down
// it waits for that shard, keeping the slices it has, and the wait is recorded as a recovery wait.
#pragma once

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/ps/actors/endpoint.hpp"
#include "sim/ps/actors/messages.hpp"
#include "sim/ps/run_context.hpp"

namespace failsim::sim {

class Worker {
 public:
  Worker(RunContext& context, int index);

  /// Starts a process of this worker on its host (a new incarnation after a failure).
  void launch();
  /// The process dies now; a gradient it computed but had not delivered is lost.
  void kill();
  /// An elastic resize (job.hpp) stops the process: as kill(), but the time until the next
  /// process has every shard's parameters counts as waiting for recovery.
  void stop();
  /// Adds a recovery wait still going on at the end of the run (`end`: simulated seconds), also
  /// of a process a resize stopped.
  void finish(double end);
  /// Whether a process of this worker runs now.
  bool alive() const { return actor_ != nullptr; }
  /// Gradients computed and not yet delivered (pending if the run ends now).
  std::int64_t holding() const { return holding_; }
  int index() const { return index_; }

 private:
  void run();
  /// Puts a message within the request timeout. False if it timed out or the peer failed.
  bool send(Endpoint& target, std::unique_ptr<ServerMessage> message, double bytes);
  /// Pulls shard `shard`'s parameters from `target`; nullptr when the target is presumed dead.
  std::unique_ptr<ParamsReply> pull(Endpoint& target, int shard, std::int64_t epoch);
  /// Pulls shard `shard`'s parameters from whatever endpoint the coordinator names, until one
  /// answers (waiting for a new endpoint, retrying after a timeout); sets targets_[shard] and
  /// epochs_[shard] to the endpoint that answered.
  std::unique_ptr<ParamsReply> acquire(int shard);
  /// S > 1: starts this process's lanes, one process per shard on the worker's host, each
  /// waiting for a task.
  void start_lanes();
  /// S > 1: runs task(k) for every shard k at once, each on lane k, and waits for all of them.
  void for_each_shard(const std::function<void(std::size_t)>& task);
  /// S > 1: acquires every shard's parameters at once (on every lane).
  void acquire_all();
  /// S > 1: pushes `grad`'s slice to every shard at once (on every lane), each
  /// within the request timeout.
  void push_all(const std::shared_ptr<models::FloatBuffer>& grad, float loss);
  /// S > 1: the slices of replies_ put together in assembled_.
  const Snapshot& assemble();

  RunContext& context_;
  int index_;
  int incarnation_ = 0;
  int generation_ = -1;  // of the shards the per-shard state below is about (job.hpp)
  BatchStream batches_;
  std::int64_t step_ = 0;      // gradients started, over all incarnations (seeds dropout)
  std::int64_t requests_ = 0;  // pull requests sent
  std::int64_t holding_ = 0;   // gradient slices computed and not yet delivered
  double trouble_since_ = -1;  // when requests started failing: waiting for recovery since
  // Per shard: the next round this worker may compute (sync)...
  std::vector<std::int64_t> min_version_;
  std::vector<std::int64_t> min_version_epoch_;  // ...as long as the endpoint's epoch is this one
  std::vector<Endpoint*> targets_;               // the endpoint that answered the last pull
  std::vector<std::int64_t> epochs_;             // ...and its epoch then
  std::vector<std::unique_ptr<ParamsReply>> replies_;  // the last pull's answers
  std::vector<simgrid::s4u::Mailbox*> inboxes_;        // this incarnation's, one per shard
  // S > 1: the lanes of the running process (they die with it), what starts each, what they
  // signal when done, and the task they run.
  std::vector<simgrid::s4u::ActorPtr> lanes_;
  std::vector<simgrid::s4u::SemaphorePtr> lane_start_;
  simgrid::s4u::SemaphorePtr lanes_done_;
  const std::function<void(std::size_t)>* lane_task_ = nullptr;
  Snapshot assembled_;  // S > 1: every shard's slice
  simgrid::s4u::ActorPtr actor_;
};

}  // namespace failsim::sim
