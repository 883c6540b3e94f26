// The external store of the stateless strategies ("stateless", "stateless_chain";
// docs/strategies.md): the workers' endpoint. Workers pull the parameters the store holds and
// push their gradients to its pending list, whether or not a server is up; a server takes
// everything pending (TakePending), reads the stored parameters when it restarts (ReadParams)
// and publishes new parameters (a StateCopy). Also how a server applies a batch of pending
// gradients: the scenario's stale rule (rule_config).
#pragma once

#include <simgrid/s4u/Mailbox.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <variant>
#include <vector>

#include "models/apply_pending.hpp"
#include "models/sgd.hpp"
#include "sim/ps/actors/buffer_pool.hpp"
#include "sim/ps/actors/endpoint.hpp"
#include "sim/ps/actors/messages.hpp"
#include "sim/ps/actors/parameter_server.hpp"
#include "sim/ps/recovery/stateless/settings.hpp"
#include "sim/ps/run_context.hpp"

namespace failsim::sim {

/// A server asks the store for every pending gradient (answered once there is at least one).
struct TakePending {
  simgrid::s4u::Mailbox* reply_to = nullptr;
};
/// A server asks for the stored parameters (a restarting server).
struct ReadParams {
  simgrid::s4u::Mailbox* reply_to = nullptr;
};
using StoreRequest = std::variant<TakePending, ReadParams, StateCopy>;

/// How a server applies pending gradients: recovery.stateless as the models' stale rule.
models::StaleRuleConfig rule_config(const StatelessConfig& c);

class StatelessStore final : public Endpoint {
 public:
  /// The store of `shard`'s parameters and gradient slices; its servers apply what it held by
  /// `stateless`'s rule.
  StatelessStore(RunContext& context, const Shard& shard, const StatelessConfig& stateless);

  void put(int /*worker*/, void* payload, std::uint64_t bytes, double timeout) override {
    mailbox_->put(payload, bytes, timeout);
  }
  void delivered() override { ++delivered_; }
  /// Where servers send their StoreRequests.
  simgrid::s4u::Mailbox* server_inbox() const { return server_inbox_; }
  /// The parameters workers pull now: the last ones a server published.
  SnapshotPtr latest() const { return latest_; }
  /// Gradients that reached the store and no server has taken.
  std::int64_t pending() const { return delivered_ - consumed_ + pending_.count; }
  std::int64_t peak_pending() const { return peak_pending_; }
  /// A server got `count` gradients it had taken (PendingBatch arrived).
  void received(std::int64_t count) { received_ += count; }
  /// Gradients taken by servers but not (yet) received: on their way to a server.
  std::int64_t in_flight() const { return sent_ - received_; }
  /// The failure of the server waiting on `inbox` was detected: stop sending to it. The batch
  /// on its way to it, if any, is lost with it: returns how many gradients (counted received).
  std::int64_t forget_server(simgrid::s4u::Mailbox* inbox);
  /// The next parameters published are the first after a recovery: evaluate them on arrival.
  void evaluate_next_publish() { evaluate_next_publish_ = true; }

  /// A server has applied `batch`: its sums' buffers serve again.
  void recycle(PendingBatch& batch);

  void launch();
  RunContext& context() const { return context_; }
  /// How a server applies what the store held: the strategy's stateless settings.
  const models::StaleRuleConfig& rule() const { return rule_; }

 private:
  void serve();
  void on_worker(std::unique_ptr<ServerMessage> message);
  void on_server(std::unique_ptr<StoreRequest> request);
  void send_pending();
  /// Adds the shard's slice of `push` to its group (a new one if none matches).
  void hold(const GradientPush& push);

  RunContext& context_;
  const Shard& shard_;
  simgrid::s4u::Mailbox* mailbox_;
  simgrid::s4u::Mailbox* server_inbox_;
  SnapshotPtr latest_;
  std::shared_ptr<const models::OptimizerState> optimizer_;
  models::StaleRuleConfig rule_;
  PendingBatch pending_;
  BufferPool sums_;  // the groups' buffers, the shard's size
  std::int64_t delivered_ = 0, consumed_ = 0, peak_pending_ = 0, sent_ = 0, received_ = 0;
  simgrid::s4u::Mailbox* waiting_server_ = nullptr;  // a server waiting for gradients
  bool evaluate_next_publish_ = false;
  ServerMessage* worker_message_ = nullptr;
  StoreRequest* server_message_ = nullptr;
};

/// A server's blocking send of `request` (`bytes` simulated) to the store.
void send_to_store(StatelessStore& store, StoreRequest* request, double bytes);

/// The body of a server of the stateless strategies. It first reads the stored parameters when
/// `read_stored` (a restarted server), then until the run stops: takes everything pending from
/// the store and applies it as one update by the store's rule, then calls `after_batch` (true for
/// the first batch of a `recovered` server, which is also recorded as "pending_applied").
void serve_from_store(ParameterServer& server, StatelessStore& store, bool read_stored,
                      bool recovered,
                      const std::function<void(bool first_after_recovery)>& after_batch);

/// Bytes of a state of `shard` sent over the network: its parameters, plus the optimiser state
/// when there is one.
double state_bytes(const Shard& shard, const ServerState& state);

}  // namespace failsim::sim
