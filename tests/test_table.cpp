// `failsim table` below the CLI (engine-free): Student's t intervals against values worked out
// by hand, reading result directories (and every way they can be bad), the metrics of a small
// hand-made run with two server failures, grouping by configuration and seed, and rendering.
// Each test writes its result directories into its own temporary directory.
#include <catch2/catch.hpp>

#include "input_error_of.hpp"
#include "temp_dir.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/run_summary.hpp"
#include "analysis/stats.hpp"
#include "analysis/table.hpp"
#include "result_format/time_cause.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace failsim::analysis;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using failsim::input::InputError;
using failsim::testing::error_of;
using failsim::testing::TempDir;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

json event(double time, const std::string& type, const std::string& subject,
           json details = json::object()) {
  return {{"time", time}, {"type", type}, {"subject", subject}, {"details", std::move(details)}};
}

json host(const std::string& name, const std::string& role, double wait, double down) {
  return {{"host", name},         {"role", role},
          {"busy_seconds", 1.0},  {"recovery_wait_seconds", wait},
          {"down_seconds", down}, {"idle_seconds", 0.0},
          {"utilisation", 0.01}};
}

/// A 100 s run of one server and two workers. The server fails at 30 s for 20 s and at 70 s
/// for 10 s; worker-1 crashes at 60 s (down_for 0: not down, not server-side). The workers
/// waited 15 s and 13 s for recovery.
json result_json(const std::string& name, std::uint64_t seed) {
  return {{"format", "failsim-result"},
          {"format_version", 1},
          {"scenario", {{"name", name}, {"seed", seed}, {"description", "hand-made"}}},
          {"summary",
           {{"status", "completed"},
            {"stop_reason", "time"},
            {"end_time", 100.0},
            {"final", {{"test_accuracy", 0.8}, {"time", 100.0}, {"version", 950}}},
            {"best", nullptr},
            {"gradients",
             {{"computed", 1000},
              {"applied", 990},
              {"dropped", 0},
              {"lost", 10},
              {"pending_at_end", 0},
              {"rolled_back", 40}}},
            {"updates", 990},
            {"updates_rolled_back", 40},
            {"hosts",
             {host("server-0", "server", 0.0, 30.0), host("worker-0", "worker", 15.0, 0.0),
              host("worker-1", "worker", 13.0, 0.0)}}}},
          {"events",
           {event(0.0, "start", "", {{"workers", 2}, {"params", 10}}),
            event(30.0, "failure", "server-0",
                  {{"cause", "event 0"}, {"down_for", 20.0}, {"process", "server-0"}}),
            event(35.0, "detected", "server-0"), event(50.0, "host_up", "server-0"),
            event(50.0, "restart", "server-1", {{"host", "server-0"}}),
            event(52.5, "training_resumed", "server-1",
                  {{"stalled_since", 30.0}, {"stalled_for", 22.5}}),
            event(60.0, "failure", "worker-1",
                  {{"cause", "event 1"}, {"down_for", 0.0}, {"process", "worker-1"}}),
            event(70.0, "failure", "server-0",
                  {{"cause", "event 2"}, {"down_for", 10.0}, {"process", "server-1"}}),
            event(80.0, "host_up", "server-0"), event(100.0, "stop", "", {{"reason", "time"}})}},
          {"wall_clock", {{"total_seconds", 1.0}}}};
}

/// A 1,000 s collective run of 4 nodes posing as a transformer (1,000 tokens, 4 samples a
/// step): node 1 fails at 100 s for 200 s, a leaf switch at 500 s for 100 s takes nodes 2 and 3
/// off the network. 60 steps completed, 10 rolled back, 50 kept; productive 600 s of 1,000.
json collective_result_json(const std::string& name, std::uint64_t seed) {
  json r = result_json(name, seed);
  json& summary = r["summary"];
  summary["end_time"] = 1000.0;
  summary["final"] = nullptr;
  summary["hosts"] = json::array();
  summary["collective"] = {{"math", "none"},
                           {"ranks", 32},
                           {"nodes", 4},
                           {"ettr", 0.6},
                           {"time",
                            {{"productive", 600.0},
                             {"stragglers", 20.0},
                             {"interference", 10.0},
                             {"checkpoint_stall", 30.0},
                             {"lost_work", 100.0},
                             {"detection", 60.0},
                             {"repair_wait", 140.0},
                             {"restart", 25.0},
                             {"checkpoint_load", 5.0},
                             {"quorum", 0.0},
                             {"unfinished", 10.0}}},
                           {"steps", {{"completed", 60}, {"rolled_back", 10}, {"kept", 50}}},
                           {"tokens", {{"per_step", 1000.0}, {"kept", 50000.0}}},
                           {"samples", {{"per_step", 4.0}, {"kept", 200.0}}},
                           {"failures", 2},
                           {"restarts", 2},
                           {"checkpoints", 5},
                           {"step", {{"nominal_seconds", 12.0}}},
                           {"device_memory_bytes", 1e9},
                           {"checkpoint_bytes", 1e10}};
  r["events"] = {
      event(0.0, "start", "", {{"ranks", 32}}),
      event(100.0, "failure", "node-1",
            {{"target", "node"}, {"index", 1}, {"nodes", {1}}, {"down_for", 200.0}}),
      event(500.0, "failure", "node-2",
            {{"target", "switch"}, {"index", 1}, {"nodes", {2, 3}}, {"down_for", 100.0}}),
      event(1000.0, "stop", "", {{"reason", "time"}})};
  return r;
}

/// Evaluations every 10 s, in the newer layout (gradient columns after test_samples).
const std::string TIMESERIES =
    "time,version,test_accuracy,test_loss,train_loss,test_samples,gradients_computed,"
    "gradients_applied\n"
    "0,0,0.1,2.3,,100,0,0\n"
    "10,100,0.5,1.5,1.6,100,100,100\n"
    "20,200,0.6,1.2,1.3,100,200,200\n"
    "30,300,0.65,1.1,1.2,100,300,300\n"
    "40,260,0.55,1.3,1.2,100,310,300\n"
    "50,260,0.5,1.4,1.2,100,320,300\n"
    "60,400,0.68,1.0,1.1,100,450,440\n"
    "70,500,0.72,0.9,1.0,100,550,540\n"
    "80,480,0.6,1.2,1.0,100,560,540\n"
    "90,600,0.7,0.95,1.0,100,700,690\n"
    "100,700,0.75,0.9,0.9,100,800,790\n";

void write_run(const fs::path& dir, const json& result,
               const std::string& timeseries = TIMESERIES) {
  write_text(dir / "result.json", result.dump(2) + "\n");
  write_text(dir / "timeseries.csv", timeseries);
  write_text(dir / "events.csv", "time,type,subject,details\n");
}

/// Prices that make costs easy by hand: 3.6 USD/h = 0.001 USD/s for every role.
PriceBook round_prices() {
  PriceBook book;
  InstanceType t;
  t.name = "t";
  t.on_demand_per_hour = 3.6;
  t.commitment_per_hour = 1.8;
  book.instances["t"] = t;
  Plan per_second;
  per_second.name = "per-second";
  per_second.rule = BillingRule::PER_SECOND;
  per_second.roles = {{"server", "t"}, {"worker", "t"}};
  Plan nodes = per_second;
  nodes.name = "nodes";
  nodes.roles = {{"node", "t"}};
  book.plans["nodes"] = nodes;
  Plan nodes_commitment = nodes;
  nodes_commitment.name = "nodes-commitment";
  nodes_commitment.rule = BillingRule::COMMITMENT;
  book.plans["nodes-commitment"] = nodes_commitment;
  book.plans["per-second"] = per_second;
  Plan commitment = per_second;
  commitment.name = "commitment";
  commitment.rule = BillingRule::COMMITMENT;
  book.plans["commitment"] = commitment;
  book.default_plan = "per-second";
  return book;
}

/// The same prices as a price file (docs/cost-model.md).
const std::string ROUND_PRICE_FILE = R"({
  "format": "failsim-prices", "format_version": 1, "description": "round numbers",
  "default_plan": "per-second",
  "instances": {"t": {"provider": "test", "region": "none", "on_demand_per_hour": 3.6,
                      "commitment_per_hour": 1.8, "sources": ["by hand"], "date": "2024-01-01"}},
  "plans": {"per-second": {"description": "by the second", "rule": "per_second",
                           "roles": {"server": "t", "worker": "t"}},
            "commitment": {"description": "whole window", "rule": "commitment",
                           "roles": {"server": "t", "worker": "t"}}}
})";

RunSummary parsed(const json& result, const std::string& timeseries = TIMESERIES) {
  RunSummary run;
  parse_result_json(result.dump(), "r/result.json", run);
  run.evaluations = parse_timeseries(timeseries, "r/timeseries.csv");
  return run;
}

std::string result_error(const json& result) {
  RunSummary run;
  return error_of([&] { parse_result_json(result.dump(2), "r/result.json", run); }).what();
}

std::string timeseries_error(const std::string& text) {
  return error_of([&] { parse_timeseries(text, "r/timeseries.csv"); }).what();
}

std::string option_error(const TableRequest& request) {
  try {
    make_table(request);
  } catch (const TableOptionError& e) {
    return e.what();
  }
  FAIL("no TableOptionError thrown");
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Statistics

TEST_CASE("t quantiles: the exact table, and the expansion beyond df 30", "[table][stats]") {
  // Printed tables (3 decimals) and mpmath's inverse of the incomplete beta function.
  CHECK(t_quantile_975(1) == Approx(12.706).margin(5e-4));
  CHECK(t_quantile_975(2) == Approx(4.303).margin(5e-4));
  CHECK(t_quantile_975(4) == Approx(2.776).margin(5e-4));
  CHECK(t_quantile_975(9) == Approx(2.262).margin(5e-4));
  CHECK(t_quantile_975(30) == Approx(2.042).margin(5e-4));
  CHECK(t_quantile_975(40) == Approx(2.021).margin(5e-4));
  CHECK(t_quantile_975(120) == Approx(1.980).margin(5e-4));
  CHECK(t_quantile_975(31) == Approx(2.0395134464).margin(1e-7));
  CHECK(t_quantile_975(50) == Approx(2.0085591121).margin(1e-7));
  CHECK(t_quantile_975(1000) == Approx(1.9623390808).margin(1e-7));
  // Decreasing in df towards the normal quantile.
  for (int df = 1; df < 200; ++df) CHECK(t_quantile_975(df + 1) < t_quantile_975(df));
  CHECK(t_quantile_975(100000) == Approx(1.95996).margin(1e-4));
  CHECK_THROWS_AS(t_quantile_975(0), std::invalid_argument);
}

TEST_CASE("mean and 95% half-width by hand", "[table][stats]") {
  // 1..5: mean 3, s^2 = (4 + 1 + 0 + 1 + 4) / 4 = 2.5, half-width t_{0.975,4} sqrt(2.5 / 5).
  const MeanInterval a = mean_interval({1, 2, 3, 4, 5});
  CHECK(a.n == 5);
  CHECK(a.mean == Approx(3.0));
  CHECK(a.stddev == Approx(std::sqrt(2.5)));
  REQUIRE(a.half_width);
  CHECK(*a.half_width == Approx(2.7764451052 * std::sqrt(0.5)));
  CHECK(*a.half_width == Approx(1.96324316).epsilon(1e-8));

  // 0.80, 0.82, 0.81: s = 0.01, half-width 4.30265 x 0.01 / sqrt(3) = 0.0248414.
  const MeanInterval b = mean_interval({0.80, 0.82, 0.81});
  CHECK(b.mean == Approx(0.81));
  CHECK(b.stddev == Approx(0.01));
  CHECK(*b.half_width == Approx(0.0248413771).epsilon(1e-8));

  // No cancellation on large values with a small spread: s is exactly 1.
  const MeanInterval c = mean_interval({1e9 + 1, 1e9 + 2, 1e9 + 3});
  CHECK(c.stddev == 1.0);

  // n = 1: the value, no interval; n = 0: nothing.
  const MeanInterval one = mean_interval({0.7});
  CHECK(one.n == 1);
  CHECK(one.mean == 0.7);
  CHECK_FALSE(one.half_width);
  CHECK(mean_interval({}).n == 0);

  // Equal values: a zero-width interval, and the mean is the value (not a rounded sum / n).
  CHECK(*mean_interval({2, 2, 2}).half_width == 0.0);
  const double x = 410.0 / 3600.0;
  const MeanInterval same = mean_interval({x, x, x});
  CHECK(same.mean == x);
  CHECK(*same.half_width == 0.0);
}

TEST_CASE("mean ± half-width is rounded to the half-width's second digit", "[table][stats]") {
  CHECK(format_mean_interval(0.84312, 0.00412) == "0.8431 ± 0.0041");
  CHECK(format_mean_interval(5012.4, 31.2) == "5012 ± 31");
  CHECK(format_mean_interval(101.25, 4.21) == "101.2 ± 4.2");
  CHECK(format_mean_interval(0.7, std::nullopt) == "0.700");
  CHECK(format_mean_interval(101.25, std::nullopt) == "101");
  CHECK(format_mean_interval(0.012, 0.0) == "0.0120 ± 0");
  CHECK(format_mean_interval(0.0, 0.0) == "0 ± 0");
  CHECK(format_mean_interval(48.0, 0.0) == "48 ± 0");
  CHECK(format_mean_interval(1.0, std::nullopt) == "1");
}

// ---------------------------------------------------------------------------------------------
// Reading result directories

TEST_CASE("a result directory is read field by field", "[table][read]") {
  TempDir tmp;
  write_run(tmp.file("a"), result_json("cfg", 3));
  const RunSummary run = load_run(tmp.file("a"));
  CHECK(run.name == "cfg");
  CHECK(run.seed == 3);
  CHECK(run.status == "completed");
  CHECK(run.end_time == 100.0);
  CHECK(run.final_accuracy == 0.8);
  CHECK(run.gradients.computed == 1000);
  CHECK(run.gradients.lost == 10);
  CHECK(run.updates_rolled_back == 40);
  REQUIRE(run.hosts.size() == 3);
  CHECK(run.hosts[1].recovery_wait_seconds == 15.0);
  REQUIRE(run.events.size() == 10);
  CHECK(run.events[1].down_for == 20.0);
  CHECK(run.events[0].down_for == 0.0);
  REQUIRE(run.evaluations.size() == 11);
  CHECK(run.evaluations[3].time == 30.0);
  CHECK(run.evaluations[3].version == 300);
  CHECK(run.evaluations[3].test_accuracy == 0.65);

  // "forever", a null final evaluation.
  json r = result_json("cfg", 3);
  r["events"][7]["details"]["down_for"] = "forever";
  r["summary"]["final"] = nullptr;
  const RunSummary forever = parsed(r);
  CHECK(std::isinf(forever.events[7].down_for));
  CHECK_FALSE(forever.final_accuracy);
}

TEST_CASE("timeseries.csv columns are found by name, old and new layouts", "[table][read]") {
  const auto old_layout = parse_timeseries(
      "time,version,test_accuracy,test_loss,train_loss,test_samples\n"
      "0,0,0.086,2.5,,1000\n"
      "0.30000000000000004,150,0.676,1.18,1.26,1000\n",
      "t.csv");
  REQUIRE(old_layout.size() == 2);
  CHECK(old_layout[1].time == 0.30000000000000004);
  CHECK(old_layout[1].test_accuracy == 0.676);
  const auto reordered =
      parse_timeseries("test_accuracy,extra,time,version\r\n0.5,x,2.5,7\r\n", "t.csv");
  REQUIRE(reordered.size() == 1);
  CHECK(reordered[0].time == 2.5);
  CHECK(reordered[0].version == 7);
  CHECK(parse_timeseries("time,version,test_accuracy\n", "t.csv").empty());
}

TEST_CASE("bad timeseries.csv: file, line, column, expectation, found", "[table][read][errors]") {
  CHECK(timeseries_error("") ==
        "r/timeseries.csv: expected a header line (time,version,test_accuracy,...), found an "
        "empty file");
  CHECK(timeseries_error("time,version,accuracy\n") ==
        "r/timeseries.csv:1:1: expected a header line with a 'test_accuracy' column, found "
        "\"time,version,accuracy\"");
  CHECK(timeseries_error("time,version,test_accuracy\n0,0,0.1\n1,5,abc\n") ==
        "r/timeseries.csv:3:5: expected a number in [0, 1] in column 'test_accuracy', found "
        "\"abc\"");
  CHECK(timeseries_error("time,version,test_accuracy\n1,,0.5\n") ==
        "r/timeseries.csv:2:3: expected an integer >= 0 in column 'version', found an empty "
        "field");
  CHECK(timeseries_error("time,version,test_accuracy\n1,2\n") ==
        "r/timeseries.csv:2:1: expected 3 comma-separated fields, as in the header, found 2");
  CHECK(timeseries_error("time,version,test_accuracy\n1,2,1.5\n") ==
        "r/timeseries.csv:2:5: expected a number in [0, 1] in column 'test_accuracy', found 1.5");
  CHECK(timeseries_error("time,version,test_accuracy\n-1,2,0.5\n") ==
        "r/timeseries.csv:2:1: expected a number >= 0 in column 'time', found -1");
  CHECK(timeseries_error("time,version,test_accuracy\n2,2,0.5\n1,3,0.5\n") ==
        "r/timeseries.csv:3:1: expected times in order (the previous row is at 2), found 1");
}

TEST_CASE("bad result.json: file, JSON path, expectation, found", "[table][read][errors]") {
  RunSummary run;
  CHECK_THAT(
      error_of([&] { parse_result_json("{\n  \"format\": ,\n}", "r/result.json", run); }).what(),
      Contains("r/result.json:2:13: expected valid JSON, found"));
  CHECK(std::string(error_of([&] {
                      parse_result_json("{\"events\": [{\"a\": 1, \"a\": 2}]}", "r/result.json",
                                        run);
                    }).what()) ==
        "r/result.json: /events/0/a: expected each key at most once in an object, found 'a' a "
        "second time");
  CHECK(result_error(json::array()) ==
        "r/result.json: expected a failsim result (a JSON object), found []");

  json r = result_json("cfg", 1);
  r["format"] = "failsim-prices";
  CHECK(result_error(r) ==
        "r/result.json: /format: expected \"failsim-result\", found \"failsim-prices\"");
  r = result_json("cfg", 1);
  r["format_version"] = 2;
  CHECK(result_error(r) ==
        "r/result.json: /format_version: expected an integer in [1, 1], found 2");
  r = result_json("cfg", 1);
  r["scenario"].erase("name");
  CHECK(result_error(r) ==
        "r/result.json: /scenario/name: expected a non-empty string (required), found nothing");
  r = result_json("cfg", 1);
  r["scenario"]["seed"] = "one";
  CHECK(result_error(r) ==
        "r/result.json: /scenario/seed: expected an integer in [0, 18446744073709551615], found "
        "\"one\"");
  r = result_json("cfg", 1);
  r.erase("summary");
  CHECK(result_error(r) == "r/result.json: /summary: expected an object (required), found nothing");
  r = result_json("cfg", 1);
  r["summary"]["final"]["test_accuracy"] = "high";
  CHECK(result_error(r) ==
        "r/result.json: /summary/final/test_accuracy: expected a number in [0, 1], found \"high\"");
  r = result_json("cfg", 1);
  r["summary"]["final"] = 0.8;
  CHECK(result_error(r) ==
        "r/result.json: /summary/final: expected an evaluation object or null, found 0.8");
  r = result_json("cfg", 1);
  r["summary"]["gradients"]["lost"] = -1;
  CHECK(result_error(r) ==
        "r/result.json: /summary/gradients/lost: expected an integer >= 0, found -1");
  r = result_json("cfg", 1);
  r["summary"]["updates_rolled_back"] = 991;
  CHECK(result_error(r) ==
        "r/result.json: /summary/updates_rolled_back: expected an integer <= summary.updates "
        "(990), found 991");
  r = result_json("cfg", 1);
  r["summary"]["gradients"]["rolled_back"] = 991;
  CHECK(result_error(r) ==
        "r/result.json: /summary/gradients/rolled_back: expected an integer <= "
        "summary.gradients.applied (990), found 991");
  r = result_json("cfg", 1);
  r["summary"]["gradients"].erase("rolled_back");
  CHECK_THAT(result_error(r), Catch::StartsWith("r/result.json: /summary/gradients/rolled_back: "
                                                "expected an integer >= 0"));
  r = result_json("cfg", 1);
  r["summary"]["hosts"][2].erase("recovery_wait_seconds");
  CHECK(result_error(r) ==
        "r/result.json: /summary/hosts/2/recovery_wait_seconds: expected a number >= 0 "
        "(required), found nothing");
  r = result_json("cfg", 1);
  r["summary"]["hosts"] = json::object();
  CHECK(result_error(r) ==
        "r/result.json: /summary/hosts: expected a list of host objects, found {}");
  r = result_json("cfg", 1);
  r["summary"]["end_time"] = nullptr;
  CHECK(result_error(r) == "r/result.json: /summary/end_time: expected a number >= 0, found null");
  r = result_json("cfg", 1);
  r["events"][1]["details"]["down_for"] = "20s";
  CHECK(result_error(r) ==
        "r/result.json: /events/1/details/down_for: expected a number >= 0 (seconds) or "
        "\"forever\", found \"20s\"");
  r = result_json("cfg", 1);
  r["events"][1]["details"].erase("down_for");
  CHECK(result_error(r) ==
        "r/result.json: /events/1/details/down_for: expected a number >= 0 (seconds) or "
        "\"forever\" (required), found nothing");
  r = result_json("cfg", 1);
  r["events"][2]["subject"] = 7;
  CHECK(result_error(r) == "r/result.json: /events/2/subject: expected a string, found 7");
  r = result_json("cfg", 1);
  r["events"][2]["details"] = json::array();
  CHECK(result_error(r) == "r/result.json: /events/2/details: expected an object, found []");
}

TEST_CASE("a result directory without its files", "[table][read][errors]") {
  TempDir tmp;
  fs::create_directories(tmp.file("empty"));
  const std::string dir = tmp.file("empty");
  CHECK(std::string(error_of([&] { load_run(dir); }).what()) ==
        dir + "/result.json: expected a readable result.json, found no such file");
  write_text(tmp.file("empty/result.json"), result_json("cfg", 1).dump());
  CHECK(std::string(error_of([&] { load_run(dir); }).what()) ==
        dir +
            "/timeseries.csv: expected a timeseries.csv beside result.json (the scenario's "
            "output.timeseries must be true), found no such file");
}

TEST_CASE("result directories are found recursively, in order, once", "[table][read]") {
  TempDir tmp;
  const fs::path root = tmp.path();
  write_run(root / "b" / "seed-2", result_json("b", 2));
  write_run(root / "b" / "seed-1", result_json("b", 1));
  write_run(root / "a" / "deep" / "seed-1", result_json("a", 1));
  write_run(root / "c", result_json("c", 1));
  // Not searched below a result directory.
  write_run(root / "c" / "nested", result_json("c", 2));
  fs::create_directories(root / "unrelated");

  const auto found = find_result_directories({root / "c", root});
  REQUIRE(found.size() == 4);
  CHECK(found[0].path == root / "c");
  CHECK(found[0].root_index == 0);
  CHECK(found[1].path == root / "a" / "deep" / "seed-1");
  CHECK(found[1].root_index == 1);
  CHECK(found[2].path == root / "b" / "seed-1");
  CHECK(found[3].path == root / "b" / "seed-2");

  CHECK(std::string(error_of([&] { find_result_directories({root / "nope"}); }).what()) ==
        (root / "nope").string() +
            ": expected a result directory or a directory holding some, found no such directory");
  CHECK(std::string(
            error_of([&] { find_result_directories({root / "c" / "result.json"}); }).what()) ==
        (root / "c" / "result.json").string() +
            ": expected a result directory or a directory holding some, found a "
            "file that is not a directory");
  CHECK(std::string(error_of([&] { find_result_directories({root / "unrelated"}); }).what()) ==
        (root / "unrelated").string() +
            ": expected a result directory (holding result.json) or a directory with some below "
            "it, found none");
}

// ---------------------------------------------------------------------------------------------
// Metrics

TEST_CASE("accuracy before each server failure and lowest after it", "[table][metrics]") {
  const RunSummary run = parsed(result_json("cfg", 1));
  const RunMetrics m = compute_metrics(run, round_prices(), "per-second", 0.7);
  CHECK(m.failures == 3);  // two server failures and a worker crash
  REQUIRE(m.server_failures.size() == 2);
  // Failure at 30 s: the evaluation at 30 s is "before" (time <= failure); lowest over
  // (30, 70]: 0.55, 0.5, 0.68, 0.72.
  CHECK(m.server_failures[0].time == 30.0);
  CHECK(m.server_failures[0].accuracy_before == 0.65);
  CHECK(m.server_failures[0].lowest_after == 0.5);
  // Failure at 70 s: lowest over (70, 100]: 0.6, 0.7, 0.75.
  CHECK(m.server_failures[1].accuracy_before == 0.72);
  CHECK(m.server_failures[1].lowest_after == 0.6);
  // Recovery: the first update after the kill at 30 s was at 52.5 s; after 70 s, none.
  CHECK(m.server_failures[0].recovery == 22.5);
  CHECK_FALSE(m.server_failures[1].recovery);

  CHECK_FALSE(accuracy_at_or_before(run.evaluations, -1.0));
  CHECK_FALSE(lowest_accuracy_in(run.evaluations, 100.0, 200.0));
  CHECK(lowest_accuracy_in(run.evaluations, 95.0, 100.0) == 0.75);
}

TEST_CASE("sharded servers: recovery time runs to the killed shard's training_resumed",
          "[table][metrics]") {
  // The same run with the processes named as with cluster.servers.shards > 1: shard 1's server
  // dies at 30 s; shard 0 resumed at 40 s from an earlier stall of its own, shard 1 at 52.5 s.
  json r = result_json("cfg", 1);
  r["events"][1]["details"]["process"] = "shard-1.server-0";
  r["events"][5] = event(52.5, "training_resumed", "shard-1.server-1",
                         {{"stalled_since", 30.0}, {"stalled_for", 22.5}});
  r["events"].insert(r["events"].begin() + 3,
                     event(40.0, "training_resumed", "shard-0.server-3",
                           {{"stalled_since", 10.0}, {"stalled_for", 30.0}}));
  r["events"][8]["details"]["process"] = "shard-0.server-3";
  const RunMetrics m = compute_metrics(parsed(r), round_prices(), "per-second", 0.7);
  REQUIRE(m.server_failures.size() == 2);
  CHECK(m.server_failures[0].recovery == 22.5);
  CHECK_FALSE(m.server_failures[1].recovery);
  // A process that only looks like one is not a server.
  r["events"][1]["details"]["process"] = "shard-1-server-0";
  CHECK_FALSE(
      compute_metrics(parsed(r), round_prices(), "per-second", 0.7).server_failures[0].recovery);
}

TEST_CASE("elastic resume: recovery time runs to the new generation's first update",
          "[table][metrics]") {
  // Shard 1's server dies at 30 s and the job resizes: its processes are gone for good, the
  // new generation's are named "gen-1." and their first updates carry after_resize. An update
  // of a new shard without after_resize (a later, unrelated stall) does not count.
  json r = result_json("cfg", 1);
  r["events"][1]["details"]["process"] = "shard-1.server-0";
  r["events"][5] = event(41.0, "training_resumed", "gen-1.server-0",
                         {{"stalled_since", 30.0}, {"stalled_for", 11.0}, {"after_resize", true}});
  r["events"].insert(r["events"].begin() + 3,
                     event(35.0, "training_resumed", "gen-1.shard-0.server-2",
                           {{"stalled_since", 10.0}, {"stalled_for", 25.0}}));
  const RunMetrics m = compute_metrics(parsed(r), round_prices(), "per-second", 0.7);
  REQUIRE(m.server_failures.size() == 2);
  CHECK(m.server_failures[0].recovery == 11.0);
  // A kill of a later generation's server is a server kill too.
  r["events"][1]["details"]["process"] = "gen-2.shard-1.server-0";
  CHECK(compute_metrics(parsed(r), round_prices(), "per-second", 0.7).server_failures[0].recovery ==
        11.0);
}

TEST_CASE("time to a target accuracy", "[table][metrics]") {
  const RunSummary run = parsed(result_json("cfg", 1));
  CHECK(time_to_accuracy(run.evaluations, 0.7) == 70.0);   // 0.72 at 70 s
  CHECK(time_to_accuracy(run.evaluations, 0.72) == 70.0);  // >=
  CHECK(time_to_accuracy(run.evaluations, 0.75) == 100.0);
  CHECK(time_to_accuracy(run.evaluations, 0.1) == 0.0);
  CHECK_FALSE(time_to_accuracy(run.evaluations, 0.8));
  CHECK_FALSE(compute_metrics(run, round_prices(), "per-second", 0.8).time_to_target);
  CHECK_FALSE(compute_metrics(run, round_prices(), "per-second", 0.8).cost_to_target_usd);
}

TEST_CASE("idle fraction of workers during the outages", "[table][metrics]") {
  // Server windows [30, 50) and [70, 80): 30 s; 2 workers waited 15 + 13 s: 28 / (2 x 30).
  json r = result_json("cfg", 1);
  CHECK(*compute_metrics(parsed(r), round_prices(), "per-second", 0.7).idle_fraction ==
        Approx(28.0 / 60.0));

  // Overlapping windows count once: a second server host fails at 40 s for 20 s, so the
  // outages cover [30, 60) and [70, 80): 40 s.
  r["summary"]["hosts"].push_back(host("server-1", "server", 0.0, 20.0));
  r["events"].insert(r["events"].begin() + 3,
                     event(40.0, "failure", "server-1", {{"down_for", 20.0}}));
  r["events"].insert(r["events"].begin() + 7, event(60.0, "host_up", "server-1"));
  const RunMetrics overlap = compute_metrics(parsed(r), round_prices(), "per-second", 0.7);
  CHECK(overlap.server_failures.size() == 3);
  CHECK(*overlap.idle_fraction == Approx(28.0 / 80.0));

  // "forever" at 70 s: the window runs to the end, [70, 100): 20 + 30 = 50 s.
  r = result_json("cfg", 1);
  r["events"][7]["details"]["down_for"] = "forever";
  CHECK(*compute_metrics(parsed(r), round_prices(), "per-second", 0.7).idle_fraction ==
        Approx(28.0 / 100.0));

  // A server link failure is server-side; a worker failure is not.
  r = result_json("cfg", 1);
  r["events"][1] =
      event(30.0, "link_failure", "server-0-link", {{"cause", "event 0"}, {"down_for", 20.0}});
  r["events"][7] = event(70.0, "failure", "worker-0",
                         {{"cause", "event 2"}, {"down_for", 10.0}, {"process", "worker-0"}});
  const RunMetrics link = compute_metrics(parsed(r), round_prices(), "per-second", 0.7);
  CHECK(link.server_failures.size() == 1);
  CHECK(*link.idle_fraction == Approx(28.0 / 40.0));

  // No server failure, or only a crash (down_for 0): no outage, no fraction.
  r = result_json("cfg", 1);
  r["events"] = {event(0.0, "start", ""), event(100.0, "stop", "")};
  CHECK_FALSE(compute_metrics(parsed(r), round_prices(), "per-second", 0.7).idle_fraction);
  r["events"] = {event(10.0, "failure", "server-0", {{"down_for", 0.0}})};
  const RunMetrics crash = compute_metrics(parsed(r), round_prices(), "per-second", 0.7);
  CHECK(crash.server_failures.size() == 1);
  CHECK_FALSE(crash.idle_fraction);
}

TEST_CASE("host timelines from failures and host_up events", "[table][metrics]") {
  json r = result_json("cfg", 1);
  auto timelines = host_timelines(parsed(r));
  REQUIRE(timelines.size() == 3);
  CHECK(timelines[0].host == "server-0");
  CHECK(timelines[0].role == "server");
  REQUIRE(timelines[0].down.size() == 2);
  CHECK(timelines[0].down[0].begin == 30.0);
  CHECK(timelines[0].down[0].end == 50.0);
  CHECK(timelines[0].down[1].begin == 70.0);
  CHECK(timelines[0].down[1].end == 80.0);
  CHECK(timelines[2].down.empty());  // worker-1's crash does not turn its host off

  // Lost for good, or still down at the end: down to the end. A host listed twice is one host.
  r["events"][7]["details"]["down_for"] = "forever";
  r["events"].erase(8);  // no host_up
  r["summary"]["hosts"].push_back(host("worker-1", "worker", 0.0, 0.0));
  timelines = host_timelines(parsed(r));
  REQUIRE(timelines.size() == 3);
  REQUIRE(timelines[0].down.size() == 2);
  CHECK(timelines[0].down[1].end == 100.0);
}

TEST_CASE("host-hours and costs by hand", "[table][metrics]") {
  const RunSummary run = parsed(result_json("cfg", 1));
  // Held: server 100 - 30 = 70 s, workers 100 s each: 270 s at 0.001 USD/s.
  const RunMetrics m = compute_metrics(run, round_prices(), "per-second", 0.7);
  CHECK(*m.host_hours == Approx(270.0 / 3600.0));
  CHECK(*m.cost_usd == Approx(0.27));
  // To 70 s: server [0, 30) and [50, 70) = 50 s, workers 70 s each: 190 s.
  CHECK(*m.cost_to_target_usd == Approx(0.19));
  // 990 gradients applied, 40 rolled back.
  CHECK(*m.cost_per_useful_gradient_usd == Approx(0.27 / 950.0));
  // Commitment: 3 hosts x 100 s at 1.8 USD/h, down or not.
  CHECK(*compute_metrics(run, round_prices(), "commitment", 0.7).cost_usd ==
        Approx(3 * 100.0 * 1.8 / 3600.0));

  json r = result_json("cfg", 1);
  r["summary"]["gradients"]["rolled_back"] = 990;
  CHECK_FALSE(
      compute_metrics(parsed(r), round_prices(), "per-second", 0.7).cost_per_useful_gradient_usd);
}

// ---------------------------------------------------------------------------------------------
// Collective runs

TEST_CASE("a collective run's summary.collective is read field by field", "[table][read]") {
  const RunSummary run = parsed(collective_result_json("c", 1), "time,version,test_accuracy\n");
  REQUIRE(run.collective);
  const CollectiveRun& c = *run.collective;
  CHECK_FALSE(c.real_math);
  CHECK(c.ranks == 32);
  CHECK(c.nodes == 4);
  CHECK(c.ettr == 0.6);
  CHECK(c.seconds[static_cast<std::size_t>(failsim::result_format::TimeCause::REPAIR_WAIT)] ==
        140.0);
  CHECK(c.steps_completed == 60);
  CHECK(c.steps_rolled_back == 10);
  CHECK(c.steps_kept == 50);
  CHECK(c.tokens_kept == 50000.0);
  CHECK(c.samples_per_step == 4.0);
  CHECK(c.restarts == 2);
  // A parameter-server run has none.
  CHECK_FALSE(parsed(result_json("ps", 1)).collective);

  json r = collective_result_json("c", 1);
  r["summary"]["collective"]["time"].erase("repair_wait");
  CHECK(result_error(r) ==
        "r/result.json: /summary/collective/time/repair_wait: expected a number >= 0 (required), "
        "found nothing");
  r = collective_result_json("c", 1);
  r["summary"]["collective"]["math"] = "fake";
  CHECK(result_error(r) ==
        "r/result.json: /summary/collective/math: expected \"real\" or \"none\", found \"fake\"");
  r = collective_result_json("c", 1);
  r["summary"]["collective"]["ettr"] = 1.5;
  CHECK_THAT(result_error(r), StartsWith("r/result.json: /summary/collective/ettr: expected a "
                                         "number in [0, 1]"));
}

TEST_CASE("collective metrics: ETTR, goodput, steps, restarts, time lost by cause",
          "[table][metrics]") {
  const RunMetrics m =
      run_metrics(parsed(collective_result_json("c", 1), "time,version,test_accuracy\n"), 0.7);
  const auto value = [&](const std::string& key) -> std::optional<double> {
    for (const auto& c : all_metric_columns(0, 0.7)) {
      if (c.key == key) return c.value(m);
    }
    FAIL("no column " << key);
    return std::nullopt;
  };
  CHECK(value("ettr") == 0.6);
  CHECK(value("goodput_tokens_per_s") == 50.0);  // 50 steps x 1,000 tokens / 1,000 s
  CHECK_FALSE(value("goodput_samples_per_s"));   // tokens say it
  CHECK(value("steps_kept") == 50.0);
  CHECK(value("steps_rolled_back") == 10.0);
  CHECK(value("restarts") == 2.0);
  CHECK(value("time_lost_s") == 400.0);  // 1,000 - 600 productive
  CHECK(value("time_repair_wait_s") == 140.0);
  CHECK(value("time_checkpoint_stall_s") == 30.0);
  CHECK(value("failures") == 2.0);
  // Daly's optimum from the run's figures: delta = 30 s / 5 checkpoints = 6 s, M = 1,000 s / 2
  // failures = 500 s, x = delta / 2M = 0.006: sqrt(6,000) (1 + sqrt(0.006) / 3 + 0.006 / 9) - 6
  // = 73.511 s, over a step of 600 s / 50 kept steps = 12 s: 6.126 steps.
  CHECK(value("daly_optimum_steps") == Approx(6.1259).epsilon(1e-4));
  // Without a transformer: samples per second.
  json r = collective_result_json("c", 1);
  r["summary"]["collective"]["tokens"] = {{"per_step", 0.0}, {"kept", 0.0}};
  const RunMetrics samples = run_metrics(parsed(r, "time,version,test_accuracy\n"), 0.7);
  for (const auto& c : all_metric_columns(0, 0.7)) {
    if (c.key == "goodput_samples_per_s") CHECK(c.value(samples) == 0.2);  // 200 / 1,000 s
    if (c.key == "goodput_tokens_per_s") CHECK_FALSE(c.value(samples));
    // A parameter-server run has no collective figure.
    if (c.collective) CHECK_FALSE(c.value(run_metrics(parsed(result_json("ps", 1)), 0.7)));
  }
  // No optimum without a failure, or without a checkpoint that stalls.
  for (const auto& [pointer, zero] : {std::pair{"/summary/collective/failures", json(0)},
                                      {"/summary/collective/time/checkpoint_stall", json(0.0)},
                                      {"/summary/collective/checkpoints", json(0)}}) {
    json z = collective_result_json("c", 1);
    z[json::json_pointer(pointer)] = zero;
    const RunMetrics none = run_metrics(parsed(z, "time,version,test_accuracy\n"), 0.7);
    for (const auto& c : all_metric_columns(0, 0.7)) {
      if (c.key == "daly_optimum_steps") CHECK_FALSE(c.value(none));
    }
  }
}

TEST_CASE("a collective run's nodes are billed: down nodes released, a switch's nodes held",
          "[table][metrics]") {
  const RunSummary run = parsed(collective_result_json("c", 1), "time,version,test_accuracy\n");
  const std::vector<HostTimeline> nodes = node_timelines(run);
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[1].host == "node-1");
  CHECK(nodes[1].role == "node");
  REQUIRE(nodes[1].down.size() == 1);
  CHECK(nodes[1].down[0].begin == 100.0);
  CHECK(nodes[1].down[0].end == 300.0);
  CHECK(nodes[2].down.empty());  // the switch failure: cut off, not released
  CHECK(node_timelines(parsed(result_json("ps", 1))).empty());

  // 4 nodes x 1,000 s - 200 s down = 3,800 s at 0.001 USD/s.
  const RunMetrics m = compute_metrics(run, round_prices(), "nodes", 0.7);
  CHECK(*m.cost_usd == Approx(3.8));
  CHECK(*m.host_hours == Approx(3800.0 / 3600.0));
  CHECK_FALSE(m.cost_to_target_usd);  // no accuracy, no target
  // Commitment: every node the whole run, down or not: 4 x 1,000 s at 1.8 USD/h.
  CHECK(*compute_metrics(run, round_prices(), "nodes-commitment", 0.7).cost_usd == Approx(2.0));
  // A plan that names no node bills nothing of the run: no cost rather than 0 USD.
  const RunMetrics unpriced = compute_metrics(run, round_prices(), "per-second", 0.7);
  CHECK_FALSE(unpriced.cost_usd);
  CHECK_FALSE(unpriced.host_hours);
  // A node down for good (to the end), and two outages of one node that overlap, merged.
  json r = collective_result_json("c", 1);
  r["events"][1]["details"]["down_for"] = "forever";
  r["events"].insert(
      r["events"].begin() + 2,
      event(150.0, "failure", "node-0",
            {{"target", "rack"}, {"index", 0}, {"nodes", {0, 1}}, {"down_for", 50.0}}));
  const std::vector<HostTimeline> lost = node_timelines(parsed(r, "time,version,test_accuracy\n"));
  REQUIRE(lost[1].down.size() == 1);
  CHECK(lost[1].down[0].end == 1000.0);
  REQUIRE(lost[0].down.size() == 1);
  CHECK(lost[0].down[0].begin == 150.0);
  CHECK(lost[0].down[0].end == 200.0);
}

TEST_CASE("a collective run's spares are billed like its nodes", "[table][metrics]") {
  // One spare (node-4), up the whole run: 5 nodes x 1,000 s - 200 s down = 4,800 s.
  json r = collective_result_json("c", 1);
  r["summary"]["collective"]["spares"] = {{"nodes", 1}, {"swaps", 0}, {"pool_node_hours", 0.0}};
  const RunSummary run = parsed(r, "time,version,test_accuracy\n");
  const std::vector<HostTimeline> nodes = node_timelines(run);
  REQUIRE(nodes.size() == 5);
  CHECK(nodes[4].host == "node-4");
  CHECK(nodes[4].down.empty());
  CHECK(*compute_metrics(run, round_prices(), "nodes", 0.7).cost_usd == Approx(4.8));
}

TEST_CASE("a table of collective runs shows ETTR, goodput and time lost by default",
          "[table][render]") {
  TempDir tmp;
  write_text(tmp.file("prices.json"), ROUND_PRICE_FILE);
  for (std::uint64_t seed : {1, 2}) {
    json r = collective_result_json("coll", seed);
    r["summary"]["collective"]["ettr"] = 0.5 + 0.1 * static_cast<double>(seed);
    write_run(tmp.file("c/seed-" + std::to_string(seed)), r, "time,version,test_accuracy\n");
  }
  TableRequest request;
  request.directories = {tmp.file("c")};
  request.prices = tmp.file("prices.json");
  const std::string md = make_table(request);
  INFO(md);
  // Time only: no accuracy column. The file's plans name no node: no cost column.
  // The Young/Daly optimum of the runs' own figures (worked by hand in "collective metrics").
  CHECK(md.rfind("| configuration | seeds | ETTR (fraction) | goodput (tokens/s) | tokens kept | "
                 "steps rolled back | restarts | time lost (s) | Young/Daly optimum (steps) |\n"
                 "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n| coll | 2 | "
                 "0.65 ± 0.64 | 50 ± 0 | 50000 ± 0 | 10 ± 0 | 2 ± 0 | 400 ± 0 | 6.13 ± 0 |\n",
                 0) == 0);
  // Every cause on request, in the order of the time causes.
  request.columns = {"time_detection_s", "time_repair_wait_s", "steps_kept"};
  CHECK_THAT(make_table(request),
             StartsWith("| configuration | seeds | time: detection (s) | time: repair wait (s) | "
                        "steps kept |\n| --- | ---: | ---: | ---: | ---: |\n| coll | 2 | 60 ± 0 | "
                        "140 ± 0 | 50 ± 0 |\n"));
  // A parameter-server table has no collective key.
  write_run(tmp.file("ps"), result_json("ps", 1));
  request.directories = {tmp.file("ps")};
  CHECK_THAT(option_error(request), StartsWith("--columns: expected all, or column keys of these "
                                               "runs (final_accuracy, ") &&
                                        !Contains("ettr") && EndsWith("\"time_detection_s\""));
  request.columns = {};
  request.format = "csv";
  CHECK(make_table(request).find("ettr") == std::string::npos);
}

TEST_CASE(
    "collective tables: accuracy with real math, cost under a plan naming nodes, and mixed "
    "tables show both default sets",
    "[table][render]") {
  json r = collective_result_json("coll", 1);
  r["summary"]["collective"]["math"] = "real";
  r["summary"]["final"] = {{"test_accuracy", 0.8}, {"time", 1000.0}, {"version", 50}};
  RunMetrics m = compute_metrics(parsed(r), round_prices(), "nodes", 0.7);
  TableLayout layout;
  layout.plan = "nodes";
  layout.prices = "p.json";
  const std::string md = render_table(group_runs({m}), TableFormat::MARKDOWN, layout);
  INFO(md);
  CHECK(md.rfind("| configuration | seeds | final accuracy (fraction) | ETTR (fraction) | goodput "
                 "(tokens/s) | tokens kept | steps rolled back | restarts | time lost (s) | "
                 "Young/Daly optimum (steps) | cost (USD) |\n",
                 0) == 0);
  CHECK_THAT(md, Contains("| 0.800 (n=1) | 0.600 (n=1) | 50 (n=1) | 50000 (n=1) | 10 (n=1) | 2 "
                          "(n=1) | 400 (n=1) | 6.13 (n=1) | 3.80 (n=1) |"));
  CHECK_THAT(md, EndsWith("cost plan 'nodes' of p.json.\n"));

  // Mixed: the parameter server's defaults, then the collective ones that have a value.
  RunMetrics ps = compute_metrics(parsed(result_json("ps", 1)), round_prices(), "nodes", 0.7);
  ps.root_index = 1;
  const std::string mixed = render_table(group_runs({m, ps}), TableFormat::MARKDOWN, layout);
  INFO(mixed);
  CHECK(mixed.rfind("| configuration | seeds | final accuracy (fraction) | recovery time after "
                    "failure 1 (s) | recovery time after failure 2 (s) | time to 0.7 (s) | "
                    "gradients lost | gradients rolled back | ETTR (fraction) | goodput (tokens/s) "
                    "| tokens kept | steps rolled back | restarts | time lost (s) | Young/Daly "
                    "optimum (steps) | cost (USD) |\n",
                    0) == 0);
  // The parameter server's hosts are not nodes: no cost under this plan.
  CHECK_THAT(mixed, Contains("\n| ps | 1 | 0.800 (n=1) | 22.5 (1/1) | — (0/1) | 70 (1/1) | 10 "
                             "(n=1) | 40 (n=1) | — (0/1) | — (0/1) | — (0/1) | — (0/1) | — (0/1) "
                             "| — (0/1) | — (0/1) | — (0/1) |\n"));
}

TEST_CASE("without --plan, collective runs are priced with the file's default collective plan",
          "[table][render]") {
  TempDir tmp;
  json prices = json::parse(ROUND_PRICE_FILE);
  prices["plans"]["nodes"] = {
      {"description", "GPU nodes"}, {"rule", "per_second"}, {"roles", {{"node", "t"}}}};
  prices["default_collective_plan"] = "nodes";
  write_text(tmp.file("prices.json"), prices.dump());
  write_run(tmp.file("a/coll"), collective_result_json("coll", 1), "time,version,test_accuracy\n");
  write_run(tmp.file("b/ps"), result_json("ps", 1));
  TableRequest request;
  request.directories = {tmp.file("a")};
  request.prices = tmp.file("prices.json");
  request.columns = {"cost_usd"};
  // The fixture's 4 nodes for 1,000 s, some down, at 3.6 USD an hour: 3.80 USD (as under the
  // plan asked for by name, above).
  CHECK_THAT(make_table(request),
             Contains("| coll | 1 | 3.80 (n=1) |") &&
                 EndsWith("cost plan 'nodes' of " + tmp.file("prices.json") + ".\n"));
  // Both kinds: each priced with its own plan, both named.
  request.directories = {tmp.file("a"), tmp.file("b")};
  const std::string mixed = make_table(request);
  INFO(mixed);
  CHECK_THAT(mixed, Contains("| coll | 1 | 3.80 (n=1) |") && !Contains("— (0/1)") &&
                        Contains("cost plan 'per-second' (parameter-server runs) and 'nodes' "
                                 "(collective runs) of "));
  request.format = "csv";
  const std::string csv = make_table(request);
  CHECK_THAT(csv, Contains("\ncoll,1,0.7,nodes,") && Contains("\nps,1,0.7,per-second,"));
  // --plan prices every run with the plan asked for: the parameter server's bills no node.
  request.format = "md";
  request.plan = "per-second";
  CHECK_THAT(make_table(request),
             Contains("| coll | 1 | — (0/1) |") && Contains("cost plan 'per-second' of "));
}

// ---------------------------------------------------------------------------------------------
// Grouping

RunMetrics metrics(const std::string& name, std::uint64_t seed, std::size_t root,
                   double final_accuracy = 0.8) {
  RunMetrics m;
  m.configuration = name;
  m.seed = seed;
  m.root_index = root;
  m.directory = fs::path("results") / name / ("seed-" + std::to_string(seed)) /
                ("root-" + std::to_string(root));
  m.final_accuracy = final_accuracy;
  return m;
}

TEST_CASE("configurations by first argument then name, runs by seed", "[table][group]") {
  const auto configs =
      group_runs({metrics("zeta", 2, 0), metrics("beta", 1, 1), metrics("alpha", 1, 1),
                  metrics("zeta", 1, 0), metrics("alpha", 3, 0)});
  REQUIRE(configs.size() == 3);
  // alpha appears under argument 0 (seed 3) too, so it comes before beta.
  CHECK(configs[0].name == "alpha");
  CHECK(configs[1].name == "zeta");
  CHECK(configs[2].name == "beta");
  REQUIRE(configs[1].runs.size() == 2);
  CHECK(configs[1].runs[0].seed == 1);
  CHECK(configs[1].runs[1].seed == 2);
  CHECK(configs[0].runs[0].seed == 1);
  // Names in natural order: a sweep's values as a reader counts them.
  const auto every = group_runs({metrics("every-100", 1, 0), metrics("every-1600", 1, 0),
                                 metrics("every-200", 1, 0), metrics("every-25", 1, 0)});
  REQUIRE(every.size() == 4);
  CHECK(every[0].name == "every-25");
  CHECK(every[1].name == "every-100");
  CHECK(every[2].name == "every-200");
  CHECK(every[3].name == "every-1600");
}

TEST_CASE("two runs of one configuration with one seed: an error naming both", "[table][group]") {
  const auto e = error_of([] {
    group_runs({metrics("cfg", 1, 0), metrics("other", 1, 0), metrics("cfg", 1, 1)});
  });
  CHECK(std::string(e.what()) ==
        "results/cfg/seed-1/root-1/result.json: /scenario/seed: expected a seed no other run of "
        "configuration 'cfg' has (one seed, one run), found 1, the seed of "
        "results/cfg/seed-1/root-0 too");
}

// ---------------------------------------------------------------------------------------------
// Rendering

std::vector<Configuration> two_configurations() {
  RunMetrics a1 = metrics("a_x", 1, 0, 0.80), a2 = metrics("a_x", 2, 0, 0.82),
             a3 = metrics("a_x", 3, 0, 0.81);
  a1.time_to_target = 100.0;
  a2.time_to_target = 110.0;
  a1.server_failures = {{30.0, 0.6, 0.4, 20.0}};
  a2.server_failures = {{30.0, 0.62, 0.5, 20.0}};
  a3.server_failures = {{30.0, 0.61, 0.45, std::nullopt}};
  a1.gradients_computed = a2.gradients_computed = a3.gradients_computed = 5000;
  a1.cost_per_useful_gradient_usd = a2.cost_per_useful_gradient_usd =
      a3.cost_per_useful_gradient_usd = 2.5e-6;
  RunMetrics b = metrics("b%&", 7, 0, 0.9);
  return group_runs({a1, a2, a3, b});
}

TEST_CASE("Markdown: one row per configuration, units in headers", "[table][render]") {
  TableLayout layout;
  layout.plan = "per-second";
  layout.prices = "p.json";
  layout.columns = {"all"};
  const std::string md = render_table(two_configurations(), TableFormat::MARKDOWN, layout);
  INFO(md);
  CHECK_THAT(md, Contains("| configuration | seeds | final accuracy (fraction) | accuracy before "
                          "failure 1 (fraction) | lowest accuracy after failure 1 (fraction) | "
                          "recovery time after failure 1 (s) | time to 0.7 (s) | final "
                          "validation loss (nat) | final perplexity | gradients computed |"));
  CHECK_THAT(md, Contains("cost per useful gradient (µUSD) |\n| --- | ---: | ---: |"));
  // 0.81 ± 0.0248 (by hand above); before failure 1: 0.61 ± 0.0248; lowest: 0.45 ± 0.124.
  // These hand-made runs have no loss.
  CHECK_THAT(md, Contains("| a_x | 3 | 0.810 ± 0.025 | 0.610 ± 0.025 | 0.45 ± 0.12 | "
                          "20 ± 0 (2/3) | 105 ± 64 (2/3) | — (0/3) | — (0/3) | 5000 ± 0 |"));
  CHECK_THAT(md, Contains("| 2.50 ± 0 |"));  // µUSD
  // n = 1; a failure column the run has no failure for; a target never reached.
  CHECK_THAT(md, Contains("| b%& | 1 | 0.900 (n=1) | — (0/1) | — (0/1) | — (0/1) |"));
  CHECK_THAT(md, Contains("Target accuracy 0.7; cost plan 'per-second' of p.json."));
}

TEST_CASE(
    "a language model's final validation loss and perplexity: by default when a run is one, on "
    "request otherwise",
    "[table][render]") {
  // Two seeds of a collective language model: losses 2.5 and 2.7 nats.
  std::vector<RunMetrics> runs;
  for (const auto& [seed, loss] : {std::pair{1, 2.5}, std::pair{2, 2.7}}) {
    json r = collective_result_json("lm", seed);
    r["scenario"]["model"] = {{"kind", "transformer"}, {"layers", 2}};
    r["summary"]["collective"]["math"] = "real";
    r["summary"]["final"] = {{"test_accuracy", 0.4},
                             {"test_loss", loss},
                             {"test_perplexity", 0.0},
                             {"time", 1000.0},
                             {"version", 50}};
    const RunSummary run = parsed(r);
    CHECK(run.language_model);
    REQUIRE(run.final_loss);
    CHECK(*run.final_loss == loss);
    runs.push_back(run_metrics(run, 0.7));
  }
  const std::string md = render_table(group_runs(runs), TableFormat::MARKDOWN, {});
  INFO(md);
  // Mean 2.6, s = 0.1414, h = 12.706 x 0.1414 / sqrt 2 = 1.27; perplexities e^2.5 = 12.18 and
  // e^2.7 = 14.88: mean 13.53, s = 1.909, h = 17.2.
  CHECK(md.rfind("| configuration | seeds | final accuracy (fraction) | final validation loss "
                 "(nat) | final perplexity | ETTR (fraction) |",
                 0) == 0);
  CHECK_THAT(md, Contains("| lm | 2 | 0.400 ± 0 | 2.6 ± 1.3 | 14 ± 17 | 0.600 ± 0 |"));

  // A classifier's runs have a loss too, shown on request only.
  json r = collective_result_json("softmax", 1);
  r["scenario"]["model"] = {{"kind", "softmax"}};
  r["summary"]["collective"]["math"] = "real";
  r["summary"]["final"] = {{"test_accuracy", 0.8}, {"test_loss", 0.5}, {"time", 1000.0}};
  const RunSummary softmax = parsed(r);
  CHECK_FALSE(softmax.language_model);
  const std::vector<Configuration> classifier = group_runs({run_metrics(softmax, 0.7)});
  CHECK(render_table(classifier, TableFormat::MARKDOWN, {}).find("loss") == std::string::npos);
  TableLayout layout;
  layout.columns = {"final_test_loss", "final_test_perplexity"};
  CHECK_THAT(render_table(classifier, TableFormat::MARKDOWN, layout),
             Contains("| softmax | 1 | 0.500 (n=1) | 1.65 (n=1) |"));
  // CSV has them among every column.
  CHECK_THAT(render_table(classifier, TableFormat::CSV, {}),
             Contains(",final_test_loss_mean,final_test_loss_ci95,final_test_loss_n,"));

  // No loss: a final evaluation without one (an older result), a loss that was not finite
  // (written as null); a negative one is refused.
  r["summary"]["final"].erase("test_loss");
  CHECK_FALSE(parsed(r).final_loss);
  r["summary"]["final"]["test_loss"] = nullptr;
  CHECK_FALSE(parsed(r).final_loss);
  r["summary"]["final"]["test_loss"] = -1.0;
  CHECK(result_error(r) ==
        "r/result.json: /summary/final/test_loss: expected a number >= 0, found -1.0");
}

// A language model's evaluations, worked out by hand: the loss falls from 5.5 to 3.2 at 2 s
// (1,024 tokens), rises to 3.6 after a failure (a rollback: 512 tokens at 3 s), is not finite
// at 4 s (a diverged evaluation reaches nothing) and is 2.9 at 5 s (2,048 tokens).
TEST_CASE("time and tokens to a target loss: the first evaluation at or below it, none if never",
          "[table][render]") {
  const std::string timeseries =
      "time,version,test_accuracy,test_loss,test_perplexity,train_loss,test_samples,"
      "gradients_computed,gradients_applied,tokens\n"
      "0,0,0.01,5.5,244.7,,8,0,0,0\n"
      "1,1,0.1,4.0,54.6,4.2,8,1,1,512\n"
      "2,2,0.2,3.2,24.5,3.5,8,2,2,1024\n"
      "3,1,0.15,3.6,36.6,3.3,8,3,3,512\n"
      "4,2,0.2,nan,nan,3.1,8,4,4,1024\n"
      "5,4,0.3,2.9,18.2,3.0,8,6,6,2048\n";
  json r = collective_result_json("lm", 1);
  r["scenario"]["model"] = {{"kind", "transformer"}};
  const RunSummary run = parsed(r, timeseries);
  REQUIRE(run.evaluations.size() == 6);
  CHECK_FALSE(run.evaluations[4].test_loss);  // nan: no loss
  CHECK(*run.evaluations[5].tokens == 2048.0);

  const auto to = [&](double target) { return run_metrics(run, 0.7, target); };
  CHECK(*to(4.0).time_to_target_loss == 1.0);  // 4.0 <= 4.0
  CHECK(*to(4.0).tokens_to_target_loss == 512.0);
  CHECK(*to(3.5).time_to_target_loss == 2.0);  // not 3 s: the first at or below it
  CHECK(*to(3.5).tokens_to_target_loss == 1024.0);
  CHECK(*to(3.0).time_to_target_loss == 5.0);  // nan at 4 s is not below 3
  CHECK(*to(3.0).tokens_to_target_loss == 2048.0);
  CHECK_FALSE(to(2.0).time_to_target_loss);  // never reached: no value, not the end
  CHECK_FALSE(to(2.0).tokens_to_target_loss);
  CHECK_FALSE(run_metrics(run, 0.7).time_to_target_loss);  // no target loss asked

  // A classifier's rows have no tokens (an empty field): a time, no tokens.
  const RunSummary classifier = parsed(result_json("c", 1),
                                       "time,version,test_accuracy,test_loss,tokens\n"
                                       "0,0,0.1,2.3,\n1,5,0.5,1.1,\n");
  CHECK(*run_metrics(classifier, 0.7, 1.5).time_to_target_loss == 1.0);
  CHECK_FALSE(run_metrics(classifier, 0.7, 1.5).tokens_to_target_loss);

  // Rendered: by default for a language model, with the target in headers and caption; the
  // CSV's target_loss field after target_accuracy.
  std::vector<RunMetrics> runs{to(3.5), to(3.5)};
  runs[1].seed = 2;
  runs[1].time_to_target_loss.reset();  // a seed that never got there
  runs[1].tokens_to_target_loss.reset();
  TableLayout layout;
  layout.target_loss = 3.5;
  const std::string md = render_table(group_runs(runs), TableFormat::MARKDOWN, layout);
  INFO(md);
  CHECK_THAT(md, Contains("| time to loss 3.5 (s) | tokens to loss 3.5 (tokens) |"));
  CHECK_THAT(md, Contains("| 2 (1/2) | 1024 (1/2) |"));
  CHECK_THAT(md, Contains("Target accuracy 0.7; target validation loss 3.5 nat."));
  const std::string csv = render_table(group_runs(runs), TableFormat::CSV, layout);
  CHECK(csv.rfind("configuration,runs,target_accuracy,target_loss,plan,", 0) == 0);
  CHECK_THAT(csv, Contains(",time_to_target_loss_s_mean,time_to_target_loss_s_ci95,"
                           "time_to_target_loss_s_n,tokens_to_target_loss_mean,"));
  CHECK_THAT(csv, Contains("\nlm,2,0.7,3.5,,"));
  // Without a target loss there are no such columns.
  CHECK(render_table(group_runs(runs), TableFormat::CSV, {}).find("target_loss") ==
        std::string::npos);

  // Bad fields and option.
  CHECK(timeseries_error("time,version,test_accuracy,test_loss\n0,0,0.1,abc\n") ==
        "r/timeseries.csv:2:9: expected a number in column 'test_loss', found \"abc\"");
  CHECK(timeseries_error("time,version,test_accuracy,tokens\n0,0,0.1,-5\n") ==
        "r/timeseries.csv:2:9: expected a number >= 0 or nothing in column 'tokens', found -5");
  TableRequest request;
  request.directories = {"nowhere"};
  request.target_loss = -1.0;
  CHECK(option_error(request) == "--target-loss: expected a validation loss > 0 (nat), found -1");
}

TEST_CASE("CSV has mean and half-width and count columns and per-run rows", "[table][render]") {
  TableLayout layout;
  layout.plan = "per-second";
  const std::string csv = render_table(two_configurations(), TableFormat::CSV, layout);
  INFO(csv);
  CHECK(csv.rfind("configuration,runs,target_accuracy,plan,final_accuracy_mean,"
                  "final_accuracy_ci95,final_accuracy_n,accuracy_before_failure_1_mean,",
                  0) == 0);
  CHECK_THAT(csv, Contains("\na_x,3,0.7,per-second,0.81"));
  CHECK_THAT(csv, Contains(",0.024841377"));
  CHECK_THAT(csv, Contains(",2.5e-06,0,3\n"));  // USD, not µUSD
  CHECK_THAT(csv, Contains("\nb%&,1,0.7,per-second,0.9,,1,,,0,,,0,,,0,"));

  layout.per_run = true;
  const std::string per_run = render_table(two_configurations(), TableFormat::CSV, layout);
  INFO(per_run);
  CHECK(per_run.rfind("configuration,seed,directory,status,target_accuracy,plan,final_accuracy,"
                      "accuracy_before_failure_1,lowest_accuracy_after_failure_1,"
                      "recovery_after_failure_1_s,time_to_target_s,",
                      0) == 0);
  CHECK_THAT(per_run,
             Contains("\na_x,2,results/a_x/seed-2/root-0,,0.7,per-second,0.82,0.62,0.5,20,110,"));
  CHECK(std::count(per_run.begin(), per_run.end(), '\n') == 5);
}

TEST_CASE("the columns option picks metric columns by key in the order given", "[table][render]") {
  TableLayout layout;
  layout.plan = "per-second";
  layout.prices = "p.json";
  layout.columns = {"recovery_after_failure_1_s", "final_accuracy"};
  const std::string md = render_table(two_configurations(), TableFormat::MARKDOWN, layout);
  INFO(md);
  CHECK(md.rfind("| configuration | seeds | recovery time after failure 1 (s) | final accuracy "
                 "(fraction) |\n| --- | ---: | ---: | ---: |\n| a_x | 3 | 20 ± 0 (2/3) | "
                 "0.810 ± 0.025 |\n",
                 0) == 0);
  layout.columns = {"final_accuracy", "recovery_after_failure_2_s"};
  std::string e;
  try {
    render_table(two_configurations(), TableFormat::CSV, layout);
  } catch (const TableOptionError& error) {
    e = error.what();
  }
  CHECK_THAT(e, StartsWith("--columns: expected all, or column keys of these runs (final_accuracy, "
                           "accuracy_before_failure_1, "));
  CHECK_THAT(e, EndsWith("cost_per_useful_gradient_usd), found \"recovery_after_failure_2_s\""));
}

TEST_CASE("by default: accuracy, time to target, recovery, work lost; the rest on request",
          "[table][render]") {
  auto configs = two_configurations();
  configs[0].runs[0].server_failures.push_back({70.0, 0.7, 0.6, 15.0});
  TableLayout layout;
  layout.plan = "per-second";
  layout.prices = "p.json";
  const std::string md = render_table(configs, TableFormat::MARKDOWN, layout);
  INFO(md);
  CHECK(md.rfind("| configuration | seeds | final accuracy (fraction) | recovery time after "
                 "failure 1 (s) | recovery time after failure 2 (s) | time to 0.7 (s) | "
                 "gradients lost | gradients rolled back |\n| --- | ---: | ---: | ---: | ---: | "
                 "---: | ---: | ---: |\n| a_x | 3 | 0.810 ± 0.025 | 20 ± 0 (2/3) | 15 (1/3) | "
                 "105 ± 64 (2/3) | 0 ± 0 | 0 ± 0 |\n",
                 0) == 0);
  // No cost column, no price plan in the caption.
  CHECK_THAT(md, EndsWith("(m/n): runs with a value / runs. Target accuracy 0.7.\n"));
  CHECK(render_table(configs, TableFormat::LATEX, layout).find("cost") == std::string::npos);
  // A cost column names its plan and price file.
  layout.columns = {"final_accuracy", "cost_usd"};
  CHECK_THAT(render_table(configs, TableFormat::MARKDOWN, layout),
             EndsWith("Target accuracy 0.7; cost plan 'per-second' of p.json.\n"));
  // "all": every column of the table, costs and all.
  layout.columns = {"all"};
  const std::string all = render_table(configs, TableFormat::MARKDOWN, layout);
  CHECK_THAT(all, Contains("| gradients computed |") && Contains("| host-hours (h) |") &&
                      Contains("| cost per useful gradient (µUSD) |") &&
                      Contains("accuracy before failure 2 (fraction)"));
  layout.columns = {"all", "final_accuracy"};
  CHECK_THROWS_AS(render_table(configs, TableFormat::MARKDOWN, layout), TableOptionError);
  // CSV is for programs: every column unless --columns says otherwise.
  layout.columns = {};
  CHECK_THAT(render_table(configs, TableFormat::CSV, layout),
             Contains(",gradients_computed_mean,") && Contains(",cost_usd_mean,"));
}

TEST_CASE("Markdown escapes only what Markdown would read otherwise", "[table][render]") {
  const auto row_of = [](const std::string& name) {
    const std::string md =
        render_table(group_runs({metrics(name, 1, 0, 0.5)}), TableFormat::MARKDOWN, {});
    const auto begin = md.find("\n| ", md.find("---")) + 3;
    return md.substr(begin, md.find(" |", begin) - begin);
  };
  // Names are letters, digits, '.', '_' and '-': an underscore inside a word is no emphasis.
  CHECK(row_of("quickstart_lr-0.01") == "quickstart_lr-0.01");
  CHECK(row_of("a_b_c") == "a_b_c");
  CHECK(row_of("_x_") == "\\_x\\_");
  CHECK(row_of("lr_-1") == "lr\\_-1");
  CHECK(row_of("a|b*c`d") == "a\\|b\\*c\\`d");
}

TEST_CASE("LaTeX: booktabs, escaped", "[table][render]") {
  TableLayout layout;
  layout.plan = "a_plan";
  layout.prices = "p.json";
  layout.columns = {"all"};
  const std::string tex = render_table(two_configurations(), TableFormat::LATEX, layout);
  INFO(tex);
  CHECK_THAT(tex, Contains("\\begin{tabular}{lr"));
  CHECK_THAT(tex, Contains("\\toprule\nconfiguration & seeds & final accuracy (fraction)"));
  CHECK_THAT(tex, Contains("cost per useful gradient ($\\mu$USD) \\\\\n\\midrule\n"));
  CHECK_THAT(tex, Contains("a\\_x & 3 & 0.810 $\\pm$ 0.025 &"));
  CHECK_THAT(tex, Contains("b\\%\\& & 1 & 0.900 (n=1) & --- (0/1) &"));
  CHECK_THAT(tex, Contains("\\bottomrule\n\\end{tabular}\n"));
  CHECK_THAT(tex, Contains("cost plan 'a\\_plan'"));
  CHECK(tex.find("±") == std::string::npos);
}

TEST_CASE("failure columns: as many as the most failures, at most --failures", "[table][render]") {
  auto configs = two_configurations();
  configs[0].runs[0].server_failures.push_back({70.0, 0.7, 0.6, std::nullopt});
  TableLayout layout;
  CHECK_THAT(render_table(configs, TableFormat::MARKDOWN, layout),
             Contains("recovery time after failure 2 (s)"));
  layout.max_failures = 1;
  const std::string one = render_table(configs, TableFormat::MARKDOWN, layout);
  CHECK_THAT(one, Contains("failure 1"));
  CHECK(one.find("failure 2") == std::string::npos);
  layout.max_failures = 0;
  CHECK(render_table(configs, TableFormat::MARKDOWN, layout).find("failure") == std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The whole request

TEST_CASE("make_table: directories to a table", "[table]") {
  TempDir tmp;
  write_text(tmp.file("prices.json"), ROUND_PRICE_FILE);
  for (std::uint64_t seed : {1, 2}) {
    json r = result_json("cfg", seed);
    r["summary"]["final"]["test_accuracy"] = 0.8 + 0.02 * static_cast<double>(seed);
    write_run(tmp.file("results/seed-" + std::to_string(seed)), r);
  }
  TableRequest request;
  request.directories = {tmp.file("results")};
  request.prices = tmp.file("prices.json");
  request.columns = {"all"};
  const std::string md = make_table(request);
  INFO(md);
  // 0.82, 0.84: mean 0.83, half-width 12.706 x 0.01414 / 1.414 = 0.127.
  CHECK_THAT(md, Contains("| cfg | 2 | 0.83 ± 0.13 |"));
  CHECK_THAT(md, Contains("| 0.270 ± 0 | 0.190 ± 0 (2/2) |"));  // cost, cost to target
  CHECK_THAT(md, Contains("cost plan 'per-second'"));           // the default plan

  // The built-in price file is named as in the source tree, wherever the checkout is.
  request.prices_is_default = true;
  CHECK_THAT(make_table(request), Contains("cost plan 'per-second' of analysis/prices.json."));
  request.prices_is_default = false;

  request.plan = "commitment";
  request.format = "csv";
  CHECK_THAT(make_table(request), Contains(",commitment,"));

  // A duplicate seed under another argument.
  write_run(tmp.file("again"), result_json("cfg", 2));
  request.directories.push_back(tmp.file("again"));
  CHECK_THAT(error_of([&] { make_table(request); }).what(),
             Contains("again/result.json: /scenario/seed") && Contains("seed-2 too"));
  // The same directory twice is one run.
  request.directories = {tmp.file("results"), tmp.file("results/seed-1")};
  CHECK_NOTHROW(make_table(request));
}

TEST_CASE("make_table: every bad option", "[table][errors]") {
  TempDir tmp;
  write_text(tmp.file("prices.json"), ROUND_PRICE_FILE);
  write_run(tmp.file("run"), result_json("cfg", 1));
  TableRequest good;
  good.directories = {tmp.file("run")};
  good.prices = tmp.file("prices.json");

  TableRequest r = good;
  r.format = "html";
  CHECK(option_error(r) == "--format: expected md, csv or latex, found \"html\"");
  for (double bad : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    r = good;
    r.target = bad;
    CHECK_THAT(option_error(r), Contains("--target: expected a test accuracy in (0, 1], found"));
  }
  r = good;
  r.target = 1.0;
  CHECK_NOTHROW(make_table(r));
  r = good;
  r.per_run = true;
  CHECK(option_error(r) == "--per-run: expected with --format csv only, found --format md");
  r = good;
  r.directories.clear();
  CHECK(option_error(r) == "DIR: expected at least one result directory, found none");
  r = good;
  r.plan = "spot";
  CHECK(option_error(r) == "--plan: expected a plan of " + good.prices.string() +
                               " (commitment, per-second), found \"spot\"");
  r = good;
  r.prices = tmp.file("gone.json");
  r.prices_is_default = true;
  CHECK_THAT(option_error(r), Contains("--prices: expected a price file; the default, ") &&
                                  Contains("gone.json, is the price file of the source tree") &&
                                  Contains("give one with --prices FILE"));
  // A price file given by the user that is missing or bad: the cost model's own error.
  r.prices_is_default = false;
  CHECK_THAT(error_of([&] { make_table(r); }).what(), Contains("gone.json"));
  write_text(tmp.file("bad.json"), "{}");
  r.prices = tmp.file("bad.json");
  CHECK_THAT(error_of([&] { make_table(r); }).what(), Contains("bad.json: /"));
  // A bad result directory.
  r = good;
  write_text(tmp.file("run/timeseries.csv"), "time,version\n");
  CHECK_THAT(error_of([&] { make_table(r); }).what(),
             Contains("timeseries.csv:1:1: expected a header line with a 'test_accuracy' column"));
}

TEST_CASE("make_table_or_error: the table, or the message of a bad option or file",
          "[table][errors]") {
  TempDir tmp;
  write_text(tmp.file("prices.json"), ROUND_PRICE_FILE);
  write_run(tmp.file("run"), result_json("cfg", 1));
  TableRequest request;
  request.directories = {tmp.file("run")};
  request.prices = tmp.file("prices.json");
  const TableOrError good = make_table_or_error(request);
  CHECK_FALSE(good.error);
  CHECK(good.table == make_table(request));

  request.format = "html";
  const TableOrError option = make_table_or_error(request);
  CHECK(option.table.empty());
  CHECK(option.error == "--format: expected md, csv or latex, found \"html\"");

  request.format = "md";
  write_text(tmp.file("run/timeseries.csv"), "time,version\n");
  const TableOrError file = make_table_or_error(request);
  CHECK(file.table.empty());
  REQUIRE(file.error);
  CHECK_THAT(*file.error, Contains("timeseries.csv:1:1: expected a header line"));
}
