// The failure injector's view of a strategy with a replica chain ("chain", "stateless_chain";
// replica_chain.hpp): where chain position i runs now (failure target "replica"), and the
// failure of a host on which only a replica ran. Implemented beside Strategy by the chained
// strategies, which declare it by overriding Strategy::replicas().
#pragma once

#include <simgrid/s4u/Host.hpp>

namespace failsim::sim {

class ReplicaHolder {
 public:
  virtual ~ReplicaHolder() = default;

  /// The host of chain position `position` now (0 = head), or nullptr.
  virtual simgrid::s4u::Host* replica_host(int position) = 0;
  /// A host failed on which no server or worker runs: if a replica ran there, it dies and is
  /// detected and replaced; returns whether one did.
  virtual bool replica_failed(simgrid::s4u::Host* host, double host_back) = 0;
};

}  // namespace failsim::sim
