// How a run survives (or does not survive) the failure of its parameter server: one small
// interface, one file per strategy (docs/strategies.md), registered by name in
// sim/ps/recovery/strategies.hpp. The strategy owns the server incarnations and any helper
// processes (storage, replicas, store). With sharded servers each shard has its own strategy
// object: its own servers, checkpoints, chain or store, holding only the shard's slice of the
// parameters (docs/strategies.md, "Sharded servers").
//
// What only some strategies do is an interface of its own, implemented beside this one:
// ElasticStrategy (elastic.hpp, elastic resume) and ReplicaHolder (replica_holder.hpp, a replica
// chain). A strategy declares them through elastic() and replicas(), which the job and the
// failure injector ask. What its servers ask of it is ServerOwner (sim/ps/hooks/server_owner.hpp).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sim/engine/snapshot.hpp"
#include "sim/ps/actors/parameter_server.hpp"
#include "sim/ps/hooks/server_owner.hpp"
#include "sim/ps/run_context.hpp"
#include "sim/ps/sharding.hpp"

namespace failsim::sim {

class ElasticStrategy;
class ReplicaHolder;

class Strategy : public ServerOwner {
 public:
  ~Strategy() override = default;

  /// At time 0: creates and launches the first server(s) and helper processes, and registers
  /// the primary with the coordinator.
  virtual void start() = 0;
  /// The body of a server's actor. Default: serve workers (ParameterServer::serve_workers);
  /// a strategy may first restore state (checkpoint) or run its own protocol (stateless).
  void run_server(ParameterServer& server) override;
  /// In the server's actor after each update (e.g. checkpoint every K updates). Default: nothing.
  void after_update(ParameterServer& /*server*/) override {}
  /// In the failure injector's actor, when the failure of `dead` has been detected. `host_back`
  /// is the simulated time its host is usable again (infinity: never).
  virtual void on_server_failure_detected(ParameterServer& dead, double host_back) = 0;
  /// The server whose failure a "server" event means: the primary now, or nullptr if none is up.
  virtual ParameterServer* primary() = 0;
  /// This shard's parameters as training would use them now (the observer evaluates every
  /// shard's, put together: RunContext::observed_snapshot).
  virtual SnapshotPtr observed_snapshot() = 0;
  /// Gradients the strategy's processes hold unapplied (pending if the run ends now).
  virtual std::int64_t pending_at_end();
  /// The most gradients held pending at once (the stateless store's memory spike); else 0.
  virtual std::int64_t peak_pending() const { return 0; }

  /// Its replica chain, if it holds one (the chained strategies return themselves): what a
  /// "replica" failure strikes and what a host's failure may kill. Default: none.
  virtual ReplicaHolder* replicas() { return nullptr; }
  /// Its elastic-resume side, if it can hand its shard over to a resize (single-level
  /// "checkpoint" returns itself): what the job drains and re-shards. Default: none.
  virtual ElasticStrategy* elastic() { return nullptr; }

  /// Whether a resize retired it (its processes are gone and it restarts nothing; elastic.hpp).
  bool retired() const { return retired_; }

  /// The live server process on `host`, if any.
  ParameterServer* server_on(simgrid::s4u::Host* host);
  /// Tells the primary server that the set of live workers changed (a control message).
  /// Strategies whose servers do not serve workers (the stateless ones) override it.
  virtual void membership_changed();
  /// Every server incarnation so far (dead ones included: their accounts stay readable).
  const std::vector<std::unique_ptr<ParameterServer>>& servers() const { return servers_; }
  const Shard& shard() const override { return shard_; }

 protected:
  Strategy(RunContext& context, const Shard& shard) : context_(context), shard_(shard) {}
  /// Version 0 of the shard's parameters, with the optimiser state it has after a resize.
  ServerState initial_state() const {
    return ServerState{shard_.initial, shard_.initial_optimizer};
  }
  /// Creates and launches a new server incarnation on `host`.
  ParameterServer* start_server(simgrid::s4u::Host* host, ServerState state);
  /// Replaces the dead server on its host once the restart delay has passed and the host is up
  /// (never, if it is down for good, or if a resize retires the strategy meanwhile): records
  /// "restart" with `details` and calls `start`.
  /// `elsewhere`: a host to replace it on instead of its own (`host_back` is then that host's).
  void restart_later(ParameterServer& dead, double host_back,
                     std::function<nlohmann::json()> details,
                     std::function<void(simgrid::s4u::Host*)> start,
                     simgrid::s4u::Host* elsewhere = nullptr);

  /// Remembers `dead`'s version and gradient count: what a later rollback loses from. Call it
  /// for the server that died holding the training state (not for a replacement that died
  /// before it held any).
  void remember_lost(const ParameterServer& dead);
  /// Counts the remembered server's updates after `restored` (and the gradients they held) as
  /// rolled back; returns the updates lost. Clamped at 0: the restored state may come from
  /// another lineage with a higher version. It happens when a copy written by an older
  /// incarnation lands after a newer incarnation loaded an older one: a multi-level persister
  /// outlives a server crash and finishes its write (strategy_checkpoint_multilevel.cpp), and a
  /// single-level checkpoint still travelling to the storage when its sender died is written
  /// after the replacement loaded (when the transfer outlasts detection plus restart). Nothing
  /// of the dead server is lost then that a count could express: 0.
  std::int64_t roll_back_to(const Snapshot& restored);

  RunContext& context_;
  const Shard& shard_;
  std::vector<std::unique_ptr<ParameterServer>> servers_;
  bool retired_ = false;

 private:
  std::int64_t lost_version_ = 0;
  std::int64_t lost_gradients_ = 0;
};

}  // namespace failsim::sim
