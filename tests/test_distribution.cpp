// The failure distributions' list (sim/scenario/distribution.hpp) against everything made from
// it or written beside it: the reader and the writer, the draw and the mean (a sample mean
// against the law's mean), scenarios/schema.json and docs/scenario-format.md. A distribution
// added to one and not the other fails here.
#include <catch2/catch.hpp>

#include "file_text.hpp"
#include "input_error_of.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

/// A law's fields, each with a valid value: 0.8 for a shape, "30s" for a duration (a Weibull's
/// and a lognormal's variance are finite and small at 0.8: see the test of means below).
json example_of(const DistributionLaw& law) {
  json d{{"distribution", std::string(law.spelling)}};
  for (const DistributionField& f : law.fields) {
    if (!f.key.empty()) d[std::string(f.key)] = f.is_shape ? json(0.8) : json("30s");
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
    // Every law here has a finite variance, at shape 0.8 a squared coefficient of variation of
    // at most 1.63 (Weibull: Gamma(3.5)/Gamma(2.25)^2 - 1; lognormal: e^0.64 - 1 = 0.90): at
    // n = 200,000 the sample mean's standard error is at most 0.29%, and within 1% is 3.5 of them.
    CHECK(sum / n == Approx(mean_of(d)).epsilon(0.01));
  }
}

TEST_CASE("a lognormal's draws have its moments and its quantiles", "[distribution]") {
  // mean 100 s, sigma 1: mu = ln 100 - 1/2 = 4.10517, so the median is e^mu = 100 e^-0.5 =
  // 60.653 s and the 90% quantile e^(mu + 1.28155) = 60.653 x 3.6022 = 218.49 s (1.28155: the
  // standard normal's 90% quantile); the variance is mean^2 (e^(sigma^2) - 1) = 17,183 s^2.
  const Distribution d = read(json::parse(R"({"distribution": "lognormal", "mean": "100s",
                                                "sigma": 1})"));
  CHECK(d.kind == DistributionKind::LOGNORMAL);
  CHECK(mean_of(d) == 100.0);
  failsim::models::Rng rng(11);
  const int n = 400000;
  std::vector<double> x(n);
  double sum = 0.0, log_sum = 0.0, log_square = 0.0;
  for (double& v : x) {
    v = draw(d, rng);
    sum += v;
    log_sum += std::log(v);
    log_square += std::log(v) * std::log(v);
  }
  const double mean = sum / n;
  double square = 0.0;
  for (const double v : x) square += (v - mean) * (v - mean);
  // ln x is normal: its sample mean and deviation are within a few standard errors (0.0016 and
  // 0.0011 at n = 400,000) of mu and sigma.
  const double mu = log_sum / n;
  CHECK(mu == Approx(4.10517).margin(0.006));
  CHECK(std::sqrt(log_square / n - mu * mu) == Approx(1.0).margin(0.005));
  // The mean's standard error is sqrt(17,183 / n) = 0.21 s; the variance's converges slowly
  // (its fourth moment is large), within 5% here.
  CHECK(mean == Approx(100.0).margin(1.0));
  CHECK(square / n == Approx(17183.0).epsilon(0.05));
  std::sort(x.begin(), x.end());
  CHECK(x[n / 2] == Approx(60.653).epsilon(0.01));
  CHECK(x[n * 9 / 10] == Approx(218.49).epsilon(0.01));
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
