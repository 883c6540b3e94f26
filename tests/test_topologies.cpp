// The collective platform's topologies' one list (sim/collective/network/topology/topologies.def)
// against what is made from it (the reader's choices and writer, the builder's dispatch) and what
// is written by hand beside it (scenarios/collective.schema.json's enum of
// platform.topology.kind, the platform row of docs/cluster.md's table): a name in one and not in
// another fails here.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "collective_fixture.hpp"
#include "input_error_of.hpp"
#include "list_checks.hpp"
#include "sim/collective/network/topology/topology.hpp"
#include "sim/scenario/scenario.hpp"

using failsim::testing::error_of;
using failsim::testing::quoted_names;
using nlohmann::json;
using namespace failsim::sim;

namespace {

/// The list, read the way its users read it.
const std::vector<std::string> TOPOLOGIES{
#define FAILSIM_TOPOLOGY(KIND, room, spelling) spelling,
#include "sim/collective/network/topology/topologies.def"
#undef FAILSIM_TOPOLOGY
};

/// The small collective scenario with platform.topology.kind `name`.
json scenario_with(const std::string& name) {
  json doc = failsim::testing::collective::build("topologies", json::object());
  doc["platform"]["topology"]["kind"] = name;
  return doc;
}

}  // namespace

TEST_CASE("the reader chooses among the list's topologies, in its order", "[topologies]") {
  REQUIRE(!TOPOLOGIES.empty());
  std::vector<std::string> kinds;
  for (const auto& [spelling, kind] : TOPOLOGY_KINDS) kinds.emplace_back(spelling);
  CHECK(kinds == TOPOLOGIES);
  // The reader's expectation for a wrong name lists its choices: exactly the list's.
  const auto e = error_of([] { parse_scenario(scenario_with("zz-no-topology"), "s.json"); });
  CHECK(e.json_path() == "/platform/topology/kind");
  CHECK(quoted_names(e.expected(), "one of ", "") == TOPOLOGIES);
}

TEST_CASE("every topology of the list is read, written back, read again and built",
          "[topologies]") {
  for (const std::string& name : TOPOLOGIES) {
    INFO(name);
    const Scenario s = parse_scenario(scenario_with(name), "s.json");
    const json written = to_json(s);
    CHECK(written["platform"]["topology"]["kind"] == name);
    CHECK(parse_scenario(written, "s.json") == s);
    // The builder's dispatch knows it (a kind outside the list is a std::logic_error).
    CHECK_NOTHROW(check_topology(s.collective.platform));
  }
}

TEST_CASE("the schema's enum of platform.topology.kind is the list", "[topologies][schema]") {
  CHECK(failsim::testing::schema_enum(
            "scenarios/collective.schema.json",
            "/properties/platform/properties/topology/properties/kind/enum") == TOPOLOGIES);
}

TEST_CASE("docs/cluster.md's platform row names exactly the list's topologies",
          "[topologies][docs]") {
  const std::string docs = failsim::testing::read_source("docs/cluster.md");
  const std::size_t row = docs.find("\n| `platform` | ");
  REQUIRE(row != std::string::npos);
  CHECK(quoted_names(docs.substr(row), "the `topology` (`kind` ", ")") == TOPOLOGIES);
}
