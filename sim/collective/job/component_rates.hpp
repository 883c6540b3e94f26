// The rate factor of each component of a heterogeneous failure process
// (failures.stochastic[i].heterogeneity, docs/cluster.md "Heterogeneous nodes"), drawn once from
// the seed, and how a lifetime stretches or shrinks under it. Engine-free.
//
// A component at factor m runs its wear clock m times as fast: the lifetime it would have drawn,
// b, ends after b / m. A component turning bad at T runs at k from then on, so a lifetime under
// way then ends at T + (b - (T - since) m) / k: for an exponential lifetime that is exactly a
// rate of m before T and k after (memorylessness), and every law keeps its shape.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "models/rng.hpp"
#include "sim/scenario/collective/config.hpp"

namespace failsim::sim {

struct ComponentRates {
  /// Each component's factor from the start: 1 (good) or bad_factor (bad), or its draw from the
  /// spread.
  std::vector<double> factor;
  /// When each component turns bad (rate bad_factor from then on); infinity: never.
  std::vector<double> turns_bad_at;
  double bad_factor = 1.0;
  /// The components bad from the start, ascending.
  std::vector<int> bad;
};

/// Every component's rates for `h` over `count` components, from `root` (a stream of the seed
/// for this kind of component): the bad ones are the first round(fraction x count) of a
/// permutation drawn from derive_seed(root, 0); component c draws its spread factor, or its time
/// to turn bad, from derive_seed(root, c + 1), so it does not depend on the other components.
ComponentRates draw_component_rates(const NodeHeterogeneity& h, int count, std::uint64_t root);

/// When a lifetime whose draw is `base`, starting at `since`, ends for a component of factor
/// `factor` turning bad (factor `bad_factor`) at `turns_bad_at`.
double lifetime_end(double since, double base, double factor, double turns_bad_at,
                    double bad_factor);

/// One draw of a gamma of shape `shape` and scale 1 (Marsaglia and Tsang, 2000; below shape 1,
/// Gamma(shape + 1) U^(1/shape)).
double gamma_draw(double shape, models::Rng& rng);

}  // namespace failsim::sim
