// Turns the scenario's failures into events of the simulation (docs/failures.md): scheduled
// failures at a time or after an update, and stochastic failures drawn from the seed. A failure
// kills the target's process and, for `down_for` > 0, turns its host off for that long. The
// system learns of it only `detection_timeout` later (the coordination service's session
// timeout): then the coordinator updates its view and the strategy recovers; a failed worker is
// restarted on its host after `restart_delay` (once the host is up). What others ask of it are
// hooks (sim/ps/hooks/): the servers report their updates, the strategies and the job wait for
// repairs, the job restarts workers; it tells the job of repaired hosts (HostEvents).
#pragma once

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "sim/ps/hooks/host_events.hpp"
#include "sim/ps/hooks/host_repairs.hpp"
#include "sim/ps/hooks/update_events.hpp"
#include "sim/ps/hooks/worker_restarts.hpp"
#include "sim/ps/run_context.hpp"

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

class ParameterServer;
class Worker;

class FailureInjector : public UpdateEvents, public HostRepairs, public WorkerRestarts {
 public:
  /// `hosts`: told when a failed host is up again (the job).
  FailureInjector(RunContext& context, HostEvents& hosts);

  /// Starts the actors that fire timed and stochastic failures (on the coordinator host).
  void launch();
  /// Called by shard `shard`'s server after each update: fires the failures scheduled after
  /// that shard's update `n`.
  void after_update(int shard, std::int64_t n) override;
  /// Blocks the calling actor until `host` is up (it may have failed again since a restart was
  /// scheduled). Returns false if it is down for good.
  bool wait_until_up(simgrid::s4u::Host* host) override;
  /// Starts a new process of `worker` on its host (which is up) and tells the coordinator and
  /// the servers that it is live again ("restart" event).
  void restart_worker(Worker& worker) override;
  /// Adds the downtime of hosts still down at the end of the run (`end`: simulated seconds).
  void finish(double end);
  /// Records a `failure_not_injected` event at `end` for each of `events` (the scheduled events
  /// of the scenario the process's result is: sim/ps/branching.hpp) that never came due.
  void record_not_injected(const std::vector<FailureEvent>& events, double end);

 private:
  /// Fails the target of event `i` now.
  void fire(const FailureEvent& event, std::size_t i);
  /// The scheduled events that came due (injected or skipped), in order.
  std::vector<FailureEvent> due_;
  /// The host an event strikes now, or whose link it cuts: the event's shard's primary's for
  /// server and server_link, a worker's for worker and worker_link. Null when no such process
  /// is up.
  simgrid::s4u::Host* target_host(const FailureEvent& event) const;
  /// Turns the network link of `host` off for `down_for` (nullopt: for good). No process dies
  /// and nobody is told: requests through it fail or time out until it is back.
  void fail_link(simgrid::s4u::Host* host, std::optional<double> down_for,
                 const std::string& cause);
  /// Kills what runs on `host`, turns it off for `down_for` (nullopt: for good), and starts the
  /// detection and recovery timeline.
  void fail_host(simgrid::s4u::Host* host, std::optional<double> down_for,
                 const std::string& cause);

  /// What a host failure struck: the live server there and its strategy, the live worker, or
  /// whether a replica died (every shard has its own server hosts: at most one of them).
  struct Struck {
    ParameterServer* server = nullptr;
    Strategy* owner = nullptr;  ///< the strategy of `server`
    Worker* worker = nullptr;
    bool replica = false;
  };
  /// Finds the processes on `host`; a replica there dies now (its strategy replaces it).
  Struck strike(simgrid::s4u::Host* host, double host_back);
  /// The "failure" event and its log line.
  void record_failure(simgrid::s4u::Host* host, std::optional<double> down_for,
                      const std::string& cause, const Struck& struck, double now);
  /// Turns `host` off for `down_for` (nullopt: for good; 0: it stays up), and on again at
  /// `host_back`, telling whoever waits for it and the job.
  void power_off(simgrid::s4u::Host* host, std::optional<double> down_for, double now,
                 double host_back);
  /// After the detection timeout: the coordinator and the strategy learn of the failure, and a
  /// failed worker is restarted once its host is up.
  void detect(const Struck& struck, double host_back);

  /// The recovery strategy of shard `shard`.
  Strategy& strategy(int shard) const;

  RunContext& context_;
  HostEvents& hosts_;
  struct Outage {
    double since;
    double until;  // infinity: for good
  };
  std::map<simgrid::s4u::Host*, Outage> down_;  // hosts down now
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr host_up_;  // notified at every repair
};

}  // namespace failsim::sim
