// Failure distributions in one place: the kinds, their spellings, the fields each reads and
// writes, how one is drawn and its mean. Both protocols' failure sections read them, their
// failure processes draw from them, resolve() uses their means. Engine-free.
//
// A new distribution is a kind below, one entry of DISTRIBUTION_LAWS, the schema's
// `$defs/distribution`, docs/scenario-format.md and tests/test_distribution.cpp (which fails when
// the list, the reader, the schema and the docs disagree).
#pragma once

#include <array>
#include <cmath>
#include <numbers>
#include <string_view>

#include <nlohmann/json.hpp>

#include "input/object_reader.hpp"
#include "models/rng.hpp"

namespace failsim::sim {

enum class DistributionKind { FIXED, EXPONENTIAL, WEIBULL, LOGNORMAL };

/// A distribution of durations in seconds. FIXED: always `value`. EXPONENTIAL: mean `value`.
/// WEIBULL: shape k = `shape`, scale lambda = `value` (mean lambda * Gamma(1 + 1/k)).
/// LOGNORMAL: mean `value`, sigma = `shape` (the standard deviation of ln x), so ln x is normal
/// with mu = ln(mean) - sigma^2 / 2.
struct Distribution {
  DistributionKind kind = DistributionKind::FIXED;
  double value = 0.0;  ///< seconds, > 0 (FIXED may be 0)
  double shape = 1.0;  ///< WEIBULL's k or LOGNORMAL's sigma, > 0

  bool operator==(const Distribution&) const = default;
};

/// One field of a distribution's JSON object besides "distribution".
struct DistributionField {
  std::string_view key;  ///< empty: no field
  /// true: Distribution::shape, a number > 0; false: Distribution::value, a duration.
  bool is_shape = false;
  /// A duration > 0, or one whose sign the reader's caller chooses (a fixed repair may be 0).
  bool caller_sign = false;
};

/// A key the law refuses with a reason of its own (another parameterisation of it), instead of
/// the generic "unknown key".
struct RefusedField {
  std::string_view key;  ///< empty: none
  std::string_view reason;
};

/// A distribution: its spelling, its fields in reading order, one draw and its mean.
struct DistributionLaw {
  DistributionKind kind;
  std::string_view spelling;
  std::array<DistributionField, 2> fields;
  double (*draw)(const Distribution&, models::Rng&);
  double (*mean)(const Distribution&);
  RefusedField refused{};
};

/// Every distribution, in the order the reader and the docs list them.
inline constexpr std::array DISTRIBUTION_LAWS{
    // Memoryless failures at rate 1/mean; drawn by inversion of one uniform.
    DistributionLaw{DistributionKind::EXPONENTIAL,
                    "exponential",
                    {{{"mean"}, {}}},
                    [](const Distribution& d, models::Rng& rng) {
                      return -d.value * std::log(1.0 - rng.uniform());
                    },
                    [](const Distribution& d) { return d.value; }},
    // Scale lambda (-ln(1 - U))^(1/k); mean lambda Gamma(1 + 1/k).
    DistributionLaw{
        DistributionKind::WEIBULL,
        "weibull",
        {{{"shape", true}, {"scale"}}},
        [](const Distribution& d, models::Rng& rng) {
          return d.value * std::pow(-std::log(1.0 - rng.uniform()), 1.0 / d.shape);
        },
        [](const Distribution& d) { return d.value * std::tgamma(1.0 + 1.0 / d.shape); }},
    // exp(mu + sigma Z), Z standard normal by Box-Muller from two uniforms (written here, not
    // models::Rng::normal, which the scenario library does not link), mu = ln(mean) - sigma^2/2.
    // Read by its mean, as the other laws that have one: mu alone is a logarithm of seconds,
    // whose value changes with the unit it was fitted in.
    DistributionLaw{DistributionKind::LOGNORMAL,
                    "lognormal",
                    {{{"mean"}, {"sigma", true}}},
                    [](const Distribution& d, models::Rng& rng) {
                      const double mu = std::log(d.value) - 0.5 * d.shape * d.shape;
                      const double radius = std::sqrt(-2.0 * std::log(1.0 - rng.uniform()));
                      const double z = radius * std::cos(2.0 * std::numbers::pi * rng.uniform());
                      return std::exp(mu + d.shape * z);
                    },
                    [](const Distribution& d) { return d.value; },
                    {"mu",
                     "distribution \"lognormal\" takes 'mean' (a duration) and 'sigma' (of ln x); "
                     "from a fit's mu and sigma of ln x, mean = exp(mu + sigma^2 / 2) in the fit's "
                     "unit"}},
    // Always the value: draws no random number.
    DistributionLaw{DistributionKind::FIXED,
                    "fixed",
                    {{{"value", false, true}, {}}},
                    [](const Distribution& d, models::Rng&) { return d.value; },
                    [](const Distribution& d) { return d.value; }},
};

/// The entry of `kind` in DISTRIBUTION_LAWS (std::logic_error for a kind without one).
const DistributionLaw& law_of(DistributionKind kind);

/// One draw of a duration: the failure processes of both protocols draw their lifetimes and
/// repairs with it.
inline double draw(const Distribution& d, models::Rng& rng) { return law_of(d.kind).draw(d, rng); }

/// The mean duration, in seconds.
inline double mean_of(const Distribution& d) { return law_of(d.kind).mean(d); }

namespace detail {
/// The spellings of the distributions, from DISTRIBUTION_LAWS (distribution.cpp).
const input::Choices<DistributionKind>& distribution_choices();
/// A distribution object at `key`; `fixed_sign` says whether a fixed value may be 0.
Distribution read_distribution(const input::ObjectReader& parent, std::string_view key,
                               input::Sign fixed_sign);
nlohmann::json distribution_to_json(const Distribution& d);
}  // namespace detail

}  // namespace failsim::sim
