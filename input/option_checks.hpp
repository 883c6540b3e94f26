// Checks of command-line options whose refusals read like every other input error: the option,
// what was expected and what was found (CLI11's own PositiveNumber says "Value 0 not in range
// 0.000000 to 1.797e308"). Header-only: CLI11 is header-only too.
//
// Each validator's description is the range in words (">= 1", "> 0") or the set of its values
// ("{softmax,mlp,cnn}"), as CLI11's own validators write them: the help shows it after the type
// ("UINT:>= 1"), and cli/command_line.cpp makes the expectation of an option that did not convert
// from the two ("a whole number >= 1").
#pragma once

#include <fmt/core.h>
#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "input/object_reader.hpp"
#include "input/printable.hpp"

namespace failsim::input {

/// A found value as a refusal shows it: "nothing" for an empty one, else printable and cut short.
inline std::string found_argument(const std::string& value) {
  return value.empty() ? "nothing" : printable_excerpt(value, 200);
}

/// Accepts a number greater than 0; `what` names it in the refusal ("a count of runs").
inline CLI::Validator positive(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        const char* begin = value.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        const bool whole = end != begin && *end == '\0' && errno == 0;
        if (whole && v > 0) return {};
        return "expected " + what + " greater than 0, found " + found_argument(value);
      },
      "> 0");
}

/// Accepts decimal digits only (no sign, no exponent) making a number in [min, the largest T]:
/// CLI11 would read "1e3" or "-1" into an unsigned count as something else, or refuse it with
/// its own words. The refusal: "expected a whole number >= 1, found 0".
template <class T>
CLI::Validator whole_number(std::uint64_t min) {
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  const std::string range = fmt::format(">= {}", min);
  return CLI::Validator(
      [min, max, range](std::string& value) -> std::string {
        std::uint64_t v = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, error] = std::from_chars(value.data(), end, v);
        const bool digits = !value.empty() && value.front() != '-' && ptr == end;
        if (digits && error == std::errc{} && v >= min && v <= max) return {};
        // A number beyond what T holds: the whole range, its top included.
        const bool above = digits && (error == std::errc::result_out_of_range || v > max);
        return fmt::format("expected a whole number {}, found {}",
                           above ? fmt::format("in [{}, {}]", min, max) : range,
                           found_argument(value));
      },
      range);
}

/// Accepts one of `names` exactly; the refusal names them and the closest to the value.
inline CLI::Validator one_of(const std::vector<std::string>& names) {
  return CLI::Validator(
      [names](std::string& value) -> std::string {
        std::vector<std::string_view> views(names.begin(), names.end());
        for (std::string_view name : views) {
          if (name == value) return {};
        }
        const std::string hint = closest_match(value, views);
        return fmt::format("expected one of {}, found {}{}", fmt::join(names, ", "),
                           found_argument(value),
                           hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
      },
      fmt::format("{{{}}}", fmt::join(names, ",")));
}

}  // namespace failsim::input
