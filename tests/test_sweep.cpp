// Sweep files below the CLI (engine-free): JSON Pointer substitution (shared with `failsim run
// --set`), expansion into points and runs (grid, zip, ranges, seeds), the plan written to
// sweep.json, a catalogue of bad sweep files each with its message, runs.csv, and the docs page
// against the example files.
#include <catch2/catch.hpp>

#include "input_error_of.hpp"
#include "temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/figure_names.hpp"
#include "input/json_pointer.hpp"
#include "sim/scenario/scenario.hpp"
#include "sweep/aggregate.hpp"
#include "sweep/plan.hpp"

namespace fs = std::filesystem;
using failsim::testing::error_of;
using failsim::testing::TempDir;
using nlohmann::json;
using namespace failsim::sim;
using namespace failsim::sweep;
using namespace failsim::input;

namespace {

/// A small valid scenario with one server kill, so that /failures/events/0/at exists.
const char* const CKPT = R"({
  "name": "ckpt",
  "seed": 7,
  "data": { "kind": "synthetic", "train_size": 1000, "test_size": 200 },
  "model": { "kind": "softmax" },
  "cluster": { "workers": { "count": 2, "speed": "1Gf" }, "servers": { "speed": "2Gf" } },
  "consistency": { "mode": "async" },
  "stop": { "time": "10s" },
  "recovery": { "strategy": "checkpoint" },
  "failures": { "events": [{ "target": "server", "at": "2s", "down_for": "1s" }] }
})";

/// The same with the stateless strategy, and another name.
json stateless() {
  json doc = json::parse(CKPT);
  doc["name"] = "stateless";
  doc["recovery"] = {{"strategy", "stateless"}};
  return doc;
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// A temporary directory with the two base scenarios in bases/, and sweep files beside.
struct Fixture {
  TempDir dir;
  Fixture() {
    write_text(dir.file("bases/ckpt.json"), CKPT);
    write_text(dir.file("bases/stateless.json"), stateless().dump(2));
  }
  std::string label() const { return dir.file("sweeps/s.json"); }
  Sweep parse(const json& sweep) const { return parse_sweep(sweep, label()); }
  SweepPlan expand(const json& sweep) const { return expand_sweep(parse(sweep)); }
};

std::vector<std::string> texts(const std::vector<json>& values) {
  std::vector<std::string> out;
  for (const json& v : values) out.push_back(value_text(v));
  return out;
}

}  // namespace

TEST_CASE("set_at_pointer replaces, adds a member, and says why a pointer does not fit",
          "[sweep]") {
  json doc = json::parse(CKPT);
  CHECK(set_at_pointer(doc, "/failures/events/0/at", "40s").empty());
  CHECK(doc["failures"]["events"][0]["at"] == "40s");
  CHECK(set_at_pointer(doc, "/optimizer", json{{"learning_rate", 0.1}}).empty());  // a new key
  CHECK(doc["optimizer"]["learning_rate"] == 0.1);
  CHECK(set_at_pointer(doc, "/cluster/workers/count", 4).empty());
  CHECK(doc["cluster"]["workers"]["count"] == 4);
  const json before = doc;
  CHECK(set_at_pointer(doc, "/evaluation/interval", "1s") ==
        "the top level has no member "
        "'evaluation'");
  CHECK(set_at_pointer(doc, "/failures/events/1/at", "1s") ==
        "/failures/events has no element 1 (it has 1 element)");
  CHECK(set_at_pointer(doc, "/failures/events/-/at", "1s") ==
        "/failures/events is an array: '-' is not an index of an existing element");
  CHECK(set_at_pointer(doc, "/failures/events/01", "1s") ==
        "/failures/events is an array: '01' is not an index of an existing element");
  CHECK(set_at_pointer(doc, "/name/x", 1) == "/name is \"ckpt\", not an object or an array");
  CHECK(set_at_pointer(doc, "name", 1) == "no leading '/'");
  CHECK(set_at_pointer(doc, "", 1) == "empty: the whole scenario, not a field of it");
  CHECK(set_at_pointer(doc, "/a~2b", 1) == "'~' not followed by '0' (for '~') or '1' (for '/')");
  CHECK(doc == before);  // a pointer that does not fit changes nothing
  // RFC 6901 escapes: "~1" is '/', "~0" is '~'.
  CHECK(set_at_pointer(doc, "/data/a~1b~0c", 1).empty());
  CHECK(doc["data"]["a/b~c"] == 1);
}

TEST_CASE("a VALUE of --set is JSON when it parses as JSON, else a string", "[sweep]") {
  const auto value = [](const std::string& text) { return parse_pointer_setting(text)->value; };
  CHECK(value("/failures/events/0/at=40s") == "40s");
  CHECK(value("/optimizer/learning_rate=0.1") == 0.1);
  CHECK(value("/cluster/workers/count=4") == 4);
  CHECK(value("/evaluation/final_full_test=false") == false);
  CHECK(value("/name=\"4\"") == "4");  // quoted: the string, not the number
  CHECK(value("/cluster/workers/speeds=[1e9, 2e9]") == json::array({1e9, 2e9}));
  CHECK(value("/name=a=b") == "a=b");  // split at the first '='
  CHECK(value("/name=") == "");
  CHECK(parse_pointer_setting("/name=x")->pointer == "/name");
  CHECK_FALSE(parse_pointer_setting("/name"));
}

TEST_CASE("a sweep expands to the full grid over bases and entries, then seeds", "[sweep]") {
  const Fixture f;
  const SweepPlan plan = f.expand(json::parse(R"({
    "name": "grid",
    "scenarios": ["../bases/ckpt.json", "../bases/stateless.json"],
    "seeds": [3, 1],
    "vary": [
      {"path": "/failures/events/0/at", "values": ["1s", "5s", "9s"]},
      {"path": "/optimizer", "label": "opt", "values": [{"learning_rate": 0.1}, {"momentum": 0.5}]}
    ]
  })"));
  REQUIRE(plan.points.size() == 2 * 3 * 2);
  REQUIRE(plan.runs.size() == 12 * 2);
  CHECK(plan.paths == std::vector<std::string>{"/failures/events/0/at", "/optimizer"});
  CHECK(plan.bases == std::vector<std::string>{"../bases/ckpt.json", "../bases/stateless.json"});
  // Bases outermost, then the first entry, then the second; names carry the values.
  CHECK(plan.points[0].id == "ckpt_at-1s_opt---learning_rate--0.1-");
  CHECK(plan.points[1].id == "ckpt_at-1s_opt---momentum--0.5-");
  CHECK(plan.points[2].id == "ckpt_at-5s_opt---learning_rate--0.1-");
  CHECK(plan.points[6].id == "stateless_at-1s_opt---learning_rate--0.1-");
  CHECK(plan.points[6].base == 1);
  // Each point is a resolved, valid scenario named after the point.
  const json& s = plan.points[3].scenario;
  CHECK(s["name"] == "ckpt_at-5s_opt---momentum--0.5-");
  CHECK(s["failures"]["events"][0]["at"] == 5.0);
  CHECK(s["optimizer"]["momentum"] == 0.5);
  CHECK(s["optimizer"]["learning_rate"] == 0.01);  // the scenario default: the object replaced
  CHECK(plan.points[3].values == std::vector<json>{"5s", {{"momentum", 0.5}}});
  // Runs: points outermost, seeds in the order given.
  CHECK(plan.runs[0].seed == 3);
  CHECK(plan.runs[1].seed == 1);
  CHECK(plan.runs[1].point == 0);
  CHECK(plan.runs[2].point == 1);
  CHECK(plan.runs[23].directory == "runs/stateless_at-9s_opt---momentum--0.5-/seed-1");
  for (std::size_t i = 0; i < plan.runs.size(); ++i) CHECK(plan.runs[i].index == i);
}

TEST_CASE("names stand for unwieldy values in point names", "[sweep]") {
  const Fixture f;
  const SweepPlan plan = f.expand(json::parse(R"({
    "name": "patterns",
    "scenarios": ["../bases/ckpt.json"],
    "vary": [
      {"path": "/failures/events", "label": "pattern", "names": ["crash", "two"],
       "values": [[{"target": "server", "at": "1s", "down_for": 0}],
                  [{"target": "server", "at": "1s", "down_for": "2s"},
                   {"target": "worker", "index": 0, "at": "1s", "down_for": "2s"}]]},
      {"path": "/cluster/workers/count", "names": ["one", "two"], "values": [1, 2]}
    ]
  })"));
  REQUIRE(plan.points.size() == 4);
  CHECK(plan.points[0].id == "ckpt_pattern-crash_count-one");
  CHECK(plan.points[3].id == "ckpt_pattern-two_count-two");
  CHECK(plan.points[3].scenario["failures"]["events"].size() == 2);
  CHECK(plan.points[3].values[1] == 2);  // the value itself, not its name
}

TEST_CASE("zipped paths vary together, and without seeds each point keeps its own", "[sweep]") {
  const Fixture f;
  const SweepPlan plan = f.expand(json::parse(R"({
    "name": "zip",
    "scenarios": ["../bases/ckpt.json"],
    "vary": [
      {"zip": [
        {"path": "/failures/events/0/at", "values": ["1s", "4s"]},
        {"path": "/failures/events/0/down_for", "label": "down", "range": {"from": "2s", "to": "3s", "step": "1s"}}
      ]},
      {"path": "/cluster/workers/count", "range": {"from": 1, "to": 3, "step": 2}}
    ]
  })"));
  REQUIRE(plan.points.size() == 2 * 2);
  CHECK(plan.points[0].id == "ckpt_at-1s_down-2s_count-1");
  CHECK(plan.points[1].id == "ckpt_at-1s_down-2s_count-3");
  CHECK(plan.points[2].id == "ckpt_at-4s_down-3s_count-1");
  CHECK(plan.points[3].scenario["failures"]["events"][0]["down_for"] == 3.0);
  CHECK(plan.points[3].scenario["cluster"]["workers"]["count"] == 3);
  REQUIRE(plan.runs.size() == 4);
  for (const SweepRun& run : plan.runs) CHECK(run.seed == 7);  // the scenario's own seed
  CHECK(plan.runs[0].directory == "runs/ckpt_at-1s_down-2s_count-1/seed-7");
}

TEST_CASE("a zip pairs repeated values, each combination a point of its own", "[sweep]") {
  const Fixture f;
  // A strategy paired with several failure lengths: "checkpoint" twice, "1s" twice.
  const SweepPlan plan = f.expand(json::parse(R"({
    "name": "pairs",
    "scenarios": ["../bases/ckpt.json"],
    "vary": [
      {"zip": [
        {"path": "/recovery/strategy", "values": ["checkpoint", "checkpoint", "stateless"],
         "names": ["ckpt", "ckpt", "sl"]},
        {"path": "/failures/events/0/down_for", "label": "down", "values": ["1s", "2s", "1s"]}
      ]}
    ]
  })"));
  REQUIRE(plan.points.size() == 3);
  CHECK(plan.points[0].id == "ckpt_strategy-ckpt_down-1s");
  CHECK(plan.points[1].id == "ckpt_strategy-ckpt_down-2s");
  CHECK(plan.points[2].id == "ckpt_strategy-sl_down-1s");
  CHECK(plan.points[1].scenario["recovery"]["strategy"] == "checkpoint");
  CHECK(plan.points[1].scenario["failures"]["events"][0]["down_for"] == 2.0);
  CHECK(plan.points[2].scenario["recovery"]["strategy"] == "stateless");
  CHECK(plan.runs.size() == 3);
}

TEST_CASE("ranges are inclusive, computed without drift, and keep the unit written", "[sweep]") {
  const Fixture f;
  const auto values = [&](const std::string& range) {
    const Sweep s = f.parse(json::parse(R"({"name": "r", "scenarios": ["../bases/ckpt.json"],
        "vary": [{"path": "/failures/events/0/at", "range": )" +
                                        range + "}]}"));
    return texts(s.vary.at(0).paths.at(0).values);
  };
  using V = std::vector<std::string>;
  CHECK(values(R"({"from": "10s", "to": "50s", "step": "10s"})") ==
        V{"10s", "20s", "30s", "40s", "50s"});
  CHECK(values(R"({"from": "100ms", "to": "300ms", "step": "100ms"})") ==
        V{"100ms", "200ms", "300ms"});
  // Units that differ: the values are written in the base unit.
  CHECK(values(R"({"from": "500ms", "to": "1.5s", "step": "500ms"})") == V{"0.5s", "1s", "1.5s"});
  // 0.1 steps: 0.1 + 2 x 0.1 is 0.30000000000000004 in binary, written 0.3; the end is 'to'.
  CHECK(values(R"({"from": 0.1, "to": 0.7, "step": 0.1})") ==
        V{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"});
  CHECK(values(R"({"from": 2, "to": 8, "step": 3})") == V{"2", "5", "8"});
  CHECK(values(R"({"from": 5, "to": 5, "step": 1})") == V{"5"});
  CHECK(values(R"({"from": "1Gf", "to": "3Gf", "step": "1Gf"})") == V{"1Gf", "2Gf", "3Gf"});
  CHECK(values(R"({"from": "1GB", "to": "2GB", "step": "500MB"})") ==
        V{"1000000000B", "1500000000B", "2000000000B"});
}

TEST_CASE("the plan is a pure function of the sweep and its bases", "[sweep]") {
  const Fixture f;
  const json sweep = json::parse(R"({"name": "p", "scenarios": ["../bases/ckpt.json"],
      "seeds": {"from": 1, "to": 2},
      "vary": [{"path": "/failures/events/0/at", "values": ["1s", "2s"]}]})");
  const json a = plan_json(f.expand(sweep));
  CHECK(a == plan_json(f.expand(sweep)));
  CHECK(a["format"] == "failsim-sweep-plan");
  CHECK(a["runs"].size() == 4);
  CHECK(a["runs"][3] == json{{"index", 3},
                             {"point", "ckpt_at-2s"},
                             {"base", "../bases/ckpt.json"},
                             {"values", {{"/failures/events/0/at", "2s"}}},
                             {"seed", 2},
                             {"directory", "runs/ckpt_at-2s/seed-2"}});
  CHECK(a["points"][1]["scenario_file"] == "scenarios/ckpt_at-2s.json");
  // Editing a base scenario changes the plan, even where the sweep file is the same.
  json edited = json::parse(CKPT);
  edited["stop"]["time"] = "11s";
  write_text(f.dir.file("bases/ckpt.json"), edited.dump());
  CHECK(a != plan_json(f.expand(sweep)));
}

TEST_CASE("a seed range ending at the largest 64-bit seed ends (the loop used to wrap)",
          "[sweep]") {
  const Fixture f;
  const json sweep = json::parse(R"({"name": "p", "scenarios": ["../bases/ckpt.json"],
      "seeds": {"from": 18446744073709551614, "to": 18446744073709551615}})");
  const json plan = plan_json(f.expand(sweep));
  REQUIRE(plan["runs"].size() == 2);
  CHECK(plan["runs"][0]["seed"] == 18446744073709551614u);
  CHECK(plan["runs"][1]["seed"] == 18446744073709551615u);
}

namespace {

/// One bad sweep: merged into a good one (null removes a key), its error's JSON Pointer in the
/// sweep file, and words its message must hold.
struct BadSweep {
  const char* what;
  const char* patch;
  const char* json_path;
  std::vector<std::string> message_parts;
};

const char* const GOOD_SWEEP = R"({
  "name": "good",
  "scenarios": ["../bases/ckpt.json"],
  "seeds": [1, 2],
  "vary": [{"path": "/failures/events/0/at", "values": ["1s", "2s"]}]
})";

const std::vector<BadSweep>& bad_sweeps() {
  static const std::vector<BadSweep> cases{
      {"unknown top-level key",
       R"({"seed": [1]})",
       "/seed",
       {"expected a known key (name, description, scenarios, seeds, vary, output, target_loss, "
        "figures)",
        "did you mean 'seeds'?"}},
      {"no name", R"({"name": null})", "/name", {"(required), found nothing"}},
      {"a name unfit for a directory",
       R"({"name": "a b"})",
       "/name",
       {"letters, digits", "found \"a b\""}},
      {"a description that is not a string",
       R"({"description": 3})",
       "/description",
       {"expected a string, found 3"}},
      {"no scenarios", R"({"scenarios": null})", "/scenarios", {"(required), found nothing"}},
      {"an empty list of scenarios",
       R"({"scenarios": []})",
       "/scenarios",
       {"at least 1", "found []"}},
      {"a scenario file that does not exist",
       R"({"scenarios": ["../bases/nope.json"]})",
       "/scenarios/0",
       {"expected a scenario file, relative to the sweep file", "\"../bases/nope.json\"",
        "bases/nope.json: expected a readable scenario file, found no such file"}},
      {"a scenario file that is not JSON",
       R"({"scenarios": ["../bases/broken.json"]})",
       "/scenarios/0",
       {"broken.json:1:", "expected valid JSON"}},
      {"one scenario file twice",
       R"({"scenarios": ["../bases/ckpt.json", "../bases/./ckpt.json"]})",
       "/scenarios/1",
       {"each scenario file at most once", "also /scenarios/0"}},
      {"seeds of the wrong type",
       R"({"seeds": "1-5"})",
       "/seeds",
       {"a list of seeds (integers >= 0) or a range {\"from\": FIRST, \"to\": LAST}",
        "found \"1-5\""}},
      {"an empty list of seeds", R"({"seeds": []})", "/seeds", {"at least one seed"}},
      {"a negative seed", R"({"seeds": [1, -2]})", "/seeds/1", {"found -2"}},
      {"a seed twice",
       R"({"seeds": [1, 2, 1]})",
       "/seeds/2",
       {"distinct seeds", "1 a second time"}},
      {"a seed range backwards",
       R"({"seeds": {"from": 5, "to": 1}})",
       "/seeds/to",
       {"an integer >= 'from' (5), found 1"}},
      {"a seed range with a step",
       R"({"seeds": {"from": 1, "to": 5, "step": 2}})",
       "/seeds/step",
       {"expected a known key (from, to)"}},
      {"too many seeds",
       R"({"seeds": {"from": 0, "to": 20000}})",
       "/seeds/to",
       {"at most 10000 seeds"}},
      {"every 64-bit seed",
       R"({"seeds": {"from": 0, "to": 18446744073709551615}})",
       "/seeds/to",
       {"at most 10000 seeds, found 18446744073709551615 (18446744073709551616 seeds)"}},
      {"vary is not a list", R"({"vary": {"path": "/x"}})", "/vary", {"a list of vary entries"}},
      {"a vary entry with a typo",
       R"({"vary": [{"pth": "/x", "values": [1]}]})",
       "/vary/0/pth",
       {"did you mean 'path'?"}},
      {"a vary entry without a path",
       R"({"vary": [{"values": [1]}]})",
       "/vary/0/path",
       {"(required), found nothing"}},
      {"a path without a leading slash",
       R"({"vary": [{"path": "failures", "values": [1]}]})",
       "/vary/0/path",
       {"a JSON Pointer (RFC 6901)", "\"failures\" (no leading '/')"}},
      {"a bad escape in a path",
       R"({"vary": [{"path": "/a~2", "values": [1]}]})",
       "/vary/0/path",
       {"'~' not followed by"}},
      {"varying the name",
       R"({"vary": [{"path": "/name", "values": ["x"]}]})",
       "/vary/0/path",
       {"a path outside /name, /seed and /output", "found \"/name\""}},
      {"varying the seed",
       R"({"vary": [{"path": "/seed", "values": [1, 2]}]})",
       "/vary/0/path",
       {"gives the seeds in 'seeds'"}},
      {"varying where results go",
       R"({"vary": [{"path": "/output/directory", "values": ["x"]}]})",
       "/vary/0/path",
       {"/output"}},
      {"neither values nor range",
       R"({"vary": [{"path": "/stop/time"}]})",
       "/vary/0/values",
       {"a list of values, or a 'range' instead", "found nothing"}},
      {"both values and range",
       R"({"vary": [{"path": "/stop/time", "values": [1], "range": {"from": 1, "to": 2, "step": 1}}]})",
       "/vary/0/range",
       {"either 'values' or 'range', not both"}},
      {"an empty list of values",
       R"({"vary": [{"path": "/stop/time", "values": []}]})",
       "/vary/0/values",
       {"at least 1"}},
      {"a value twice",
       R"({"vary": [{"path": "/stop/time", "values": ["1s", "2s", "1s"]}]})",
       "/vary/0/values/2",
       {"distinct values", "\"1s\" twice (values 0 and 2)"}},
      {"a label unfit for a name",
       R"({"vary": [{"path": "/stop/time", "label": "stop time", "values": [1]}]})",
       "/vary/0/label",
       {"a label of letters, digits", "found \"stop time\""}},
      {"a name per value",
       R"({"vary": [{"path": "/stop/time", "names": ["a"], "values": [1, 2]}]})",
       "/vary/0/names",
       {"one name per value (2)", "found 1 names"}},
      {"a name unfit for a name",
       R"({"vary": [{"path": "/stop/time", "names": ["a b"], "values": [1]}]})",
       "/vary/0/names/0",
       {"a name of letters, digits", "found \"a b\""}},
      {"a name twice",
       R"({"vary": [{"path": "/stop/time", "names": ["a", "a"], "values": [1, 2]}]})",
       "/vary/0/names/1",
       {"distinct names", "\"a\" twice (names 0 and 1)"}},
      {"a range with a typo",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1, "to": 2, "stp": 1}}]})",
       "/vary/0/range/stp",
       {"did you mean 'step'?"}},
      {"a range without a step",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1, "to": 2}}]})",
       "/vary/0/range/step",
       {"(required), found nothing"}},
      {"a zero step",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1, "to": 2, "step": 0}}]})",
       "/vary/0/range/step",
       {"an integer >= 1, found 0"}},
      {"a negative step",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1.5, "to": 2, "step": -0.5}}]})",
       "/vary/0/range/step",
       {"a number > 0, found -0.5"}},
      {"a zero step with units",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "1s", "to": "2s", "step": "0s"}}]})",
       "/vary/0/range/step",
       {"a duration > 0", "found \"0s\""}},
      {"a range backwards",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 3, "to": 2, "step": 1}}]})",
       "/vary/0/range/to",
       {"an integer >= 3, found 2"}},
      {"a range backwards with units",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "3s", "to": "2s", "step": "1s"}}]})",
       "/vary/0/range/to",
       {"a quantity >= 'from' (\"3s\"), found \"2s\""}},
      {"a range that misses its end",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "10s", "to": "200s", "step": "30s"}}]})",
       "/vary/0/range/to",
       {"'from' plus a whole number of steps, e.g. 190s or 220s", "found 200s"}},
      {"an integer range that misses its end",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1, "to": 10, "step": 2}}]})",
       "/vary/0/range/to",
       {"e.g. 9 or 11", "found 10"}},
      {"a range of mixed units",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "1s", "to": "2GB", "step": "1s"}}]})",
       "/vary/0/range/to",
       {"'GB' is a unit of a data size, not of a duration"}},
      {"a range mixing a number and a unit",
       R"({"vary": [{"path": "/stop/time", "range": {"from": 1, "to": "2s", "step": 1}}]})",
       "/vary/0/range/to",
       {"a number, like 'from'", "found \"2s\""}},
      {"a range with an unknown unit",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "1 parsec", "to": "2s", "step": "1s"}}]})",
       "/vary/0/range/from",
       {"a number, or a quantity with a unit", "unknown unit 'parsec'"}},
      {"a range of too many values",
       R"({"vary": [{"path": "/stop/time", "range": {"from": "1ms", "to": "200s", "step": "1ms"}}]})",
       "/vary/0/range/step",
       {"a step giving at most 10000 values", "(200000 values)"}},
      {"a zip with its own path",
       R"({"vary": [{"path": "/stop/time", "zip": [{"path": "/stop/time", "values": [1]}]}]})",
       "/vary/0/path",
       {"no 'path' here (a zip entry lists its paths"}},
      {"zipped lists of unequal lengths",
       R"({"vary": [{"zip": [{"path": "/stop/time", "values": ["5s", "6s"]},
                            {"path": "/failures/events/0/at", "values": ["1s", "2s", "3s"]}]}]})",
       "/vary/0/zip/1",
       {"as many values as /vary/0/zip/0 (2)", "found 3 values"}},
      {"a zip of one combination twice",
       R"({"vary": [{"zip": [{"path": "/recovery/strategy", "values": ["checkpoint", "none", "checkpoint"]},
                            {"path": "/failures/events/0/down_for", "values": ["1s", "1s", "1s"]}]}]})",
       "/vary/0/zip",
       {"distinct combinations of the zipped values",
        "found /recovery/strategy = \"checkpoint\", /failures/events/0/down_for = \"1s\" twice "
        "(values 0 and 2)"}},
      {"a zipped name for two different values",
       R"({"vary": [{"zip": [{"path": "/recovery/strategy", "values": ["checkpoint", "none"],
                             "names": ["a", "a"]},
                            {"path": "/failures/events/0/down_for", "values": ["1s", "2s"]}]}]})",
       "/vary/0/zip/0/names/1",
       {"one name per distinct value", "found \"a\" for values 0 and 1, which differ"}},
      {"a zipped value repeated under two names",
       R"({"vary": [{"zip": [{"path": "/recovery/strategy", "values": ["none", "none"],
                             "names": ["a", "b"]},
                            {"path": "/failures/events/0/down_for", "values": ["1s", "2s"]}]}]})",
       "/vary/0/zip/0/names/1",
       {"found \"a\" and \"b\" for the same value (values 0 and 1)"}},
      {"a zip in a zip",
       R"({"vary": [{"zip": [{"zip": []}]}]})",
       "/vary/0/zip/0/zip",
       {"expected a known key (path, label, values, range, names)"}},
      {"one path in two entries",
       R"({"vary": [{"path": "/stop/time", "values": ["5s"]}, {"path": "/stop/time", "values": ["6s"]}]})",
       "/vary/1/path",
       {"each path varied by one entry only", "also /vary/0"}},
      {"output with a typo",
       R"({"output": {"directry": "x"}})",
       "/output/directry",
       {"did you mean 'directory'?"}},
      {"a target loss of 0",
       R"({"target_loss": 0})",
       "/target_loss",
       {"expected a number > 0", "found 0"}},
      {"a target loss as text", R"({"target_loss": "3 nat"})", "/target_loss", {"found \"3 nat\""}},
      {"figures not a list",
       R"({"figures": "loss"})",
       "/figures",
       {"expected a list of figures of failsim plot (accuracy, gradients, utilisation, timeline, "
        "time, loss, sweep)",
        "found \"loss\""}},
      {"an unknown figure",
       R"({"figures": ["loss", "losses"]})",
       "/figures/1",
       {"expected a figure of failsim plot (accuracy,", "found \"losses\""}},
      {"a figure twice",
       R"({"figures": ["loss", "time", "loss"]})",
       "/figures/2",
       {"expected distinct figures", "found \"loss\" a second time"}},
  };
  return cases;
}

/// Bad sweeps found only when each point is built and validated as a scenario.
const std::vector<BadSweep>& bad_points() {
  static const std::vector<BadSweep> cases{
      {"a path whose parent is missing",
       R"({"vary": [{"path": "/evaluation/interval", "values": ["1s"]}]})",
       "/vary/0/path",
       {"a path of every base scenario", "\"/evaluation/interval\" in ",
        "bases/ckpt.json (the top level has no member 'evaluation')"}},
      {"a path past the end of an array",
       R"({"vary": [{"path": "/failures/events/1/at", "values": ["1s"]}]})",
       "/vary/0/path",
       {"(/failures/events has no element 1 (it has 1 element))"}},
      {"a path missing in the second base only",
       R"({"scenarios": ["../bases/ckpt.json", "../bases/quickstart.json"]})",
       "/vary/0/path",
       {"bases/quickstart.json (the top level has no member 'failures')"}},
      {"a key the scenario format does not know",
       R"({"vary": [{"path": "/data/sepration", "values": [3]}]})",
       "/vary/0",
       {"expected values that make a valid scenario of every point", "point 0 (",
        "bases/ckpt.json with /data/sepration = 3) invalid: ",
        "bases/ckpt.json: /data/sepration: expected a known key", "did you mean 'separation'?"}},
      {"a value the scenario refuses, at the second point",
       R"({"vary": [{"path": "/failures/events/0/at", "values": ["1s", "-1s"]}]})",
       "/vary/0",
       {"point 1 (", "with /failures/events/0/at = \"-1s\") invalid: ",
        "/failures/events/0/at: expected a duration"}},
      {"a value that breaks a check between sections",
       R"({"vary": [{"path": "/model/kind", "values": ["cnn"]}]})",
       "/vary/0",
       {"invalid: ", "/model/kind", "fashion-mnist"}},
      {"a zipped value the scenario refuses",
       R"({"vary": [{"zip": [{"path": "/stop/time", "values": ["5s", "6s"]},
                            {"path": "/cluster/workers/count", "values": [2, 0]}]}]})",
       "/vary/0/zip/1",
       {"point 1 (", "/cluster/workers/count = 0) invalid"}},
      {"a base scenario that is invalid on its own",
       R"({"scenarios": ["../bases/invalid.json"]})",
       "/scenarios/0",
       {"invalid: ", "bases/invalid.json: /stop: expected"}},
      {"a base scenario without a name",
       R"({"scenarios": ["../bases/nameless.json"]})",
       "/scenarios/0",
       {"expected a valid scenario file", "/name: expected a non-empty string"}},
      {"a base scenario without timeseries.csv",
       R"({"scenarios": ["../bases/quiet.json"]})",
       "/scenarios/0",
       {"/output/timeseries: expected true in a sweep", "found false"}},
      {"two bases of one name",
       R"({"scenarios": ["../bases/ckpt.json", "../bases/ckpt-copy.json"]})",
       "/vary",
       {"points with distinct names",
        "\"ckpt_at-1s\" for point 0 (../bases/ckpt.json) "
        "and point 2 (../bases/ckpt-copy.json)"}},
      {"values that read the same in a name",
       R"({"vary": [{"path": "/description", "values": ["a b", "a-b"]}]})",
       "/vary",
       {"points with distinct names", "\"ckpt_description-a-b\" for point 0"}},
      {"two values of one meaning: the same runs twice",
       R"({"vary": [{"path": "/stop/time", "values": ["10s", "10000ms"]}]})",
       "/vary",
       {"expected points that differ in the scenario they run",
        "found point 1 (../bases/ckpt.json with /stop/time = \"10000ms\") the same scenario as "
        "point 0 (../bases/ckpt.json with /stop/time = \"10s\")"}},
      {"too many runs",
       R"({"seeds": {"from": 1, "to": 5000},
           "vary": [{"path": "/failures/events/0/at", "range": {"from": 1, "to": 30, "step": 1}}]})",
       "/vary",
       {"at most 100000 runs", "found 150000 runs"}},
  };
  return cases;
}

}  // namespace

TEST_CASE("the catalogue of bad sweep files: each gets one clear message", "[sweep]") {
  const Fixture f;
  write_text(f.dir.file("bases/broken.json"), "{\"name\": ");
  json quickstart = json::parse(CKPT);
  quickstart.erase("failures");
  quickstart.erase("recovery");
  quickstart["name"] = "quickstart";
  write_text(f.dir.file("bases/quickstart.json"), quickstart.dump());
  json invalid = json::parse(CKPT);
  invalid["stop"] = json::object();
  write_text(f.dir.file("bases/invalid.json"), invalid.dump());
  json nameless = json::parse(CKPT);
  nameless.erase("name");
  write_text(f.dir.file("bases/nameless.json"), nameless.dump());
  json quiet = json::parse(CKPT);
  quiet["output"] = {{"timeseries", false}};
  write_text(f.dir.file("bases/quiet.json"), quiet.dump());
  write_text(f.dir.file("bases/ckpt-copy.json"), CKPT);

  std::set<std::string> patches;
  const auto check = [&](const BadSweep& c, bool expand) {
    INFO(c.what);
    CHECK(patches.insert(c.patch).second);  // every case is a different sweep
    json doc = json::parse(GOOD_SWEEP);
    doc.merge_patch(json::parse(c.patch));
    const failsim::input::InputError e = error_of([&] {
      const Sweep sweep = f.parse(doc);
      if (expand) expand_sweep(sweep);
    });
    CHECK(e.file() == f.label());
    CHECK(e.json_path() == c.json_path);
    for (const std::string& part : c.message_parts) CHECK_THAT(e.what(), Catch::Contains(part));
  };
  REQUIRE_NOTHROW(f.expand(json::parse(GOOD_SWEEP)));
  for (const BadSweep& c : bad_sweeps()) check(c, false);
  for (const BadSweep& c : bad_points()) check(c, true);
  CHECK(bad_sweeps().size() + bad_points().size() >= 55);

  // A sweep file that cannot be read or parsed names itself.
  CHECK_THAT(error_of([&] { load_sweep(f.dir.file("nope.json")); }).what(),
             Catch::Contains("nope.json: expected a readable sweep file, found no such file"));
  write_text(f.dir.file("dup.json"), R"({"name": "a", "name": "b"})");
  CHECK_THAT(error_of([&] { load_sweep(f.dir.file("dup.json")); }).what(),
             Catch::Contains("dup.json: /name: expected each key at most once"));
}

TEST_CASE(
    "runs.csv: a row per run with its values and figures, and runs without results are missing",
    "[sweep]") {
  const Fixture f;
  const SweepPlan plan = f.expand(json::parse(R"({"name": "c", "scenarios": ["../bases/ckpt.json"],
      "seeds": [1, 2],
      "vary": [{"path": "/description", "values": ["a, \"quoted\" text"]}]})"));
  failsim::analysis::RunSummary r;
  r.status = "completed";
  r.end_time = 10;
  r.final_accuracy = 0.8125;
  r.updates = 500;
  r.updates_rolled_back = 20;
  r.gradients = {510, 500, 1, 8, 1, 25};
  const std::string csv = failsim::sweep::runs_csv(plan, {r, std::nullopt});
  CHECK(csv ==
        "index,point,base,description,seed,status,final_accuracy,end_time_s,failures,updates,"
        "updates_rolled_back,gradients_computed,gradients_applied,gradients_dropped,"
        "gradients_lost,gradients_pending_at_end,gradients_rolled_back,directory\n"
        "0,ckpt_description-a---quoted--text,../bases/ckpt.json,\"a, \"\"quoted\"\" text\",1,"
        "completed,0.8125,10,0,500,20,510,500,1,8,1,25,"
        "runs/ckpt_description-a---quoted--text/seed-1\n"
        "1,ckpt_description-a---quoted--text,../bases/ckpt.json,\"a, \"\"quoted\"\" text\",2,"
        "missing,,,,,,,,,,,,runs/ckpt_description-a---quoted--text/seed-2\n");
}

TEST_CASE("runs.csv: a path varied with units has a numeric column in the base unit", "[sweep]") {
  const Fixture f;
  const SweepPlan plan = f.expand(json::parse(R"({"name": "c", "scenarios": ["../bases/ckpt.json"],
      "seeds": [1],
      "vary": [{"path": "/stop/time", "values": ["3s", "2500ms", 4]},
               {"path": "/cluster/workers/count", "values": [3]}]})"));
  const std::string csv =
      failsim::sweep::runs_csv(plan, {std::nullopt, std::nullopt, std::nullopt});
  INFO(csv);
  // The value as written, then the resolved scenario's number; a number needs no second column.
  CHECK(csv.rfind("index,point,base,stop_time,stop_time_s,workers_count,seed,", 0) == 0);
  CHECK_THAT(csv, Catch::Contains(",3s,3,3,1,missing,"));
  CHECK_THAT(csv, Catch::Contains(",2500ms,2.5,3,1,missing,"));
  CHECK_THAT(csv, Catch::Contains(",4,4,3,1,missing,"));
}

TEST_CASE("runs.csv: plain column names for the varied paths, and the columns of its protocols",
          "[sweep]") {
  using failsim::sweep::varied_column_names;
  failsim::sweep::SweepPlan plan;
  plan.paths = {"/recovery/checkpoint/every_steps", "/recovery", "/stop/time"};
  CHECK(varied_column_names(plan) ==
        std::vector<std::string>{"checkpoint_every_steps", "recovery", "stop_time"});
  // Array indices are left out; two paths with the same last keys take more of them.
  plan.paths = {"/failures/events/0/at", "/other/events/1/at", "/failures/request-timeout"};
  CHECK(varied_column_names(plan) == std::vector<std::string>{"failures_events_at",
                                                              "other_events_at",
                                                              "failures_request_timeout"});
  // A name another column has (status, a metric) is not taken.
  plan.paths = {"/status", "/end_time_s"};
  CHECK(varied_column_names(plan) == std::vector<std::string>{"status_1", "end_time_s_2"});

  // A plan of collective points only: no parameter-server column (they would always be 0).
  failsim::sweep::SweepPoint point;
  point.scenario = json{{"protocol", "collective"}};
  plan.paths = {};
  plan.points = {point};
  const std::string collective = failsim::sweep::runs_csv(plan, {});
  CHECK(collective.rfind("index,point,base,seed,status,final_accuracy,end_time_s,failures,ettr,",
                         0) == 0);
  CHECK_THAT(collective, !Catch::Contains("gradients") && !Catch::Contains("updates") &&
                             Catch::Contains(",tokens_kept,"));
  // With a parameter-server point too, both sets.
  point.scenario = json::object();
  plan.points.push_back(point);
  CHECK_THAT(failsim::sweep::runs_csv(plan, {}),
             Catch::Contains(",failures,updates,updates_rolled_back,") &&
                 Catch::Contains(",gradients_rolled_back,ettr,"));
  CHECK_THAT(failsim::sweep::runs_csv(plan, {}), !Catch::Contains("loss"));

  // A language-model point: its final loss and perplexity, and with the plan's target loss the
  // time and tokens to it.
  point.scenario = json{{"protocol", "collective"}, {"model", {{"kind", "transformer"}}}};
  plan.points = {point};
  const std::string lm = failsim::sweep::runs_csv(plan, {});
  CHECK(lm.rfind("index,point,base,seed,status,final_accuracy,end_time_s,failures,final_test_loss,"
                 "final_test_perplexity,ettr,",
                 0) == 0);
  plan.target_loss = 3.0;
  CHECK(failsim::sweep::runs_csv(plan, {}).rfind(
            "index,point,base,seed,status,final_accuracy,end_time_s,failures,final_test_loss,"
            "final_test_perplexity,time_to_target_loss_s,tokens_to_target_loss,ettr,",
            0) == 0);
}

// The sweep file's figures are checked against analysis/figure_names.hpp before anything runs;
// plot.py draws them: the two lists must be the same.
TEST_CASE("a sweep's figure names are failsim plot's", "[sweep]") {
  std::ifstream in(std::string(FAILSIM_SOURCE_DIR) + "/analysis/plot.py");
  std::string line, figures;
  while (std::getline(in, line)) {
    if (line.starts_with("FIGURES = (")) figures = line;
  }
  std::string expected = "FIGURES = (";
  for (const std::string_view name : failsim::analysis::FIGURE_NAMES) {
    expected += std::string(expected.back() == '(' ? "" : ", ") + "\"" + std::string(name) + "\"";
  }
  CHECK(figures == expected + ")");
}

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(FAILSIM_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The first fenced block of `language` in Markdown text.
std::string fenced_block(const std::string& markdown, const std::string& language) {
  const std::string fence = "```" + language + "\n";
  const std::size_t start = markdown.find(fence);
  if (start == std::string::npos) return {};
  const std::size_t body = start + fence.size();
  return markdown.substr(body, markdown.find("```\n", body) - body);
}

}  // namespace

TEST_CASE("docs/sweeps.md shows the example files as they are and names every key",
          "[sweep][docs]") {
  const std::string docs = read_source("docs/sweeps.md");
  CHECK(fenced_block(docs, "json") == read_source("scenarios/sweeps/failure-time.json"));
  // The shell loop shown is the script's, line for line.
  const std::string script = read_source("scenarios/sweeps/failure-time.sh");
  std::istringstream loop(fenced_block(docs, "bash"));
  int lines = 0;
  for (std::string line; std::getline(loop, line); ++lines) {
    INFO(line);
    CHECK(script.find(line + "\n") != std::string::npos);
  }
  CHECK(lines >= 10);
  for (const char* key :
       {"name", "description", "scenarios", "seeds", "vary", "output.directory", "target_loss",
        "figures", "path", "values", "range", "label", "names", "zip", "from", "to", "step"}) {
    INFO(key);
    std::string quoted = "`";
    quoted += key;
    quoted += '`';
    CHECK_THAT(docs, Catch::Contains(quoted));
  }
  // Every shipped sweep file is a valid sweep.
  std::vector<std::string> files{std::string(FAILSIM_SOURCE_DIR) + "/bench/sweep-speedup.json"};
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(FAILSIM_SOURCE_DIR) + "/scenarios/sweeps")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  CHECK(files.size() >= 7);  // six in scenarios/sweeps at least
  for (const std::string& file : files) {
    INFO(file);
    CHECK_NOTHROW(expand_sweep(load_sweep(file)));
  }
}
