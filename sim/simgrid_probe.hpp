// SimGrid refuses a bad `--cfg`/`--log` setting or a malformed platform file by aborting the
// process: its XML parser throws through C code, where no handler can catch the exception. So
// before a run builds its engine, a forked child builds one with the same settings and loads
// the platform file, and the parent turns the child's death into one clear error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// Tries `simgrid_args` (e.g. "--cfg=network/model:CM02") and, for a cluster of kind PLATFORM,
/// loads its platform file in a child process and checks the host names the scenario gives
/// (check_platform_hosts). Throws InputError when SimGrid rejects them:
///   `--cfg/--log: expected settings SimGrid 3.32 accepts, found --cfg=network/model:Nope
///    (Model 'Nope' is invalid! Valid models are: ...)`
///   `<file_label>: /cluster/platform: expected a platform file SimGrid 3.32 loads, found
///    lab.xml (Parse error at lab.xml:13: Invalid XML ...)`
/// Costs a fork and an empty engine: a few milliseconds.
void probe_simgrid_setup(const std::vector<std::string>& simgrid_args, const ClusterConfig& cluster,
                         const std::string& file_label);

/// Throws InputError at the first server or worker host name of `cluster.platform` for which
/// `has_host` is false:
///   `<file_label>: /cluster/workers/hosts/1: expected the name of a host of lab.xml, found "pc9"`
void check_platform_hosts(const PlatformCluster& platform,
                          const std::function<bool(const std::string&)>& has_host,
                          const std::string& file_label);

}  // namespace failsim::sim
