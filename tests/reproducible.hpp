// result.json as two runs of one scenario and seed must give it: without the keys that are not
// a function of them (result_format/reproducible.hpp). One helper for every determinism test.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "result_format/reproducible.hpp"

namespace failsim::testing {

/// `result` without provenance and wall_clock.
inline nlohmann::json reproducible_part(nlohmann::json result) {
  for (const std::string_view key : result_format::NOT_REPRODUCED_KEYS) {
    result.erase(std::string(key));
  }
  return result;
}

}  // namespace failsim::testing
