// Field-by-field reading of JSON input (style rule 4): each value is checked for presence,
// type, range and unit where it is read, and every failure is a InputError naming the file,
// the JSON Pointer, the expectation and the found value. An object's keys are all checked
// against the keys its section knows when the reader is made, so a typo is reported as such
// (with the closest known key) before it could surface as a missing key or a silent default.
//
// A new section (failures, recovery, ...) is a function taking an ObjectReader: list its keys,
// read each one with the typed getters, forbid the ones its mode does not use.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/input_error.hpp"
#include "input/units.hpp"

namespace failsim::input {

/// A range of plain numbers with open or closed ends, e.g. (0, 1].
struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = true;
  bool hi_open = true;

  static Interval positive() { return {0.0, std::numeric_limits<double>::infinity(), true, true}; }
  static Interval non_negative() {
    return {0.0, std::numeric_limits<double>::infinity(), false, true};
  }
  bool contains(double x) const;
  /// "> 0", ">= 0", "in [0, 1)", ...
  std::string describe() const;
};

/// The closest of `candidates` to `word` by edit distance, or "" when none is close enough to
/// be a likely typo.
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

/// Typed reads of one JSON value at `where`; each throws InputError on a wrong type or range.
double read_number(const nlohmann::json& v, const JsonLocation& where, const Interval& range);
std::int64_t read_integer(const nlohmann::json& v, const JsonLocation& where, std::int64_t min,
                          std::int64_t max);
std::uint64_t read_uint64(const nlohmann::json& v, const JsonLocation& where);
bool read_bool(const nlohmann::json& v, const JsonLocation& where);
/// A non-empty string.
std::string read_string(const nlohmann::json& v, const JsonLocation& where);

/// One of a fixed set of spellings, each mapped to an enum value.
template <class E>
using Choices = std::vector<std::pair<std::string_view, E>>;

/// Throws the error for a string that is none of `spellings` (with a "did you mean" hint).
[[noreturn]] void fail_choice(const nlohmann::json& v, const JsonLocation& where,
                              const std::vector<std::string_view>& spellings);

template <class E>
E read_choice(const nlohmann::json& v, const JsonLocation& where, const Choices<E>& choices) {
  std::vector<std::string_view> spellings;
  for (const auto& [spelling, value] : choices) {
    if (v.is_string() && v.get_ref<const std::string&>() == spelling) return value;
    spellings.push_back(spelling);
  }
  fail_choice(v, where, spellings);
}

/// The spelling of `value` in `choices` (for writing a resolved scenario back out).
template <class E>
std::string spelling_of(E value, const Choices<E>& choices) {
  for (const auto& [spelling, v] : choices) {
    if (v == value) return std::string(spelling);
  }
  return "?";
}

/// A JSON object whose keys are all among `known`. null is a value like any other (so `"seed":
/// null` is a type error), except for the optional_* getters, which read it as "not set" (so a
/// resolved scenario can write null for an unset optional field). Asking for a key that was not
/// declared known is a programming error (std::logic_error).
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& value, JsonLocation where,
               std::initializer_list<std::string_view> known);
  /// The same, for keys known only at run time (e.g. listed by a table of kinds).
  ObjectReader(const nlohmann::json& value, JsonLocation where,
               std::vector<std::string_view> known);

  const JsonLocation& location() const { return where_; }
  JsonLocation at(std::string_view key) const { return where_.child(key); }
  /// The member, or nullptr when absent.
  const nlohmann::json* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  /// The member; when absent: "expected <expected> (required), found nothing".
  const nlohmann::json& require(std::string_view key, const std::string& expected) const;
  /// When `key` is present: "expected no '<key>' here (<reason>), found <value>".
  void forbid(std::string_view key, std::string_view reason) const;

  double number(std::string_view key, const Interval& range) const;
  double number_or(std::string_view key, double fallback, const Interval& range) const;
  std::optional<double> optional_number(std::string_view key, const Interval& range) const;

  std::int64_t integer(std::string_view key, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  std::int64_t integer_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                          std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  std::optional<std::int64_t> optional_integer(
      std::string_view key, std::int64_t min,
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

  double quantity(std::string_view key, Quantity kind, Sign sign) const;
  double quantity_or(std::string_view key, double fallback, Quantity kind, Sign sign) const;
  std::optional<double> optional_quantity(std::string_view key, Quantity kind, Sign sign) const;

  bool boolean_or(std::string_view key, bool fallback) const;
  std::uint64_t uint64_or(std::string_view key, std::uint64_t fallback) const;
  std::string string(std::string_view key) const;
  std::string string_or(std::string_view key, std::string fallback) const;

  template <class E>
  E choice(std::string_view key, const Choices<E>& choices) const {
    return read_choice(require(key, expected_choice(choices)), at(key), choices);
  }
  template <class E>
  E choice_or(std::string_view key, E fallback, const Choices<E>& choices) const {
    const nlohmann::json* v = find(key);
    return v == nullptr ? fallback : read_choice(*v, at(key), choices);
  }

  /// A required sub-object.
  ObjectReader object(std::string_view key, std::initializer_list<std::string_view> known) const;
  ObjectReader object(std::string_view key, std::vector<std::string_view> known) const;
  /// A sub-object that may be absent (then read as {} so its defaults apply).
  ObjectReader object_or_empty(std::string_view key,
                               std::initializer_list<std::string_view> known) const;

  /// A required array of at least `min_size` elements, each read by
  /// `read(const nlohmann::json&, const JsonLocation&)`.
  template <class F>
  auto list(std::string_view key, std::size_t min_size, std::string_view element_expected,
            F read) const {
    const std::string expected = expected_list(min_size, element_expected);
    const nlohmann::json& v = require(key, expected);
    check_list(v, at(key), min_size, expected);
    using T = decltype(read(v, at(key)));
    std::vector<T> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(read(v[i], at(key).child(i)));
    return out;
  }

 private:
  void check_known(std::string_view key) const;
  template <class E>
  static std::string expected_choice(const Choices<E>& choices) {
    std::vector<std::string_view> spellings;
    for (const auto& c : choices) spellings.push_back(c.first);
    return describe_choices(spellings);
  }
  static std::string describe_choices(const std::vector<std::string_view>& spellings);
  static std::string expected_list(std::size_t min_size, std::string_view element_expected);
  static void check_list(const nlohmann::json& v, const JsonLocation& where, std::size_t min_size,
                         const std::string& expected);

  const nlohmann::json* value_;
  JsonLocation where_;
  std::vector<std::string_view> known_;
};

}  // namespace failsim::input
