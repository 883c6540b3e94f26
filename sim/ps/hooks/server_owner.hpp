// What a parameter server process asks of the recovery strategy that owns it: its shard, the body
// of its actor, and the strategy's work after each update. Strategy (sim/ps/recovery/strategy.hpp)
// implements it; the server knows nothing else of recovery.
#pragma once

namespace failsim::sim {

class ParameterServer;
struct Shard;

class ServerOwner {
 public:
  virtual ~ServerOwner() = default;
  /// The shard the server holds (an element of context.shards).
  virtual const Shard& shard() const = 0;
  /// The body of the server's actor (the worker protocol, after restoring state if any).
  virtual void run_server(ParameterServer& server) = 0;
  /// In the server's actor after each update (e.g. a checkpoint every K updates).
  virtual void after_update(ParameterServer& server) = 0;
};

}  // namespace failsim::sim
