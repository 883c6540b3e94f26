// failsim's log lines (style.md 11, docs/cli.md#what---logfailsimthreshdebug-shows): each sim/
// file logs to its own SimGrid category under the root category `failsim` (declared in
// sim/run.cpp), formatted with fmt. Quiet by default: sim::run sets root.thresh:critical before
// SimGrid reads --log=. SimGrid prints the host, the actor and the simulated time before each.
//
// Two levels: FAILSIM_INFO for the decisions of a run (a failure injected or detected, a restart,
// a promotion, a roll-back, a resize, the stop), FAILSIM_VERBOSE for the details that recur (a
// request timing out, a gradient lost, the stale rule dropping gradients, a checkpoint written,
// an evaluation). Not XBT_DEBUG: a Release build (NDEBUG) compiles it out, and
// --log=failsim.thresh:debug must show something there too. The arguments are formatted only
// when the category is enabled.
#pragma once

#include <fmt/core.h>
#include <xbt/log.h>

#define FAILSIM_INFO(...) XBT_INFO("%s", fmt::format(__VA_ARGS__).c_str())
#define FAILSIM_VERBOSE(...) XBT_VERB("%s", fmt::format(__VA_ARGS__).c_str())
