#include "input/object_reader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace failsim::input {
namespace {

std::string format_bound(double x) { return fmt::format("{}", x); }

std::string join(const std::vector<std::string_view>& words, std::string_view quote) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ", ";
    out += quote;
    out += words[i];
    out += quote;
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const nlohmann::json& empty_object() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

/// ">= 1" when `max` is only a storage limit (int or int64), else "in [min, max]"; the exact
/// range is still shown when a value exceeds such a limit.
std::string integer_range(std::int64_t min, std::int64_t max) {
  if (max == std::numeric_limits<std::int64_t>::max() || max == std::numeric_limits<int>::max()) {
    return fmt::format(">= {}", min);
  }
  return fmt::format("in [{}, {}]", min, max);
}

}  // namespace

bool Interval::contains(double x) const {
  const bool above = lo_open ? x > lo : x >= lo;
  const bool below = hi_open ? x < hi : x <= hi;
  return above && below;
}

std::string Interval::describe() const {
  if (std::isinf(hi)) return (lo_open ? "> " : ">= ") + format_bound(lo);
  if (std::isinf(lo)) return (hi_open ? "< " : "<= ") + format_bound(hi);
  return fmt::format("in {}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

namespace {

/// Words that other tools use for a key failsim names otherwise: an unknown key among them is
/// pointed at failsim's key, with what it means, where the object has that key.
struct KeySynonym {
  std::string_view word;
  std::string_view key;
  std::string_view meaning;
};

constexpr std::string_view STEPS_KEPT =
    "the steps (updates) kept after rollbacks, or 'updates', every one executed";
constexpr std::array<KeySynonym, 3> KEY_SYNONYMS{{
    {"steps", "version", STEPS_KEPT},
    {"iterations", "version", STEPS_KEPT},
    {"max_steps", "version", STEPS_KEPT},
}};

const KeySynonym* synonym_of(std::string_view key, const std::vector<std::string_view>& known) {
  for (const KeySynonym& s : KEY_SYNONYMS) {
    if (s.word == key && std::find(known.begin(), known.end(), s.key) != known.end()) return &s;
  }
  return nullptr;
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // A typo changes a few characters; beyond that a suggestion is noise.
  const std::size_t tolerated = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= tolerated ? std::string(best) : std::string();
}

double read_number(const nlohmann::json& v, const JsonLocation& where, const Interval& range) {
  const std::string expected = "a number " + range.describe();
  if (!v.is_number()) where.fail(expected, describe_found(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) where.fail(expected, "a number out of range");
  if (!range.contains(x)) where.fail(expected, describe_found(v));
  return x;
}

std::int64_t read_integer(const nlohmann::json& v, const JsonLocation& where, std::int64_t min,
                          std::int64_t max) {
  const std::string expected = "an integer " + integer_range(min, max);
  if (v.is_number_unsigned()) {
    // Above INT64_MAX it cannot be in range (max is an int64); below, compare as signed.
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      where.fail(fmt::format("an integer in [{}, {}]", min, max), describe_found(v));
    }
  } else if (!v.is_number_integer()) {
    where.fail(expected, describe_found(v));
  }
  const auto i = v.get<std::int64_t>();
  if (i < min) where.fail(expected, describe_found(v));
  if (i > max) where.fail(fmt::format("an integer in [{}, {}]", min, max), describe_found(v));
  return i;
}

std::uint64_t read_uint64(const nlohmann::json& v, const JsonLocation& where) {
  // nlohmann stores non-negative integer literals as unsigned; a negative one is signed.
  if (!v.is_number_unsigned()) {
    where.fail("an integer in [0, 18446744073709551615]", describe_found(v));
  }
  return v.get<std::uint64_t>();
}

bool read_bool(const nlohmann::json& v, const JsonLocation& where) {
  if (!v.is_boolean()) where.fail("true or false", describe_found(v));
  return v.get<bool>();
}

std::string read_string(const nlohmann::json& v, const JsonLocation& where) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
    where.fail("a non-empty string", describe_found(v));
  }
  return v.get<std::string>();
}

void fail_choice(const nlohmann::json& v, const JsonLocation& where,
                 const std::vector<std::string_view>& spellings) {
  std::string found = describe_found(v);
  if (v.is_string()) {
    const std::string hint = closest_match(v.get_ref<const std::string&>(), spellings);
    if (!hint.empty()) found += " (did you mean \"" + hint + "\"?)";
  }
  where.fail("one of " + join(spellings, "\""), found);
}

ObjectReader::ObjectReader(const nlohmann::json& value, JsonLocation where,
                           std::initializer_list<std::string_view> known)
    : ObjectReader(value, std::move(where), std::vector<std::string_view>(known)) {}

ObjectReader::ObjectReader(const nlohmann::json& value, JsonLocation where,
                           std::vector<std::string_view> known)
    : value_(&value), where_(std::move(where)), known_(std::move(known)) {
  if (!value.is_object()) {
    where_.fail("an object with keys (" + join(known_, "") + ")", describe_found(value));
  }
  for (const auto& item : value.items()) {
    const std::string& key = item.key();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string found = "unknown key '" + key + "'";
    const std::string hint = closest_match(key, known_);
    if (const KeySynonym* s = synonym_of(key, known_)) {
      found += fmt::format(" (did you mean '{}', {}?)", s->key, s->meaning);
    } else if (!hint.empty()) {
      found += " (did you mean '" + hint + "'?)";
    }
    where_.child(key).fail("a known key (" + join(known_, "") + ")", found);
  }
}

void ObjectReader::check_known(std::string_view key) const {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
    throw std::logic_error("ObjectReader at '" + where_.pointer + "' asked for undeclared key '" +
                           std::string(key) + "'");
  }
}

const nlohmann::json* ObjectReader::find(std::string_view key) const {
  check_known(key);
  auto it = value_->find(key);
  if (it == value_->end()) return nullptr;
  return &*it;
}

const nlohmann::json& ObjectReader::require(std::string_view key,
                                            const std::string& expected) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) at(key).fail(expected + " (required)", "nothing");
  return *v;
}

void ObjectReader::forbid(std::string_view key, std::string_view reason) const {
  const nlohmann::json* v = find(key);
  if (v != nullptr) {
    at(key).fail(fmt::format("no '{}' here ({})", key, reason), describe_found(*v));
  }
}

double ObjectReader::number(std::string_view key, const Interval& range) const {
  return read_number(require(key, "a number " + range.describe()), at(key), range);
}

double ObjectReader::number_or(std::string_view key, double fallback, const Interval& range) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : read_number(*v, at(key), range);
}

std::optional<double> ObjectReader::optional_number(std::string_view key,
                                                    const Interval& range) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return read_number(*v, at(key), range);
}

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  return read_integer(require(key, "an integer " + integer_range(min, max)), at(key), min, max);
}

std::int64_t ObjectReader::integer_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                                      std::int64_t max) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : read_integer(*v, at(key), min, max);
}

std::optional<std::int64_t> ObjectReader::optional_integer(std::string_view key, std::int64_t min,
                                                           std::int64_t max) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return read_integer(*v, at(key), min, max);
}

double ObjectReader::quantity(std::string_view key, Quantity kind, Sign sign) const {
  return quantity_from_json(require(key, expected_quantity(kind, sign)), kind, sign, at(key));
}

double ObjectReader::quantity_or(std::string_view key, double fallback, Quantity kind,
                                 Sign sign) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : quantity_from_json(*v, kind, sign, at(key));
}

std::optional<double> ObjectReader::optional_quantity(std::string_view key, Quantity kind,
                                                      Sign sign) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return quantity_from_json(*v, kind, sign, at(key));
}

bool ObjectReader::boolean_or(std::string_view key, bool fallback) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : read_bool(*v, at(key));
}

std::uint64_t ObjectReader::uint64_or(std::string_view key, std::uint64_t fallback) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : read_uint64(*v, at(key));
}

std::string ObjectReader::string(std::string_view key) const {
  return read_string(require(key, "a non-empty string"), at(key));
}

std::string ObjectReader::string_or(std::string_view key, std::string fallback) const {
  const nlohmann::json* v = find(key);
  return v == nullptr ? fallback : read_string(*v, at(key));
}

ObjectReader ObjectReader::object(std::string_view key,
                                  std::initializer_list<std::string_view> known) const {
  return object(key, std::vector<std::string_view>(known));
}

ObjectReader ObjectReader::object(std::string_view key, std::vector<std::string_view> known) const {
  const nlohmann::json& v = require(key, "an object with keys (" + join(known, "") + ")");
  return ObjectReader(v, at(key), std::move(known));
}

ObjectReader ObjectReader::object_or_empty(std::string_view key,
                                           std::initializer_list<std::string_view> known) const {
  const nlohmann::json* v = find(key);
  return ObjectReader(v == nullptr ? empty_object() : *v, at(key), known);
}

std::string ObjectReader::describe_choices(const std::vector<std::string_view>& spellings) {
  return "one of " + join(spellings, "\"");
}

std::string ObjectReader::expected_list(std::size_t min_size, std::string_view element_expected) {
  if (min_size == 0) return fmt::format("a list of {}", element_expected);
  return fmt::format("a list of at least {} {}", min_size, element_expected);
}

void ObjectReader::check_list(const nlohmann::json& v, const JsonLocation& where,
                              std::size_t min_size, const std::string& expected) {
  if (!v.is_array() || v.size() < min_size) where.fail(expected, describe_found(v));
}

}  // namespace failsim::input
