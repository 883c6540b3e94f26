// Ctrl-C and SIGTERM during a run's set-up (docs/cli.md, "Interruptions"): the simulation sees a
// signal when its clock advances (run_setup.hpp), but the platform, the step network and the job
// are built before it runs, in loops as long as the input. Those loops look for a signal here.
#pragma once

#include <string_view>

#include "input/interrupt.hpp"

namespace failsim::sim {

/// input::poll_interrupt for a set-up loop that may also run inside an actor (the step network,
/// rebuilt after a failure): throws input::Interrupted only from SimGrid's maestro (before the
/// run, or in its callbacks), since an exception that escapes an actor aborts the process. In an
/// actor the signal is seen at the clock's next advance instead.
void poll_outside_actors(long long i, long long n, std::string_view doing, std::string_view unit,
                         long long every = input::POLL_EVERY);

}  // namespace failsim::sim
