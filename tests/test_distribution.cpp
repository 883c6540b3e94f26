// The failure distributions' list (sim/scenario/distribution.hpp) against everything made from
// it or written beside it: the reader and the writer, the draw and the mean (a sample mean
// against the law's mean), scenarios/schema.json and docs/scenario-format.md. A distribution
// added to one and not the other fails here.
#include <catch2/catch.hpp>

#include "file_text.hpp"
#include "input_error_of.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "models/rng.hpp"
#include "sim/scenario/distribution.hpp"
#include "sim/scenario/sections.hpp"

using nlohmann::json;
using namespace failsim::sim;
using failsim::input::InputError;
using failsim::input::JsonLocation;
using failsim::input::ObjectReader;
using failsim::input::Sign;
using failsim::testing::error_of;
using failsim::testing::file_text;

namespace {

/// A law's fields, each with a valid value: 2 for a shape, "30s" for a duration.
json example_of(const DistributionLaw& law) {
  json d{{"distribution", std::string(law.spelling)}};
  for (const DistributionField& f : law.fields) {
    if (!f.key.empty()) d[std::string(f.key)] = f.is_shape ? json(2.0) : json("30s");
  }
  return d;
}

std::set<std::string> field_keys(const DistributionLaw& law) {
  std::set<std::string> keys;
  for (const DistributionField& f : law.fields) {
    if (!f.key.empty()) keys.insert(std::string(f.key));
  }
  return keys;
}

Distribution read(const json& d) {
  const json parent{{"lifetime", d}};
  const ObjectReader r(parent, JsonLocation{"s.json", ""}, {"lifetime"});
  return detail::read_distribution(r, "lifetime", Sign::POSITIVE);
}

}  // namespace

TEST_CASE("every distribution reads, writes back and reads again to itself", "[distribution]") {
  std::set<std::string> spellings;
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    INFO(law.spelling);
    spellings.insert(std::string(law.spelling));
    const Distribution d = read(example_of(law));
    CHECK(d.kind == law.kind);
    CHECK(&law_of(d.kind) == &law);
    const json written = detail::distribution_to_json(d);
    CHECK(written["distribution"] == law.spelling);
    CHECK(read(written) == d);
    // Another law's field is refused, naming that law.
    for (const DistributionLaw& other : DISTRIBUTION_LAWS) {
      for (const std::string& key : field_keys(other)) {
        if (field_keys(law).count(key) != 0) continue;
        json bad = example_of(law);
        bad[key] = 1;
        const InputError e = error_of([&] { read(bad); });
        CHECK(e.json_path() == "/lifetime/" + key);
        CHECK(e.expected().find("\"" + std::string(other.spelling) + "\"") != std::string::npos);
      }
    }
  }
  CHECK(spellings.size() == DISTRIBUTION_LAWS.size());
  const InputError e = error_of([] { read(json{{"distribution", "zz"}}); });
  for (const std::string& s : spellings) CHECK_THAT(e.expected(), Catch::Contains("\"" + s + "\""));
}

TEST_CASE("each distribution's draws average to its mean", "[distribution]") {
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    INFO(law.spelling);
    const Distribution d = read(example_of(law));
    failsim::models::Rng rng(7);
    const int n = 200000;
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
      const double x = draw(d, rng);
      CHECK(x >= 0.0);
      sum += x;
    }
    // Every law here has a finite variance: at n = 200,000 the sample mean is within 1%.
    CHECK(sum / n == Approx(mean_of(d)).epsilon(0.01));
  }
}

TEST_CASE("the schema and the docs list exactly the distributions and their fields",
          "[distribution][schema][docs]") {
  const json schema =
      json::parse(file_text(FAILSIM_SOURCE_DIR "/scenarios/schema.json"))["$defs"]["distribution"];
  std::set<std::string> spellings, keys{"distribution"};
  for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
    spellings.insert(std::string(law.spelling));
    for (const std::string& key : field_keys(law)) keys.insert(key);
  }
  CHECK(schema["properties"]["distribution"]["enum"].get<std::set<std::string>>() == spellings);
  std::set<std::string> properties;
  for (const auto& item : schema["properties"].items()) properties.insert(item.key());
  CHECK(properties == keys);
  // One clause per law, requiring exactly its fields.
  REQUIRE(schema["oneOf"].size() == DISTRIBUTION_LAWS.size());
  for (const json& clause : schema["oneOf"]) {
    const std::string spelling = clause["properties"]["distribution"]["const"].get<std::string>();
    INFO(spelling);
    bool found = false;
    for (const DistributionLaw& law : DISTRIBUTION_LAWS) {
      if (law.spelling != spelling) continue;
      found = true;
      CHECK(clause["required"].get<std::set<std::string>>() == field_keys(law));
    }
    CHECK(found);
  }
  // The docs' table of a distribution's fields: the spellings in the list's order, then a row
  // per field.
  std::string row = "| `distribution` | ";
  for (std::size_t i = 0; i < DISTRIBUTION_LAWS.size(); ++i) {
    if (i > 0) row += i + 1 == DISTRIBUTION_LAWS.size() ? " or " : ", ";
    row += "`\"" + std::string(DISTRIBUTION_LAWS[i].spelling) + "\"`";
  }
  const std::string docs = file_text(FAILSIM_SOURCE_DIR "/docs/scenario-format.md");
  CHECK_THAT(docs, Catch::Contains(row + " |"));
  for (const std::string& key : keys) CHECK_THAT(docs, Catch::Contains("| `" + key + "` |"));
}
