// result.json's "provenance" (docs/result-format.md#provenance): what made a result besides its
// scenario, for reproducing it: the failsim build (version, commit), the compiler and library
// versions, the command line and working directory. Not a function of the scenario and seed,
// so comparisons of results leave it out (result_format/reproducible.hpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace failsim::sim {

/// The provenance object for a run started by `command_line` (argv as the process got it;
/// empty for a run started by a library call, as the tests do).
nlohmann::json provenance_json(const std::vector<std::string>& command_line);

}  // namespace failsim::sim
