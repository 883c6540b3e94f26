// The replica chain of the chain strategies ("chain", "stateless_chain"; docs/strategies.md):
// the server hosts (of the shard) after the head, in chain order, each running a replica process
// that keeps the last state it received. Every K updates the head sends its state to its successor,
// which stores it, forwards it to its own successor and acknowledges only once that one
// acknowledged (so an acknowledged state is on every live node). A failed replica is detected and
// dropped from the chain; a replacement for any failed node joins at the tail after the restart
// delay (once its host is up), receiving the tail's state. Which replica becomes the head, and what
// happens to the head's own protocol, is the strategy's.
#pragma once

#include <simgrid/s4u.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/ps/actors/messages.hpp"
#include "sim/ps/actors/parameter_server.hpp"
#include "sim/ps/recovery/replica_holder.hpp"
#include "sim/ps/recovery/strategy.hpp"
#include "sim/ps/run_context.hpp"

namespace failsim::sim {

/// A replica process: keeps the last state it received and passes it down the chain.
class Replica {
 public:
  /// Replica `id` of `shard`'s chain.
  Replica(RunContext& context, const Shard& shard, simgrid::s4u::Host* host, ServerState state,
          int id);

  void launch(std::function<Replica*(Replica*)> successor);
  void kill();
  bool alive() const { return alive_; }
  simgrid::s4u::Host* host() const { return host_; }
  simgrid::s4u::Mailbox* mailbox() const { return mailbox_; }
  const ServerState& state() const { return state_; }
  const std::string& name() const { return name_; }

  /// Sends `copy` to `next` and waits for its acknowledgement, each within the request timeout.
  /// False when it timed out (a dead successor: its failure is detected and repaired
  /// separately; meanwhile the chain ends before it).
  static bool forward(Replica& next, const StateCopy& copy, RunContext& context, const Shard& shard,
                      simgrid::s4u::Mailbox* ack);

 private:
  void serve();

  RunContext& context_;
  const Shard& shard_;
  simgrid::s4u::Host* host_;
  ServerState state_;
  simgrid::s4u::Mailbox* mailbox_;
  simgrid::s4u::Mailbox* ack_;
  std::string name_;
  std::function<Replica*(Replica*)> successor_;
  simgrid::s4u::ActorPtr actor_;
  bool alive_ = true;
};

class ReplicaChain {
 public:
  /// `head` names the current head server (the strategy's; dead or alive). `joined_headless`
  /// is called with a replacement that has just joined while the head is dead: the strategy
  /// promotes it if nothing else will. `orphaned` is called with the host of a replacement that
  /// comes due when no live node holds the parameters: true if the strategy took the host
  /// over (e.g. started a head from elsewhere), else the replacement records "no_replacement".
  ReplicaChain(RunContext& context, const Shard& shard, std::function<ParameterServer*()> head,
               std::function<void(Replica&)> joined_headless,
               std::function<bool(simgrid::s4u::Host*)> orphaned);

  /// A replica on `host` holding `state`, at the tail (at time 0).
  void add(simgrid::s4u::Host* host, ServerState state);
  /// No replica in the chain (live or not yet detected dead).
  bool empty() const { return chain_.empty(); }
  /// Sends `head`'s state down the chain and waits for the acknowledgement; records
  /// "replicated" or "replication_incomplete". Returns whether it was acknowledged.
  bool replicate(ParameterServer& head);
  /// The first replica in chain order that is up (the coordinator knows of every failure
  /// detected so far), or nullptr.
  Replica* first_live();
  /// `replica` leaves the chain to become the head: its process ends (the new server's runs
  /// on its host). Call it once the new head is started: starting an actor lets others run,
  /// and a replacement coming due meanwhile must still find the replica's state to join from.
  void promote(Replica& replica);
  /// The host of chain position `position` >= 1 (0 is the head) now, or nullptr.
  simgrid::s4u::Host* host_at(int position);
  /// A host failed on which no server runs: if a replica ran there it dies, is detected after
  /// the detection timeout, leaves the chain and is replaced; returns whether one did.
  bool fail(simgrid::s4u::Host* host, double host_back);
  /// A replacement node on `host` joins at the tail once the restart delay passed and its host
  /// is up; it starts from the tail's state (or the head's, with no replica left), sent over the
  /// network. With no live node holding the parameters, nothing joins ("no_replacement") unless
  /// `orphaned` takes the host.
  void replace(simgrid::s4u::Host* host, double host_back);

 private:
  /// A new replica process on `host`; it enters the chain (as the tail) when `in_chain`, else
  /// the caller adds it once it holds its state.
  Replica* add_replica(simgrid::s4u::Host* host, ServerState state, bool in_chain);

  RunContext& context_;
  const Shard& shard_;
  std::function<ParameterServer*()> head_;
  std::function<void(Replica&)> joined_headless_;
  std::function<bool(simgrid::s4u::Host*)> orphaned_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> chain_;  // live and not-yet-detected replicas, in chain order
};

/// What the chain strategies ("chain", "stateless_chain") share: a head server and the replica
/// chain behind it, and the failure injector's view of them (chain position 0 is the head).
class ChainedStrategy : public Strategy, public ReplicaHolder {
 public:
  ReplicaHolder* replicas() override { return this; }
  simgrid::s4u::Host* replica_host(int position) override;
  /// A replica's failure (detected by the failure injector through server_on -> nullptr).
  bool replica_failed(simgrid::s4u::Host* host, double host_back) override;

 protected:
  /// The chain's callbacks (ReplicaChain's constructor) other than the head, which is head_.
  ChainedStrategy(RunContext& context, const Shard& shard,
                  std::function<void(Replica&)> joined_headless,
                  std::function<bool(simgrid::s4u::Host*)> orphaned);

  ParameterServer* head_ = nullptr;
  ReplicaChain chain_;
};

}  // namespace failsim::sim
