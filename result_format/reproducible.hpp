// Which parts of result.json are reproduced by running the same scenario with the same seed
// again (docs/result-format.md#determinism). Its Python twin is
// analysis/failsim_results.py's NOT_REPRODUCED_KEYS (tests/test_results.cpp compares them).
#pragma once

#include <array>
#include <string_view>

namespace failsim::result_format {

/// The top-level keys of result.json that are not a function of the scenario and its seed:
/// `provenance` (the build, the command line, the working directory) and `wall_clock` (real
/// time). The rest of result.json, and every other file of a result directory, is the same
/// bytes for the same scenario and seed; tests and scripts/compare-results.sh compare results
/// without these keys.
inline constexpr std::array<std::string_view, 2> NOT_REPRODUCED_KEYS = {"provenance", "wall_clock"};

}  // namespace failsim::result_format
