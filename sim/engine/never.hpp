// The simulated time of something that never comes: a failure not scheduled, a node never
// repaired, a wake-up with nothing to wait for. One constant, so that every comparison with it
// means the same (and a unity build sees one definition).
#pragma once

#include <limits>

namespace failsim::sim {

inline constexpr double NEVER = std::numeric_limits<double>::infinity();

}  // namespace failsim::sim
