// The Scenario's own functions (scenario.hpp); reading and writing the document is document.cpp.
#include "sim/scenario/scenario.hpp"

#include <algorithm>

namespace failsim::sim {

bool is_valid_name(const std::string& name) {
  if (name.empty() || name.size() > MAX_NAME_BYTES || name.front() == '.' || name.front() == '-')
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace failsim::sim
