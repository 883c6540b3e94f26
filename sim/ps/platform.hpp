// Builds the simulated platform of a scenario (built-in star or SimGrid XML file) and says which
// host plays which role.
#pragma once

#include <string>
#include <vector>

#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/scenario/scenario.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace failsim::sim {

struct Roles {
  std::vector<simgrid::s4u::Host*> servers;
  std::vector<simgrid::s4u::Host*> workers;
  /// Checkpoint storage and the stateless store; it has a disk named "disk". Star only for now.
  simgrid::s4u::Host* storage = nullptr;
  /// Runs the coordination service, the failure injector and the observer; never fails. In the
  /// star it has a link like every host (its notifications cost network time); with a platform
  /// file it has none, so failures and recovery need the star for now.
  simgrid::s4u::Host* coordinator = nullptr;
};

/// Creates the platform in `engine` and maps roles to hosts. Star: hosts "server-<i>",
/// "worker-<i>", "storage" and "coordinator", each with its own split-duplex link ("<host>-link":
/// one direction each way, so sending and receiving do not share bandwidth) to a central switch.
/// Platform file: loads it and looks the role hosts up; an unknown host name is a InputError
/// naming `file_label` and the JSON path of the name. `local_disk` (star only): the multi-level
/// checkpoint's local-disk level, if any; every server host then has a disk "local-disk" with
/// its bandwidths.
Roles build_platform(simgrid::s4u::Engine& engine, const ClusterConfig& cluster,
                     const std::string& file_label, const CheckpointLevel* local_disk = nullptr);

}  // namespace failsim::sim
