// SimGrid refuses a bad `--cfg`/`--log` setting or a malformed platform file by aborting the
// process: its XML parser throws through C code, where no handler can catch the exception. So
// before a run builds its engine, a forked child builds one with the same settings and loads
// the platform file, and the parent turns the child's death into one clear error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// failsim's default actor stack, in KiB (SimGrid's is 8192). The deepest actor needs much less
/// (docs/performance.md, "Scale": measured), and thousands of 8 MiB stacks do not fit in an
/// address-space limit; a user's --cfg=contexts/stack-size:N comes later and wins.
constexpr int DEFAULT_STACK_KIB = 256;
/// The stack size below which a run is refused: the deepest actor's measured need with a margin.
constexpr int MIN_STACK_KIB = 192;

/// The SimGrid arguments of a run: failsim's defaults (the stack size), then `user_args`.
std::vector<std::string> simgrid_arguments(const std::vector<std::string>& user_args);

/// The actors' stacks a run gets, as the probe found them.
struct ActorStacks {
  int kib = 0;         ///< contexts/stack-size
  double bytes = 0.0;  ///< every actor's stack and guard page (ResolvedJob::memory.actors of them)
};

/// Tries `simgrid_args` (e.g. "--cfg=network/model:CM02") in a child process and checks there:
///   - that the job's SimGrid actors fit: `job.memory.actors` stacks of the stack size the run
///     gets (contexts/stack-size) plus the job's resident memory within the address-space limit
///     (RLIMIT_AS, `ulimit -v`), two memory mappings per actor within vm.max_map_count, and a
///     stack of at least MIN_STACK_KIB;
///   - for a cluster of kind PLATFORM, that its platform file loads, that the host names the
///     scenario gives exist (check_platform_hosts), that the role hosts have speeds > 0, and
///     that every server host and every worker host are connected by a route whose links have
///     bandwidths > 0.
/// First, every --cfg= setting must be one failsim takes (check_simgrid_args,
/// simgrid_settings.hpp). Throws InputError when that fails, or when SimGrid rejects them:
///   `--cfg/--log: expected settings SimGrid 3.32 accepts, found --log=root.thresh:bogus
///    (Unknown priority name: bogus)`
///   `<file_label>: /cluster/platform: expected a platform file SimGrid 3.32 loads, found
///    lab.xml (Parse error at lab.xml:13: Invalid XML ...)`
/// Costs a fork and an empty engine: a few milliseconds. Returns the actors' stacks.
ActorStacks probe_simgrid_setup(const std::vector<std::string>& simgrid_args,
                                const Scenario& scenario, const ResolvedJob& job,
                                const std::string& file_label);

/// Throws InputError at the first server or worker host name of `cluster.platform` for which
/// `has_host` is false:
///   `<file_label>: /cluster/workers/hosts/1: expected the name of a host of lab.xml, found "pc9"`
void check_platform_hosts(const PlatformCluster& platform,
                          const std::function<bool(const std::string&)>& has_host,
                          const std::string& file_label);

}  // namespace failsim::sim
