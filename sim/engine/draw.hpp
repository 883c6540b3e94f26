// One draw of a duration from a scenario's distribution: the failure processes of both protocols
// draw their lifetimes and repairs with it. Engine-free.
#pragma once

#include <cmath>

#include "models/rng.hpp"
#include "sim/scenario/distribution.hpp"

namespace failsim::sim {

/// FIXED: the value; EXPONENTIAL and WEIBULL by inversion of one uniform draw.
inline double draw(const Distribution& d, models::Rng& rng) {
  switch (d.kind) {
    case DistributionKind::FIXED:
      return d.value;
    case DistributionKind::EXPONENTIAL:
      return -d.value * std::log(1.0 - rng.uniform());
    case DistributionKind::WEIBULL:
      return d.value * std::pow(-std::log(1.0 - rng.uniform()), 1.0 / d.shape);
  }
  return d.value;
}

}  // namespace failsim::sim
