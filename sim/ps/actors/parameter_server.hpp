// A parameter server process: holds the parameters, answers pulls, applies gradients by the
// consistency mode (docs/consistency.md).
//   async: each gradient is one update when it arrives.
//   ssp:   the same, but a pull is answered only when the asking worker's clock is within
//          `bound` of the slowest live worker's clock.
//   sync:  one update per round from one gradient of every live worker (sum or mean); pulls for
//          the next round wait for it.
// Each incarnation (the first server, a restarted or promoted one) is its own object with its
// own mailbox; the recovery strategy decides what state it starts from. A server holds its
// shard's slice of the parameters (all of them without sharding) and applies that slice of
// every gradient pushed to it.
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/apply_pending.hpp"
#include "models/optimizer.hpp"
#include "models/sgd.hpp"
#include "sim/ps/actors/endpoint.hpp"
#include "sim/ps/actors/inbox.hpp"
#include "sim/ps/actors/messages.hpp"
#include "sim/ps/hooks/server_owner.hpp"
#include "sim/ps/run_context.hpp"

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

struct Shard;

/// What a server starts from, and what checkpoints and replicas keep.
struct ServerState {
  SnapshotPtr snapshot;  ///< parameters and version
  /// The optimiser state; null for SGD without momentum.
  std::shared_ptr<const models::OptimizerState> optimizer;
};

class ParameterServer : public Endpoint {
 public:
  /// Incarnation `incarnation` of `owner`'s shard's server, on `host`.
  ParameterServer(RunContext& context, ServerOwner& owner, ServerState initial, int incarnation,
                  simgrid::s4u::Host* host);

  /// Starts the actor on its host; it runs its owner's run_server().
  void launch();
  /// The worker protocol: answers pulls and applies pushes by the consistency mode, until the
  /// run stops.
  void serve_workers();
  /// The process dies now (its host failed or it crashed): the actor is killed, its mailbox
  /// stops accepting messages, and the gradients it held unapplied are counted as lost.
  void kill();

  bool alive() const { return alive_; }
  std::int64_t version() const { return published_->version; }
  /// Gradients applied to produce the current parameters (Snapshot::gradients).
  std::int64_t gradients() const { return published_->gradients; }
  /// The current parameters as a shared snapshot (each update writes a new one: snapshots_).
  SnapshotPtr snapshot();
  /// Parameters, version and optimiser state, as a checkpoint or replica keeps them.
  ServerState state();
  void put(int worker, void* payload, std::uint64_t bytes, double timeout) override {
    inbox_.put(worker, payload, bytes, timeout);
  }
  /// Where workers and the strategy send their messages.
  Inbox& inbox() { return inbox_; }
  /// The mailbox for replies the server waits for by itself (the stateless store's).
  simgrid::s4u::Mailbox* mailbox() const { return inbox_.shared(); }
  simgrid::s4u::Host* host() const { return host_; }
  const std::string& name() const { return name_; }
  /// A worker's push reached this server's mailbox (it is now the server's to apply or lose).
  /// A push that completed after this server died (same instant as its kill, before the worker
  /// ran again) was not counted by kill(): it is lost now.
  void delivered() override;
  /// Gradients it holds unapplied (in its mailbox, a sync round, or a store batch it is applying):
  /// pending if the run ends now.
  std::int64_t unapplied() const;

  /// Replaces the parameters, version and optimiser state (a fresh server loading a checkpoint).
  void restore(const ServerState& state);
  /// Applies the stateless store's `batch` as one update by `rule` (costs update_flops per
  /// gradient on this host). While it is being applied the server holds it: lost if the server
  /// dies meanwhile.
  models::ApplyOutcome apply_batch(const PendingBatch& batch, const models::StaleRuleConfig& rule);

 private:
  /// Applies a sync round or an async gradient as one update by `rule`.
  models::ApplyOutcome apply(std::vector<GradientPush>& pushes,
                             const models::StaleRuleConfig& rule);
  // The pieces of an update, in order: the simulated time, the math (pending_ into `next`), each
  // gradient's accounting, and making `next` the current version.
  void charge(std::int64_t gradients);
  models::ApplyOutcome step(Snapshot& next, const models::StaleRuleConfig& rule);
  void record(std::int64_t staleness, float loss, const models::StaleRuleConfig& rule);
  models::ApplyOutcome publish(const std::shared_ptr<Snapshot>& next,
                               const models::ApplyOutcome& outcome);
  /// timing.server_evaluation: the CPU time of an evaluation in the server's loop, when due.
  void evaluate_in_loop();
  bool can_serve(const PullRequest& request) const;
  std::int64_t slowest_clock() const;
  std::int64_t clock(int worker) const;
  void on_membership_changed();
  void reply(const PullRequest& request);
  void serve_deferred();
  void defer(const PullRequest& request);
  void on_gradient(GradientPush push);
  void maybe_complete_round();
  /// Ends the run once the parameters have reached `stop.version` (after an update, or when a
  /// restarted server restores a state that has).
  void stop_at_version();

  RunContext& context_;
  ServerOwner& owner_;  // the recovery strategy of its shard
  const Shard& shard_;
  std::string name_;
  simgrid::s4u::Host* host_;
  Inbox inbox_;
  simgrid::s4u::ActorPtr actor_;
  bool alive_ = true;
  models::Optimizer optimizer_;
  SnapshotPtr published_;  // the current parameters, version and gradient count
  SnapshotPool snapshots_;
  models::StaleRuleConfig combine_;   // how a sync round's gradients are combined
  std::vector<std::int64_t> clocks_;  // gradients received per worker (SSP)
  std::vector<bool> known_live_;      // workers live at the last membership change
  std::deque<PullRequest> deferred_;
  std::vector<GradientPush> round_;               // gradients waiting to be applied (a sync round)
  std::vector<models::PendingGradient> pending_;  // scratch for apply_pending
  models::FloatBuffer combined_;                  // scratch for apply_pending
  std::int64_t delivered_ = 0;                    // pushes that reached the mailbox
  std::int64_t consumed_ = 0;                     // pushes taken out of the mailbox
  std::int64_t applying_ = 0;                     // gradients of a store batch being applied
};

}  // namespace failsim::sim
