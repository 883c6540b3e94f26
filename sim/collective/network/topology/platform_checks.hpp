// The checks of a cluster platform's sizes that every topology makes of its own settings, with
// the one message format of build_cluster_platform's refusals ("cluster platform: <what> must be
// ..., found <value>", std::invalid_argument). The scenario's checks are meant to refuse these
// values first; these keep SimGrid from being asked to build them.
#pragma once

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

namespace failsim::sim::platform_checks {

/// `value` > 0 (a bandwidth, a speed).
inline void positive(double value, const char* what) {
  if (!(value > 0.0)) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be > 0, found {}", what, value));
  }
}

/// `value` >= 1 (a count).
inline void at_least_one(int value, const char* what) {
  if (value < 1) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be >= 1, found {}", what, value));
  }
}

/// `value` >= 0 and finite (a latency).
inline void latency(double value, const char* what) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("cluster platform: {} must be >= 0, found {}", what, value));
  }
}

}  // namespace failsim::sim::platform_checks
