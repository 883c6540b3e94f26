// SimGrid refuses a bad `--cfg`/`--log` setting or a malformed platform file by aborting the
// process: its XML parser throws through C code, where no handler can catch the exception. So
// before a run builds its engine, a forked child builds one with the same settings and loads
// the platform file, and the parent turns the child's death into one clear error.
#pragma once

#include <string>
#include <vector>

namespace failsim::sim {

/// Tries `simgrid_args` (e.g. "--cfg=network/model:CM02") and, unless `platform_file` is empty,
/// the platform file in a child process. Throws InputError when SimGrid rejects them:
///   `--cfg/--log: expected settings SimGrid 3.32 accepts, found --cfg=network/model:Nope
///    (Model 'Nope' is invalid! Valid models are: ...)`
///   `<file_label>: /cluster/platform: expected a platform file SimGrid 3.32 loads, found
///    lab.xml (Parse error at lab.xml:13: Invalid XML ...)`
/// Costs a fork and an empty engine: a few milliseconds.
void probe_simgrid_setup(const std::vector<std::string>& simgrid_args,
                         const std::string& platform_file, const std::string& file_label);

}  // namespace failsim::sim
