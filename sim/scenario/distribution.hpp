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
#include <string_view>

#include <nlohmann/json.hpp>

#include "input/object_reader.hpp"
#include "models/rng.hpp"

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

/// One field of a distribution's JSON object besides "distribution".
struct DistributionField {
  std::string_view key;  ///< empty: no field
  /// true: Distribution::shape, a number > 0; false: Distribution::value, a duration.
  bool is_shape = false;
  /// A duration > 0, or one whose sign the reader's caller chooses (a fixed repair may be 0).
  bool caller_sign = false;
};

/// A distribution: its spelling, its fields in reading order, one draw and its mean.
struct DistributionLaw {
  DistributionKind kind;
  std::string_view spelling;
  std::array<DistributionField, 2> fields;
  double (*draw)(const Distribution&, models::Rng&);
  double (*mean)(const Distribution&);
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
