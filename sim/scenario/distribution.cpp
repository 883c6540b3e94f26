// The failure distributions' reader and writer, made from DISTRIBUTION_LAWS
// (sim/scenario/distribution.hpp): a new distribution adds no code here.
#include "sim/scenario/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim {

const DistributionLaw& law_of(DistributionKind kind) {
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    if (law.kind == kind) return law;
  }
  throw std::logic_error("a distribution kind without its entry in DISTRIBUTION_LAWS");
}

namespace detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

bool has_field(const DistributionLaw& law, std::string_view key) {
  return std::any_of(law.fields.begin(), law.fields.end(),
                     [&](const DistributionField& f) { return !f.key.empty() && f.key == key; });
}

/// "distribution" and every law's fields, in the list's order: the object's known keys.
std::vector<std::string_view> distribution_keys() {
  std::vector<std::string_view> keys{"distribution"};
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    for (const DistributionField& f : law.fields) {
      if (!f.key.empty() && std::find(keys.begin(), keys.end(), f.key) == keys.end()) {
        keys.push_back(f.key);
      }
    }
  }
  return keys;
}

/// "it applies only to distribution \"a\"" (or "distributions \"a\" and \"b\""): the laws
/// that read `key`.
std::string laws_with(std::string_view key) {
  std::vector<std::string> names;
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    if (has_field(law, key)) names.push_back(fmt::format("\"{}\"", law.spelling));
  }
  std::string listed = names.front();
  for (std::size_t i = 1; i < names.size(); ++i)
    listed += (i + 1 == names.size() ? " and " : ", ") + names[i];
  return fmt::format("it applies only to distribution{} {}", names.size() > 1 ? "s" : "", listed);
}

}  // namespace

const Choices<DistributionKind>& distribution_choices() {
  static const Choices<DistributionKind> choices = [] {
    Choices<DistributionKind> all;
    for (const DistributionLaw& law : DISTRIBUTION_LAWS) all.emplace_back(law.spelling, law.kind);
    return all;
  }();
  return choices;
}

Distribution read_distribution(const ObjectReader& parent, std::string_view key, Sign fixed_sign) {
  // Another parameterisation of a law is refused with how to convert it, before the generic
  // "unknown key": it is no key of the format (nor of the schema).
  if (const nlohmann::json* v = parent.find(key); v != nullptr && v->is_object()) {
    for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
      const std::string refused(law.refused.key);
      if (refused.empty() || !v->contains(refused)) continue;
      parent.at(key).child(refused).fail(
          fmt::format("no '{}' here ({})", refused, law.refused.reason),
          describe_found(v->at(refused)));
    }
  }
  const ObjectReader r = parent.object(key, distribution_keys());
  Distribution d;
  d.kind = r.choice("distribution", distribution_choices());
  const DistributionLaw& law = law_of(d.kind);
  // Another law's field is a mistake about the law, said before any of this law's fields.
  for (const DistributionLaw& other : DISTRIBUTION_LAWS) {
    for (const DistributionField& f : other.fields) {
      if (f.key.empty() || has_field(law, f.key)) continue;
      r.forbid(f.key, laws_with(f.key));
    }
  }
  for (const DistributionField& f : law.fields) {
    if (f.key.empty()) continue;
    if (f.is_shape) {
      d.shape = r.number(f.key, Interval::positive());
    } else {
      d.value = r.quantity(f.key, Quantity::TIME, f.caller_sign ? fixed_sign : Sign::POSITIVE);
    }
  }
  return d;
}

nlohmann::json distribution_to_json(const Distribution& d) {
  const DistributionLaw& law = law_of(d.kind);
  nlohmann::json out{{"distribution", std::string(law.spelling)}};
  for (const DistributionField& f : law.fields) {
    if (!f.key.empty()) out[std::string(f.key)] = f.is_shape ? d.shape : d.value;
  }
  return out;
}

}  // namespace detail
}  // namespace failsim::sim
