// The cost model (engine-free): each billing rule against costs worked out by hand, invariants
// over random timelines, the shipped analysis/prices.json, and a catalogue of bad price files,
// each with its exact error (file, JSON Pointer, expectation, found value).
#include <catch2/catch.hpp>

#include "input_error_of.hpp"
#include "temp_dir.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/cost_model.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace failsim::analysis;
using failsim::input::InputError;
using failsim::testing::error_of;
using failsim::testing::TempDir;

namespace {

const fs::path SOURCE_DIR = FAILSIM_SOURCE_DIR;
const fs::path SHIPPED_PRICES = SOURCE_DIR / "analysis" / "prices.json";

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// Round prices so costs come out by hand: type "a" costs 3.6 $/h on demand (0.001 $/s),
/// 1.8 $/h committed and 0.72 $/h spot (0.0002 $/s); "b" has an on-demand price only.
const char* const BASE = R"({
  "format": "failsim-prices",
  "format_version": 1,
  "default_plan": "od",
  "instances": {
    "a": { "provider": "aws", "region": "r", "on_demand_per_hour": 3.6,
           "commitment_per_hour": 1.8, "spot_per_hour": 0.72,
           "spot_interruptions_per_hour": 0.5,
           "sources": ["https://example.org/a", "knowledge"], "date": "2026-11-29",
           "note": "made up for the tests" },
    "b": { "provider": "gcp", "region": "r", "on_demand_per_hour": 1.0,
           "sources": ["s"], "date": "2024-02-29" }
  },
  "plans": {
    "od": { "description": "per second", "rule": "per_second", "minimum": 60,
            "roles": { "server": "a", "worker": "a" } },
    "hourly": { "rule": "per_hour", "roles": { "worker": "a" } },
    "fixed": { "rule": "commitment", "roles": { "server": "a", "worker": "a" } },
    "cheap": { "rule": "spot", "minimum": "1min", "roles": { "server": "a", "worker": "a" } },
    "workers-only": { "rule": "per_second", "roles": { "worker": "a", "replica": "b" } }
  }
})";

PriceBook base_book() { return parse_price_book_text(BASE, "base.json"); }

HostTimeline host(std::string name, std::string role, std::vector<Interval> down = {}) {
  return HostTimeline{std::move(name), std::move(role), std::move(down)};
}

constexpr double INF = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("a price file is read into instance types and plans", "[cost]") {
  const PriceBook book = base_book();
  CHECK(book.default_plan == "od");
  REQUIRE(book.instances.size() == 2);
  const InstanceType& a = book.instances.at("a");
  CHECK(a.name == "a");
  CHECK(a.provider == "aws");
  CHECK(a.region == "r");
  CHECK(a.on_demand_per_hour == 3.6);
  CHECK(a.commitment_per_hour == 1.8);
  CHECK(a.spot_per_hour == 0.72);
  CHECK(a.spot_interruptions_per_hour == 0.5);
  CHECK(a.source == "https://example.org/a; knowledge");
  CHECK(a.date == "2026-11-29");
  CHECK(a.note == "made up for the tests");
  const InstanceType& b = book.instances.at("b");  // optional prices default to 0
  CHECK(b.commitment_per_hour == 0.0);
  CHECK(b.spot_per_hour == 0.0);
  CHECK(b.spot_interruptions_per_hour == 0.0);
  CHECK(b.note.empty());

  REQUIRE(book.plans.size() == 5);
  const Plan& od = book.plans.at("od");
  CHECK(od.name == "od");
  CHECK(od.description == "per second");
  CHECK(od.rule == BillingRule::PER_SECOND);
  CHECK(od.minimum_seconds == 60.0);
  CHECK(od.roles == std::map<std::string, std::string>{{"server", "a"}, {"worker", "a"}});
  CHECK(book.plans.at("cheap").minimum_seconds == 60.0);  // "1min", a duration with a unit
  CHECK(book.plans.at("cheap").rule == BillingRule::SPOT);
  CHECK(book.plans.at("hourly").rule == BillingRule::PER_HOUR);
  CHECK(book.plans.at("hourly").minimum_seconds == 0.0);
  CHECK(book.plans.at("fixed").rule == BillingRule::COMMITMENT);
  CHECK(book.plans.at("workers-only").minimum_seconds == 0.0);  // default minimum

  CHECK(to_string(BillingRule::PER_SECOND) == "per_second");
  CHECK(to_string(BillingRule::PER_HOUR) == "per_hour");
  CHECK(to_string(BillingRule::COMMITMENT) == "commitment");
  CHECK(to_string(BillingRule::SPOT) == "spot");
}

TEST_CASE("per second: each held interval at the on-demand price, at least the minimum", "[cost]") {
  const PriceBook book = base_book();

  SECTION("a host down in the middle pays for the two held intervals") {
    // Held [0, 300) and [400, 1000): 300 s + 600 s at 0.001 $/s.
    const Cost c = cost_of_run(book, "od", {host("worker-0", "worker", {{300, 400}})}, 1000);
    CHECK(c.usd == Approx(0.9));
    CHECK(c.host_hours == Approx(900.0 / 3600));
    CHECK(c.billed_hours == Approx(900.0 / 3600));
  }
  SECTION("short held intervals are charged the minimum each") {
    // Held [0, 10) and [980, 1000): 10 s and 20 s held, 60 s + 60 s charged.
    const Cost c = cost_of_run(book, "od", {host("worker-0", "worker", {{10, 980}})}, 1000);
    CHECK(c.usd == Approx(0.12));
    CHECK(c.host_hours == Approx(30.0 / 3600));
    CHECK(c.billed_hours == Approx(120.0 / 3600));
  }
  SECTION("an interval cut short by `until` is still charged its minimum") {
    const Cost c = cost_of_run(book, "od", {host("worker-0", "worker")}, 30);
    CHECK(c.usd == Approx(0.06));
    CHECK(c.host_hours == Approx(30.0 / 3600));
    CHECK(c.billed_hours == Approx(60.0 / 3600));
  }
  SECTION("`until` clips down intervals; a host down for good is released at its failure") {
    const Cost clipped = cost_of_run(book, "od", {host("worker-0", "worker", {{500, 2000}})}, 1000);
    CHECK(clipped.usd == Approx(0.5));
    const Cost forever = cost_of_run(book, "od", {host("worker-0", "worker", {{500, INF}})}, 1000);
    CHECK(forever.usd == Approx(0.5));
    CHECK(forever.host_hours == Approx(500.0 / 3600));
  }
  SECTION("a down interval from 0, and one starting after `until`") {
    // Held [100, 1000) only: the second interval is past the window.
    const Cost c =
        cost_of_run(book, "od", {host("worker-0", "worker", {{0, 100}, {1500, 1600}})}, 1000);
    CHECK(c.usd == Approx(0.9));
  }
  SECTION("touching down intervals leave no zero-length interval to charge a minimum for") {
    const Cost c =
        cost_of_run(book, "od", {host("worker-0", "worker", {{100, 200}, {200, 300}})}, 1000);
    CHECK(c.usd == Approx(0.8));
    CHECK(c.billed_hours == Approx(800.0 / 3600));
  }
  SECTION("hosts add up") {
    const Cost c = cost_of_run(
        book, "od", {host("server-0", "server"), host("worker-0", "worker", {{300, 400}})}, 1000);
    CHECK(c.usd == Approx(1.9));
    CHECK(c.host_hours == Approx(1900.0 / 3600));
  }
  SECTION("an empty window costs nothing") {
    const Cost c = cost_of_run(book, "od", {host("worker-0", "worker")}, 0);
    CHECK(c.usd == 0.0);
    CHECK(c.host_hours == 0.0);
    CHECK(c.billed_hours == 0.0);
  }
}

TEST_CASE("per hour: each held interval rounded up to whole hours", "[cost]") {
  const PriceBook book = base_book();
  // 1.5 h in two pieces, 1800 s and 3599 s: one hour each.
  const Cost two = cost_of_run(book, "hourly", {host("worker-0", "worker", {{1800, 1801}})}, 5400);
  CHECK(two.billed_hours == 2.0);
  CHECK(two.usd == Approx(7.2));
  CHECK(two.host_hours == Approx(5399.0 / 3600));
  // One piece of 1.5 h: two hours.
  CHECK(cost_of_run(book, "hourly", {host("worker-0", "worker")}, 5400).billed_hours == 2.0);
  // A second held is an hour; exactly an hour is one, even with floating-point dust on it.
  CHECK(cost_of_run(book, "hourly", {host("worker-0", "worker")}, 1).billed_hours == 1.0);
  CHECK(cost_of_run(book, "hourly", {host("worker-0", "worker")}, 3600).billed_hours == 1.0);
  double dusty = 0.0;
  for (int i = 0; i < 36000; ++i) dusty += 0.1;
  REQUIRE(dusty != 3600.0);
  CHECK(cost_of_run(book, "hourly", {host("worker-0", "worker")}, dusty).billed_hours == 1.0);
  CHECK(cost_of_run(book, "hourly", {host("worker-0", "worker")}, 3601).billed_hours == 2.0);
}

TEST_CASE("commitment: every billed host pays the whole window, down or not", "[cost]") {
  const PriceBook book = base_book();
  // Two hours; the worker is down for one of them and still pays both at 1.8 $/h.
  const Cost c =
      cost_of_run(book, "fixed",
                  {host("server-0", "server"), host("worker-0", "worker", {{1000, 4600}})}, 7200);
  CHECK(c.usd == Approx(4 * 1.8));
  CHECK(c.billed_hours == Approx(4.0));
  CHECK(c.host_hours == Approx(3.0));
  // Down for good from the start: nothing held, the contract still paid.
  const Cost dead = cost_of_run(book, "fixed", {host("worker-0", "worker", {{0, INF}})}, 3600);
  CHECK(dead.usd == Approx(1.8));
  CHECK(dead.host_hours == 0.0);
}

TEST_CASE("spot: per second at the spot price, with the plan's minimum", "[cost]") {
  const PriceBook book = base_book();
  // Held 300 s and 600 s at 0.0002 $/s.
  const Cost c = cost_of_run(book, "cheap", {host("worker-0", "worker", {{300, 400}})}, 1000);
  CHECK(c.usd == Approx(0.18));
  CHECK(c.billed_hours == Approx(900.0 / 3600));
  // A 10 s run is charged the 60 s minimum.
  CHECK(cost_of_run(book, "cheap", {host("worker-0", "worker")}, 10).usd == Approx(0.012));
}

TEST_CASE("roles a plan does not name are not billed", "[cost]") {
  const PriceBook book = base_book();
  const std::vector<HostTimeline> hosts = {
      host("server-0", "server"), host("server-1", "replica"),        host("worker-0", "worker"),
      host("storage", "storage"), host("coordinator", "coordinator"),
  };
  // "od" names server and worker: the replica, storage and coordinator cost nothing.
  const Cost od = cost_of_run(book, "od", hosts, 1000);
  CHECK(od.usd == Approx(2.0));
  CHECK(od.host_hours == Approx(2000.0 / 3600));
  // "workers-only" names the worker (type a, 3.6 $/h) and the replica (type b, 1 $/h).
  const Cost workers = cost_of_run(book, "workers-only", hosts, 3600);
  CHECK(workers.usd == Approx(4.6));
  CHECK(workers.host_hours == Approx(2.0));
  // Nothing billed at all.
  CHECK(cost_of_run(book, "od", {host("storage", "storage")}, 1000).usd == 0.0);
}

TEST_CASE("bad calls: unknown plans, windows and timelines are std::invalid_argument", "[cost]") {
  const PriceBook book = base_book();
  const std::vector<HostTimeline> one = {host("worker-0", "worker")};
  CHECK_THROWS_WITH(cost_of_run(book, "nope", one, 10),
                    "cost_of_run: no plan named 'nope' in the price book");
  CHECK_THROWS_AS(cost_of_run(book, "od", one, -1), std::invalid_argument);
  CHECK_THROWS_AS(cost_of_run(book, "od", one, std::nan("")), std::invalid_argument);
  const char* unsorted =
      "cost_of_run: the down intervals of 'worker-0' are not sorted, disjoint intervals with "
      "begin <= end";
  CHECK_THROWS_WITH(
      cost_of_run(book, "od", {host("worker-0", "worker", {{50, 60}, {10, 20}})}, 100), unsorted);
  CHECK_THROWS_WITH(
      cost_of_run(book, "od", {host("worker-0", "worker", {{10, 30}, {20, 40}})}, 100), unsorted);
  CHECK_THROWS_WITH(cost_of_run(book, "od", {host("worker-0", "worker", {{30, 20}})}, 100),
                    unsorted);
}

TEST_CASE("invariants over random timelines", "[cost]") {
  const PriceBook book = base_book();
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> gap(0.0, 400.0);
  std::uniform_int_distribution<int> count(0, 6);
  for (int trial = 0; trial < 200; ++trial) {
    const double until = 100.0 + gap(rng) * 20.0;
    std::vector<HostTimeline> hosts;
    for (int h = 0; h < 3; ++h) {
      std::vector<Interval> down;
      double t = 0.0;
      for (int k = count(rng); k > 0; --k) {
        const double begin = t + gap(rng);
        const double end = begin + gap(rng);
        down.push_back({begin, end});
        t = end;
      }
      hosts.push_back(host("worker-" + std::to_string(h), "worker", down));
    }
    INFO("trial " << trial);
    const Cost od = cost_of_run(book, "od", hosts, until);
    const Cost exact = cost_of_run(book, "workers-only", hosts, until);  // no minimum
    const Cost hourly = cost_of_run(book, "hourly", hosts, until);
    const Cost fixed = cost_of_run(book, "fixed", hosts, until);
    const Cost spot = cost_of_run(book, "cheap", hosts, until);
    // The same hosts are held whatever the plan.
    CHECK(od.host_hours == Approx(exact.host_hours));
    CHECK(hourly.host_hours == Approx(exact.host_hours));
    CHECK(fixed.host_hours == Approx(exact.host_hours));
    // Without a minimum, per-second billing charges exactly the held time.
    CHECK(exact.billed_hours == Approx(exact.host_hours));
    CHECK(exact.usd == Approx(exact.host_hours * 3.6));
    // Minimums and rounding only ever add; a commitment charges the window for every host.
    CHECK(od.billed_hours >= exact.billed_hours - 1e-12);
    CHECK(hourly.billed_hours >= od.billed_hours - 1e-12);  // an hour covers any minute
    CHECK(hourly.billed_hours == std::floor(hourly.billed_hours));
    CHECK(fixed.billed_hours == Approx(3 * until / 3600));
    CHECK(fixed.host_hours <= fixed.billed_hours + 1e-12);
    // Spot is per second at the spot price with the same minimum as "od".
    CHECK(spot.billed_hours == Approx(od.billed_hours));
    CHECK(spot.usd == Approx(od.usd * 0.72 / 3.6));
  }
}

TEST_CASE("the shipped analysis/prices.json loads, and every plan prices a one-hour run",
          "[cost]") {
  const PriceBook book = load_price_book(SHIPPED_PRICES);
  CHECK(book.default_plan == "commitment-1yr");
  CHECK(book.default_collective_plan == "gpu-on-demand");  // a collective run's nodes
  for (const char* plan : {"on-demand-per-second", "on-demand-per-hour", "commitment-1yr", "spot",
                           "gpu-on-demand", "gpu-capacity-block"}) {
    CHECK(book.plans.count(plan) == 1);
  }
  for (const auto& [name, type] : book.instances) {
    INFO(name);
    CHECK(!type.source.empty());
    CHECK(!type.note.empty());  // every shipped figure says where it comes from
    CHECK(type.on_demand_per_hour > 0.0);
  }
  for (const auto& [name, plan] : book.plans) {
    INFO(name);
    // Roles storage and coordinator are managed services, not billed by default.
    CHECK(plan.roles.count("storage") == 0);
    CHECK(plan.roles.count("coordinator") == 0);
    // A plan bills either a parameter server's workers or a collective run's nodes.
    const std::string role = plan.roles.count("node") == 1 ? "node" : "worker";
    REQUIRE(plan.roles.count(role) == 1);
    CHECK(plan.roles.size() == (role == "node" ? 1u : 3u));
    const InstanceType& type = book.instances.at(plan.roles.at(role));
    const Cost c = cost_of_run(book, name, {host(role + "-0", role)}, 3600);
    CHECK(c.host_hours == Approx(1.0));
    CHECK(c.billed_hours == Approx(1.0));
    switch (plan.rule) {
      case BillingRule::PER_SECOND:
      case BillingRule::PER_HOUR:
        CHECK(c.usd == Approx(type.on_demand_per_hour));
        break;
      case BillingRule::COMMITMENT:
        CHECK(c.usd == Approx(type.commitment_per_hour));
        CHECK(c.usd < type.on_demand_per_hour);
        break;
      case BillingRule::SPOT:
        CHECK(c.usd == Approx(type.spot_per_hour));
        CHECK(c.usd < type.on_demand_per_hour);
        CHECK(type.spot_interruptions_per_hour > 0.0);
        break;
    }
  }
}

TEST_CASE("price files that cannot be read or are not JSON are errors with a position", "[cost]") {
  TempDir tmp;
  const fs::path missing = tmp.file("missing.json");
  CHECK(std::string(error_of([&] { load_price_book(missing); }).what()) ==
        missing.string() + ": expected a readable price file, found no such file");
  CHECK(std::string(error_of([&] { load_price_book(tmp.path()); }).what()) ==
        tmp.path() + ": expected a readable price file, found a directory");

  const fs::path broken = tmp.file("broken.json");
  write_text(broken, "{\n  \"format\": \"failsim-prices\",\n  \"format_version\": 1,\n}\n");
  const failsim::input::InputError e = error_of([&] { load_price_book(broken); });
  CHECK(e.file() == broken.string());
  CHECK(e.line() == 4);
  CHECK(e.column() == 1);
  CHECK(e.json_path().empty());
  CHECK(std::string(e.what()) ==
        broken.string() +
            ":4:1: expected valid JSON, found syntax error while parsing object key - unexpected "
            "'}'; expected string literal");

  const fs::path twice = tmp.file("twice.json");
  write_text(twice, R"({"instances": {"a": {}, "a": {}}})");
  const failsim::input::InputError d = error_of([&] { load_price_book(twice); });
  CHECK(d.json_path() == "/instances/a");
  CHECK(d.expected() == "each key at most once in an object");
  CHECK(d.found() == "'a' a second time");
}

namespace {

/// One bad price file: BASE changed by `change`, and the error it must give.
struct BadPrices {
  std::string what;
  std::function<void(json&)> change;
  std::string json_path;
  std::string expected;
  std::string found;
};

std::vector<BadPrices> catalogue() {
  const std::string instance_keys =
      "a known key (provider, region, on_demand_per_hour, commitment_per_hour, spot_per_hour, "
      "spot_interruptions_per_hour, sources, date, note)";
  const std::string sources_expected =
      "a list of at least 1 non-empty strings (URLs or document names)";
  const std::string date_expected = "a date written YYYY-MM-DD";
  const std::string instance_types = "one of the instance types in /instances (\"a\", \"b\")";
  return {
      // The document and its format keys.
      {"not an object", [](json& d) { d = json::array(); }, "",
       "an object with keys (format, format_version, description, default_plan, "
       "default_collective_plan, instances, plans)",
       "[]"},
      {"unknown top-level key", [](json& d) { d["instance"] = json::object(); }, "/instance",
       "a known key (format, format_version, description, default_plan, "
       "default_collective_plan, instances, plans)",
       "unknown key 'instance' (did you mean 'instances'?)"},
      {"format missing", [](json& d) { d.erase("format"); }, "/format",
       "\"failsim-prices\" (required)", "nothing"},
      {"another format", [](json& d) { d["format"] = "failsim-scenario"; }, "/format",
       "\"failsim-prices\"", "\"failsim-scenario\""},
      {"format version from the future", [](json& d) { d["format_version"] = 2; },
       "/format_version", "an integer in [1, 1]", "2"},
      {"format version as a float", [](json& d) { d["format_version"] = 1.0; }, "/format_version",
       "an integer in [1, 1]", "1.0"},
      {"empty description", [](json& d) { d["description"] = ""; }, "/description",
       "a non-empty string", "\"\""},
      // Instance types.
      {"no instances", [](json& d) { d["instances"] = json::object(); }, "/instances",
       "an object of instance types by name, at least one", "{}"},
      {"instances as a list", [](json& d) { d["instances"] = json::array(); }, "/instances",
       "an object of instance types by name, at least one", "[]"},
      {"an instance type without a name", [](json& d) { d["instances"][""] = d["instances"]["b"]; },
       "/instances/", "a non-empty name", "\"\""},
      {"an instance type that is not an object", [](json& d) { d["instances"]["b"] = 1; },
       "/instances/b",
       "an object with keys (provider, region, on_demand_per_hour, commitment_per_hour, "
       "spot_per_hour, spot_interruptions_per_hour, sources, date, note)",
       "1"},
      {"misspelt price key", [](json& d) { d["instances"]["a"]["spot_per_hours"] = 0.1; },
       "/instances/a/spot_per_hours", instance_keys,
       "unknown key 'spot_per_hours' (did you mean 'spot_per_hour'?)"},
      {"provider missing", [](json& d) { d["instances"]["a"].erase("provider"); },
       "/instances/a/provider", "a non-empty string (required)", "nothing"},
      {"empty region", [](json& d) { d["instances"]["a"]["region"] = ""; }, "/instances/a/region",
       "a non-empty string", "\"\""},
      {"on-demand price missing", [](json& d) { d["instances"]["a"].erase("on_demand_per_hour"); },
       "/instances/a/on_demand_per_hour", "a number > 0 (required)", "nothing"},
      {"on-demand price zero", [](json& d) { d["instances"]["a"]["on_demand_per_hour"] = 0; },
       "/instances/a/on_demand_per_hour", "a number > 0", "0"},
      {"negative commitment price",
       [](json& d) { d["instances"]["a"]["commitment_per_hour"] = -0.5; },
       "/instances/a/commitment_per_hour", "a number >= 0", "-0.5"},
      {"negative spot price", [](json& d) { d["instances"]["a"]["spot_per_hour"] = -1; },
       "/instances/a/spot_per_hour", "a number >= 0", "-1"},
      {"price as a string", [](json& d) { d["instances"]["a"]["spot_per_hour"] = "0.1"; },
       "/instances/a/spot_per_hour", "a number >= 0", "\"0.1\""},
      {"negative interruption rate",
       [](json& d) { d["instances"]["a"]["spot_interruptions_per_hour"] = -0.01; },
       "/instances/a/spot_interruptions_per_hour", "a number >= 0", "-0.01"},
      {"sources missing", [](json& d) { d["instances"]["a"].erase("sources"); },
       "/instances/a/sources", sources_expected + " (required)", "nothing"},
      {"no sources", [](json& d) { d["instances"]["a"]["sources"] = json::array(); },
       "/instances/a/sources", sources_expected, "[]"},
      {"a source that is not a list",
       [](json& d) { d["instances"]["a"]["sources"] = "https://example.org"; },
       "/instances/a/sources", sources_expected, "\"https://example.org\""},
      {"an empty source",
       [](json& d) {
         d["instances"]["a"]["sources"] = {"ok", ""};
       },
       "/instances/a/sources/1", "a non-empty string", "\"\""},
      {"date missing", [](json& d) { d["instances"]["a"].erase("date"); }, "/instances/a/date",
       date_expected + " (required)", "nothing"},
      {"date in another order", [](json& d) { d["instances"]["a"]["date"] = "29/11/2026"; },
       "/instances/a/date", date_expected, "\"29/11/2026\""},
      {"date without leading zeros", [](json& d) { d["instances"]["a"]["date"] = "2026-1-9"; },
       "/instances/a/date", date_expected, "\"2026-1-9\""},
      {"date as a number", [](json& d) { d["instances"]["a"]["date"] = 20261129; },
       "/instances/a/date", date_expected, "20261129"},
      {"a day that does not exist", [](json& d) { d["instances"]["a"]["date"] = "2025-02-29"; },
       "/instances/a/date", "a date written YYYY-MM-DD that exists in the calendar",
       "\"2025-02-29\""},
      {"month 13", [](json& d) { d["instances"]["a"]["date"] = "2026-13-01"; }, "/instances/a/date",
       "a date written YYYY-MM-DD that exists in the calendar", "\"2026-13-01\""},
      {"empty note", [](json& d) { d["instances"]["a"]["note"] = ""; }, "/instances/a/note",
       "a non-empty string", "\"\""},
      // Plans.
      {"no plans", [](json& d) { d["plans"] = json::object(); }, "/plans",
       "an object of plans by name, at least one", "{}"},
      {"unknown plan key", [](json& d) { d["plans"]["od"]["minimun"] = 60; }, "/plans/od/minimun",
       "a known key (description, rule, minimum, roles)",
       "unknown key 'minimun' (did you mean 'minimum'?)"},
      {"rule missing", [](json& d) { d["plans"]["od"].erase("rule"); }, "/plans/od/rule",
       "one of \"per_second\", \"per_hour\", \"commitment\", \"spot\" (required)", "nothing"},
      {"misspelt rule", [](json& d) { d["plans"]["od"]["rule"] = "per-second"; }, "/plans/od/rule",
       "one of \"per_second\", \"per_hour\", \"commitment\", \"spot\"",
       "\"per-second\" (did you mean \"per_second\"?)"},
      {"a minimum on a per-hour plan", [](json& d) { d["plans"]["hourly"]["minimum"] = 60; },
       "/plans/hourly/minimum",
       "no 'minimum' here (only rules \"per_second\" and \"spot\" have a minimum)", "60"},
      {"a minimum on a commitment", [](json& d) { d["plans"]["fixed"]["minimum"] = "1min"; },
       "/plans/fixed/minimum",
       "no 'minimum' here (only rules \"per_second\" and \"spot\" have a minimum)", "\"1min\""},
      {"a minimum that is not a duration", [](json& d) { d["plans"]["od"]["minimum"] = "60GB"; },
       "/plans/od/minimum",
       "a duration >= 0: a number of seconds, or a string with a unit such as \"50us\", "
       "\"1.5s\", \"10min\", \"2h13min\" (units: ps ns us ms s min h d w)",
       "\"60GB\" ('GB' is a unit of a data size, not of a duration)"},
      {"roles missing", [](json& d) { d["plans"]["od"].erase("roles"); }, "/plans/od/roles",
       "an object with keys (server, replica, worker, storage, coordinator, node) (required)",
       "nothing"},
      {"no roles", [](json& d) { d["plans"]["od"]["roles"] = json::object(); }, "/plans/od/roles",
       "at least one role (server, replica, worker, storage, coordinator, node)", "{}"},
      {"unknown role", [](json& d) { d["plans"]["od"]["roles"]["workers"] = "a"; },
       "/plans/od/roles/workers",
       "a known key (server, replica, worker, storage, coordinator, node)",
       "unknown key 'workers' (did you mean 'worker'?)"},
      {"a role naming no instance type", [](json& d) { d["plans"]["od"]["roles"]["worker"] = "z"; },
       "/plans/od/roles/worker", instance_types, "\"z\" (did you mean \"a\"?)"},
      {"a role naming a far-off instance type",
       [](json& d) { d["plans"]["od"]["roles"]["worker"] = "m5.xlarge"; }, "/plans/od/roles/worker",
       instance_types, "\"m5.xlarge\""},
      {"a role that is not a string", [](json& d) { d["plans"]["od"]["roles"]["worker"] = 1; },
       "/plans/od/roles/worker", instance_types, "1"},
      {"a spot plan on a type without a spot price",
       [](json& d) { d["plans"]["cheap"]["roles"]["worker"] = "b"; }, "/plans/cheap/roles/worker",
       "an instance type with spot_per_hour > 0 (rule \"spot\" charges it)",
       "\"b\", whose spot_per_hour is 0 or absent"},
      {"a commitment on a type without a commitment price",
       [](json& d) { d["plans"]["fixed"]["roles"]["server"] = "b"; }, "/plans/fixed/roles/server",
       "an instance type with commitment_per_hour > 0 (rule \"commitment\" charges it)",
       "\"b\", whose commitment_per_hour is 0 or absent"},
      {"a spot plan on a type whose spot price is 0",
       [](json& d) { d["instances"]["a"]["spot_per_hour"] = 0; }, "/plans/cheap/roles/server",
       "an instance type with spot_per_hour > 0 (rule \"spot\" charges it)",
       "\"a\", whose spot_per_hour is 0 or absent"},
      // The default plan.
      {"default plan missing", [](json& d) { d.erase("default_plan"); }, "/default_plan",
       "one of the plans (\"cheap\", \"fixed\", \"hourly\", \"od\", \"workers-only\") (required)",
       "nothing"},
      {"default plan misspelt", [](json& d) { d["default_plan"] = "odd"; }, "/default_plan",
       "one of the plans (\"cheap\", \"fixed\", \"hourly\", \"od\", \"workers-only\")",
       "\"odd\" (did you mean \"od\"?)"},
      {"default plan not a string", [](json& d) { d["default_plan"] = json::array(); },
       "/default_plan",
       "one of the plans (\"cheap\", \"fixed\", \"hourly\", \"od\", \"workers-only\")", "[]"},
      // The default plan of collective runs: optional, a plan that bills nodes.
      {"default collective plan misspelt", [](json& d) { d["default_collective_plan"] = "odd"; },
       "/default_collective_plan",
       "one of the plans (\"cheap\", \"fixed\", \"hourly\", \"od\", \"workers-only\")",
       "\"odd\" (did you mean \"od\"?)"},
      {"default collective plan without nodes",
       [](json& d) { d["default_collective_plan"] = "od"; }, "/default_collective_plan",
       "a plan that names the role \"node\" (a collective run's hosts)", "\"od\", which does not"},
  };
}

}  // namespace

TEST_CASE("the catalogue of bad price files: each gets its exact error", "[cost]") {
  TempDir tmp;
  const fs::path file = tmp.file("prices.json");
  const json base = json::parse(BASE);
  std::set<std::string> inputs;
  for (const BadPrices& c : catalogue()) {
    INFO(c.what);
    json doc = base;
    c.change(doc);
    CHECK(inputs.insert(doc.dump()).second);  // every case is a different file
    write_text(file, doc.dump(2));
    const failsim::input::InputError e = error_of([&] { load_price_book(file); });
    CHECK(e.file() == file.string());
    CHECK(e.json_path() == c.json_path);
    CHECK(e.expected() == c.expected);
    CHECK(e.found() == c.found);
    CHECK(e.line() == 0);
    const std::string where = c.json_path.empty() ? "" : ": " + c.json_path;
    CHECK(std::string(e.what()) ==
          file.string() + where + ": expected " + c.expected + ", found " + c.found);
  }
  CHECK(catalogue().size() >= 45);
}
