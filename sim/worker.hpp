// A worker process: pull parameters, compute a real gradient on its own batch with exactly those
// parameters (costing gradient_flops on its host), push it; repeat. Requests go to whatever the
// coordinator names (the primary server, or the stateless store). A request that does not
// complete within failures.request_timeout is abandoned; the worker then waits until the
// coordinator names a newer endpoint (docs/failures.md). The Worker object outlives its
// processes: a restarted process continues the same batch stream.
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include <cstdint>
#include <memory>

#include "sim/endpoint.hpp"
#include "sim/messages.hpp"
#include "sim/run_context.hpp"

namespace failsim::sim {

class Worker {
 public:
  Worker(RunContext& context, int index);

  /// Starts a process of this worker on its host (a new incarnation after a failure).
  void launch();
  /// The process dies now; a gradient it computed but had not delivered is lost.
  void kill();
  /// Adds a recovery wait still going on at the end of the run (`end`: simulated seconds).
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
  /// Pulls parameters from `target`; nullptr when the target is presumed dead.
  std::unique_ptr<ParamsReply> pull(Endpoint& target, std::int64_t epoch);

  RunContext& context_;
  int index_;
  int incarnation_ = 0;
  BatchStream batches_;
  std::int64_t step_ = 0;      // gradients started, over all incarnations (seeds dropout)
  std::int64_t requests_ = 0;  // pull requests sent
  std::int64_t holding_ = 0;
  double trouble_since_ = -1;     // when requests started failing: waiting for recovery since
  std::int64_t min_version_ = 0;  // sync: the next round this worker may compute...
  std::int64_t min_version_epoch_ = -1;  // ...as long as the endpoint's epoch is this one
  simgrid::s4u::Mailbox* inbox_ = nullptr;
  simgrid::s4u::ActorPtr actor_;
};

}  // namespace failsim::sim
