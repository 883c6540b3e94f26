// The collective platform's root zone "cluster" as a topology builds it (topology.hpp): a SimGrid
// zone of failsim's own that holds every accelerator host directly and computes routes on demand,
// instead of a zone per node inside a SimGrid topology zone. SimGrid 3.32 checks each new name
// against every zone of the platform and lists the whole platform's hosts in every zone's
// seal(), so a zone per node made the construction quadratic in the nodes; one zone makes it
// linear (docs/performance.md, "Platform construction").
#pragma once

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <vector>

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace failsim::sim {

/// The root zone a topology's build() returns, unsealed, with the nodes' accelerators and the
/// links between them in it; the platform builder adds the file system and the coordinator, then
/// seals it.
class PlatformZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  /// Routes `file_system`, a host of this zone: from an accelerator its accelerator link, its
  /// node's NIC link up and `write`; back `read`, the NIC link down and the accelerator link
  /// (cluster_platform.hpp). A host of this zone that is neither an accelerator nor the file
  /// system (the coordinator) has no route: asking for one throws std::logic_error.
  virtual void add_file_system(simgrid::s4u::Host* file_system, simgrid::s4u::Link* write,
                               simgrid::s4u::Link* read) = 0;

  /// The links from `from` to `to` (hosts of this zone), appended to `out`, and the latency
  /// added to `*latency`, as Host::route_to gives them, without SimGrid's search of the zones:
  /// a route is asked for per flow at every assignment (flows.hpp, route_of).
  virtual void links(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                     std::vector<simgrid::s4u::Link*>& out, double* latency) const = 0;

 protected:
  using NetZoneImpl::NetZoneImpl;
};

}  // namespace failsim::sim
