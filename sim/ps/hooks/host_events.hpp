// What the failure injector tells the job about hosts: one came back up after a repair (an
// elastic job may grow onto it, sim/ps/job.hpp).
#pragma once

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

class HostEvents {
 public:
  virtual ~HostEvents() = default;
  /// `host` is up again (its "host_up" event is recorded).
  virtual void host_up(simgrid::s4u::Host* host) = 0;
};

}  // namespace failsim::sim
