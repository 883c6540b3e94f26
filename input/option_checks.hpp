// Checks of command-line options whose refusals read like every other input error: the option,
// what was expected and what was found (CLI11's own PositiveNumber says "Value 0 not in range
// 0.000000 to 1.797e308"). Header-only: CLI11 is header-only too.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace failsim::input {

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
        return "expected " + what + " greater than 0, found " + (value.empty() ? "nothing" : value);
      },
      "> 0");
}

}  // namespace failsim::input
