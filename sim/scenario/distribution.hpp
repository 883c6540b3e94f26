// A distribution of durations (failures' lifetimes and repairs), shared by both protocols'
// failure sections. Engine-free.
#pragma once

namespace failsim::sim {

enum class DistributionKind { FIXED, EXPONENTIAL, WEIBULL };

/// A distribution of durations in seconds. FIXED: always `value`. EXPONENTIAL: mean `value`.
/// WEIBULL: shape k = `shape`, scale lambda = `value` (mean lambda * Gamma(1 + 1/k)).
struct Distribution {
  DistributionKind kind = DistributionKind::FIXED;
  double value = 0.0;  ///< seconds, > 0 (FIXED may be 0)
  double shape = 1.0;  ///< WEIBULL only, > 0

  bool operator==(const Distribution&) const = default;
};

}  // namespace failsim::sim
