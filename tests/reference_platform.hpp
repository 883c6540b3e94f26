// The collective platform as failsim built it before the FabricZone (commit b275d41), kept as
// the reference the new one is checked against (test_fabric_routes.cpp) and timed against
// (bench/bench_platform.cpp): SimGrid 3.32's fat-tree zone "fabric" whose leaves are a star zone
// per node, the file system's star zone reached by bypass routes of the root, the coordinator in
// an empty zone. Its construction is quadratic in the nodes, and SimGrid's fat-tree allows one
// per process. Not used by failsim itself.
#pragma once

#include <string>

#include "sim/collective/network/cluster_hosts.hpp"
#include "sim/scenario/collective/config.hpp"

namespace simgrid::s4u {
class Engine;
}  // namespace simgrid::s4u

namespace failsim::testing {

/// Builds `config`'s platform the old way in `engine` (which holds no platform yet). Its
/// hosts, speeds and bandwidths are the new platform's; the fabric's links keep SimGrid's names
/// "link_from_<child>_<parent>_<serial>[_UP|_DOWN]" (reference_link_name translates them).
sim::ClusterPlatform build_reference_platform(simgrid::s4u::Engine& engine,
                                              const sim::ClusterPlatformConfig& config);

/// The name FabricZone gives the link SimGrid's fat-tree named `name` in the reference
/// platform of `config` ("node-<n>-nic_UP", "leaf-<l>-spine-<s>-<i>_DOWN", ...); other names
/// unchanged. Throws std::logic_error on a fat-tree link it cannot place.
std::string reference_link_name(const std::string& name, const sim::ClusterPlatformConfig& config);

}  // namespace failsim::testing
