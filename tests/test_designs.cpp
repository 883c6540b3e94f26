// The collective recovery designs' one list (sim/collective/recovery/designs.def) against what is
// made from it (the reader's choices and writer, the engine's factory) and what is written by
// hand beside it (scenarios/collective.schema.json's enum of recovery.strategy, the recovery row
// of docs/cluster.md's table): a name in one and not in another fails here. And the rooms stay
// rooms: the resolve step, the plan and the job name no design (a design's checks are hooks of its
// settings format, its behaviour a class the runner hands the job).
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "collective_fixture.hpp"
#include "input_error_of.hpp"
#include "list_checks.hpp"
#include "sim/collective/recovery/recovery.hpp"
#include "sim/scenario/collective/recovery.hpp"
#include "sim/scenario/scenario.hpp"

using failsim::testing::error_of;
using nlohmann::json;
using namespace failsim::sim;

namespace {

/// The list, read the way its users read it.
const std::vector<std::string> DESIGNS{
#define FAILSIM_COLLECTIVE_DESIGN(room, name) name,
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN
};
/// Their rooms (folders and namespaces), in the same order.
const std::vector<std::string> ROOMS{
#define FAILSIM_COLLECTIVE_DESIGN(room, name) #room,
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN
};

/// The small collective scenario with recovery.strategy `name` and nothing else in `recovery`.
json scenario_with(const std::string& name) {
  json doc = failsim::testing::collective::build("designs", json::object());
  doc["recovery"] = {{"strategy", name}};
  return doc;
}

}  // namespace

TEST_CASE("the reader chooses among the list's designs, in its order", "[designs]") {
  REQUIRE(DESIGNS.size() >= 6);
  std::vector<std::string> rows;
  for (const CollectiveDesign& d : collective_designs()) rows.emplace_back(d.name);
  CHECK(rows == DESIGNS);
  // The did-you-mean of a wrong name lists them all.
  const auto e = error_of([] { parse_scenario(scenario_with("zz-no-design"), "s.json"); });
  CHECK(e.json_path() == "/recovery/strategy");
  for (const std::string& name : DESIGNS) {
    INFO(name);
    CHECK_THAT(e.expected(), Catch::Contains("\"" + name + "\""));
  }
}

TEST_CASE("every design of the list is read, written back with its own section, and read again",
          "[designs]") {
  std::set<std::string> sections;
  for (const std::string& name : DESIGNS) {
    INFO(name);
    const Scenario s = parse_scenario(scenario_with(name), "s.json");
    CHECK(s.collective.recovery.strategy == name);
    const CollectiveDesign* design = find_collective_design(name);
    REQUIRE(design != nullptr);
    const json recovery = to_json(s)["recovery"];
    CHECK(recovery["strategy"] == name);
    const char* section = design->settings.section;
    if (section != nullptr) {
      CHECK(recovery.contains(section));
      CHECK(sections.insert(section).second);  // no two designs share a section
    }
    CHECK(recovery.contains("checkpoint") == design->settings.uses_checkpoint);
    // The writer's output is the reader's input: the same scenario, its settings compared by value.
    json again = to_json(s);
    CHECK(parse_scenario(again, "s.json") == s);
  }
  CHECK(find_collective_design("zz-no-design") == nullptr);
}

TEST_CASE("the engine makes every design of the list, each of its own class", "[designs]") {
  std::set<std::type_index> classes;
  for (const std::string& name : DESIGNS) {
    INFO(name);
    const std::unique_ptr<CollectiveRecovery> design = make_collective_recovery(name);
    REQUIRE(design != nullptr);
    CHECK(classes.insert(std::type_index(typeid(*design))).second);
  }
  CHECK_THROWS_AS(make_collective_recovery("zz-no-design"), std::logic_error);
}

TEST_CASE("the schema's enum of recovery.strategy is the list", "[designs][schema]") {
  CHECK(failsim::testing::schema_enum("scenarios/collective.schema.json",
                                      "/properties/recovery/properties/strategy/enum") == DESIGNS);
}

TEST_CASE("docs/cluster.md's recovery row names exactly the list's designs", "[designs][docs]") {
  const std::string docs = failsim::testing::read_source("docs/cluster.md");
  CHECK(failsim::testing::quoted_names(docs, "\n| `recovery` | `strategy` ", "`restart`") ==
        DESIGNS);
}

TEST_CASE("the resolve step and the plan name no design: its checks are its room's hooks",
          "[designs][rooms]") {
  REQUIRE(ROOMS.size() == DESIGNS.size());
  for (const char* file : {"sim/scenario/resolve.cpp", "sim/scenario/collective/plan.cpp"}) {
    const std::string text = failsim::testing::read_source(file);
    for (std::size_t i = 0; i < DESIGNS.size(); ++i) {
      INFO(file << ", design " << DESIGNS[i]);
      CHECK(text.find("\"" + DESIGNS[i] + "\"") == std::string::npos);
      CHECK(text.find("recovery/" + ROOMS[i] + "/") == std::string::npos);
      CHECK(text.find(ROOMS[i] + "::") == std::string::npos);
    }
    INFO(file);
    CHECK(text.find("strategy ==") == std::string::npos);
    CHECK(text.find("strategy !=") == std::string::npos);
  }
}

TEST_CASE("the collective job includes no design: the runner hands it one", "[designs][rooms]") {
  const std::filesystem::path job =
      std::filesystem::path(FAILSIM_SOURCE_DIR) / "sim/collective/job";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(job)) {
    const std::string relative = "sim/collective/job/" + entry.path().filename().string();
    INFO(relative);
    CHECK(failsim::testing::read_source(relative).find("#include \"sim/collective/recovery/") ==
          std::string::npos);
    ++files;
  }
  CHECK(files > 0);
}
