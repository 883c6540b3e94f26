// Restarting a worker process: what the job asks when a worker it stopped for a resize lost its
// host meanwhile. The failure injector does it (it restarts the workers whose failure it
// detected the same way).
#pragma once

namespace failsim::sim {

class Worker;

class WorkerRestarts {
 public:
  virtual ~WorkerRestarts() = default;
  /// Starts a new process of `worker` on its host (which is up) and tells the coordinator and
  /// the servers that it is live again ("restart" event).
  virtual void restart_worker(Worker& worker) = 0;
};

}  // namespace failsim::sim
