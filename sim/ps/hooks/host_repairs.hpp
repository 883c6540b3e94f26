// What a process that wants to restart something on a host asks first: to wait until the host
// is repaired. The failure injector, which turns hosts off and on, answers it; the strategies
// (a replacement server, a replica) and the job (a worker stopped by a resize) ask.
#pragma once

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

class HostRepairs {
 public:
  virtual ~HostRepairs() = default;
  /// Blocks the calling actor until `host` is up (it may have failed again since a restart was
  /// scheduled). Returns false if it is down for good.
  virtual bool wait_until_up(simgrid::s4u::Host* host) = 0;
};

}  // namespace failsim::sim
