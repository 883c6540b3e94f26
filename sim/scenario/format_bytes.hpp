// Sizes in messages ("1.5 GiB"): the one spelling of the resolve step's and the plan's checks and
// of the command line's reports. Engine-free.
#pragma once

#include <string>

namespace failsim::sim {

/// "1.5 GiB", "320 MiB", "12 kiB", "100 B": a size in messages.
std::string format_bytes(double bytes);

}  // namespace failsim::sim
