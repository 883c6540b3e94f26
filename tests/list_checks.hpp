// Helpers of the tests that hold one list of names (a .def of sim/) to what is written by hand
// beside it: a schema's enum and the names a doc quotes (tests/test_designs.cpp,
// tests/test_topologies.cpp). Needs FAILSIM_SOURCE_DIR.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace failsim::testing {

/// The text of `relative`, a file of the source tree.
inline std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(FAILSIM_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The strings of the enum at `pointer` (a JSON pointer) of the schema file `relative`, in order.
inline std::vector<std::string> schema_enum(const std::string& relative,
                                            const std::string& pointer) {
  const nlohmann::json schema = nlohmann::json::parse(read_source(relative));
  std::vector<std::string> spellings;
  for (const nlohmann::json& v : schema.at(nlohmann::json::json_pointer(pointer))) {
    spellings.push_back(v.get<std::string>());
  }
  return spellings;
}

/// The "double-quoted" lower-case names of `text` from the first `from` to the first `to` after
/// it (to the end when `to` is empty), in order: the names a doc lists in one row or sentence,
/// or an error message's choices.
inline std::vector<std::string> quoted_names(const std::string& text, const std::string& from,
                                             const std::string& to) {
  const std::size_t start = text.find(from);
  REQUIRE(start != std::string::npos);
  const std::size_t end = to.empty() ? text.size() : text.find(to, start + from.size());
  REQUIRE(end != std::string::npos);
  const std::string passage = text.substr(start, end - start);
  std::vector<std::string> named;
  const std::regex quoted("\"([a-z-]+)\"");
  for (auto it = std::sregex_iterator(passage.begin(), passage.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    named.push_back((*it)[1].str());
  }
  return named;
}

}  // namespace failsim::testing
