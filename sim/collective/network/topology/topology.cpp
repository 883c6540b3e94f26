// The dispatch by platform.topology.kind to the topologies' rooms (topologies.def).
#include "sim/collective/network/topology/topology.hpp"

#include <stdexcept>

#include <simgrid/s4u.hpp>

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

void check_topology(const ClusterPlatformConfig& config) {
  switch (config.topology.kind) {
#define FAILSIM_TOPOLOGY(KIND, room, spelling) \
  case TopologyKind::KIND:                     \
    return room::check(config);
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
  }
  throw std::logic_error("cluster platform: a topology kind outside topologies.def");
}

PlatformZone* build_topology(sg4::Engine& engine, const ClusterPlatformConfig& config,
                             ClusterPlatform& out) {
  switch (config.topology.kind) {
#define FAILSIM_TOPOLOGY(KIND, room, spelling) \
  case TopologyKind::KIND:                     \
    return room::build(engine, config, out);
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
  }
  throw std::logic_error("cluster platform: a topology kind outside topologies.def");
}

}  // namespace failsim::sim
