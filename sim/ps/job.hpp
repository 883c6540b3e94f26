// The parameter server side of a run, generation by generation: the shards, their recovery
// strategies, and elastic resume (docs/strategies.md, "Elastic resume"), the idea of universal
// checkpointing. A run starts with generation 0: cluster.servers.shards shards. With
// recovery.checkpoint.elastic, a detected server failure whose host will not be back within the
// patience makes the job resize instead of waiting for the host:
//   1. every worker process stops (a job restart) and every shard stops: a live server writes
//      its state to its checkpoint storage, the failed shard rolls back to its last checkpoint;
//   2. after the restart delay, a new generation starts with one shard per server host that is
//      up, the model partitioned anew over them; each new shard's version 0 is its range of the
//      old checkpoints put together, which its server loads from the storage (disk read and
//      transfer) before the workers, restarted meanwhile, are served.
// When a server host comes back up and the job has fewer shards than hosts, it grows the same
// way. Without elastic there is one generation and the job only owns it.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sim/ps/hooks/host_events.hpp"
#include "sim/ps/hooks/resizes.hpp"
#include "sim/ps/run_context.hpp"
#include "sim/ps/sharding.hpp"

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

class Strategy;

/// What the strategies (Resizes) and the failure injector (HostEvents) ask of it are hooks.
class Job : public Resizes, public HostEvents {
 public:
  /// Generation 0 (not started): the model partitioned over cluster.servers.shards shards, a
  /// strategy each. Sets context.shards and context.strategies.
  explicit Job(RunContext& context);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() override;

  /// At time 0: starts generation 0's strategies.
  void start();
  /// `owner` detected the failure of its server, whose host is usable again at `host_back`
  /// (infinity: never). Returns whether the job resizes for it, so that `owner` must not replace
  /// the server: the job is elastic and the host will not be back within the patience.
  bool resizes_for(const Strategy& owner, double host_back) override;
  /// A host came back up: an elastic job with fewer shards than server hosts grows onto it.
  void host_up(simgrid::s4u::Host* host) override;
  /// Every generation's strategies, oldest first (a retired one's accounts stay readable).
  const std::vector<std::unique_ptr<Strategy>>& strategies() const { return strategies_; }

 private:
  void schedule_resize(const std::string& reason);
  /// Stops every worker process running now; install() starts them again.
  void stop_workers();
  /// The body of the resizing process (on the coordinator host).
  void resize(const std::string& reason);
  /// The next generation on `hosts`, from the running one's checkpoints.
  std::vector<Shard> reshard(const std::vector<simgrid::s4u::Host*>& hosts) const;
  /// Makes `shards` the running generation: their strategies, started; the stopped workers,
  /// restarted.
  void install(std::vector<Shard> shards);

  RunContext& context_;
  std::deque<std::vector<Shard>> generations_;  // a deque: strategies keep references to shards
  std::vector<std::unique_ptr<Strategy>> strategies_;
  std::vector<simgrid::s4u::Host*> in_use_;  // the running generation's server hosts
  bool resizing_ = false;
  std::vector<bool> stopped_;  // workers whose process a resize stopped
};

}  // namespace failsim::sim
