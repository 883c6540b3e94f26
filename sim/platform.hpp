// Builds the simulated platform of a scenario (built-in star or SimGrid XML file) and says which
// host plays which role.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace failsim::sim {

struct Roles {
  std::vector<simgrid::s4u::Host*> servers;
  std::vector<simgrid::s4u::Host*> workers;
  /// Runs the observer (evaluation schedule, stop conditions); it never communicates, so it
  /// needs no link, and it is not subject to failures.
  simgrid::s4u::Host* observer = nullptr;
};

/// Creates the platform in `engine` and maps roles to hosts. Star: hosts "server-<i>" and
/// "worker-<i>", each with its own split-duplex link ("<host>-link": one direction each way,
/// so sending and receiving do not share bandwidth) to a central switch. Platform file: loads
/// it and looks the role hosts up; an unknown host name is a ScenarioError naming `file_label`
/// and the JSON path of the name.
Roles build_platform(simgrid::s4u::Engine& engine, const ClusterConfig& cluster,
                     const std::string& file_label);

}  // namespace failsim::sim
