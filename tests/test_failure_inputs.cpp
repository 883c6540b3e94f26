// failures.trace and failures.rates of a collective scenario (docs/cluster.md, "Failure traces",
// "Failure rates by cause"): a small trace's faults as outages, worked out by hand for every
// mapping and extra_nodes choice, and the shipped Llama 3 table as processes. Engine-free.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "bad_scenarios.hpp"
#include "sim/scenario/scenario.hpp"

using nlohmann::json;
using namespace failsim::sim;

namespace {

const std::string FIXTURES = FAILSIM_SOURCE_DIR "/tests/fixtures";
constexpr double DAY = 86400.0;
constexpr double NEVER = std::numeric_limits<double>::infinity();

/// MINIMAL_COLLECTIVE (2 nodes) with `failures` and `nodes` nodes.
Scenario with_failures(const json& failures, int nodes = 2) {
  json doc = json::parse(failsim::testing::MINIMAL_COLLECTIVE);
  doc["platform"]["nodes"] = nodes;
  doc["layout"]["dp"] = 8 * nodes;
  doc["failures"] = failures;
  return parse_scenario(doc, "dir/s.json");
}

std::vector<TraceOutage> outages(const json& trace, int nodes) {
  const Scenario s = with_failures({{"trace", trace}}, nodes);
  REQUIRE(s.collective.failures.trace);
  // Written back, it reads to the same scenario.
  CHECK(parse_scenario(to_json(s), "dir/s.json") == s);
  return s.collective.failures.trace->outages;
}

}  // namespace

TEST_CASE("a trace's faults become outages of the mapped nodes", "[scenario][trace]") {
  // small-trace.json: a 0.5 -> 1.0 (GPU), b 0.5 -> never (Power Supply), c 2.0 -> 2.25 (OS).
  const std::string file = FIXTURES + "/small-trace.json";
  SECTION("by order, days as seconds, causes and host memory") {
    const auto o = outages({{"file", file}}, 3);
    REQUIRE(o.size() == 3);
    CHECK(o[0] == TraceOutage{0, 0.5 * DAY, 1.0 * DAY, "Hardware Failure / GPU / GPU Lost", false});
    CHECK(o[1] ==
          TraceOutage{1, 0.5 * DAY, NEVER, "Hardware Failure / Power Supply / PSU Lost", true});
    CHECK(o[2] == TraceOutage{2, 2.0 * DAY, 2.25 * DAY,
                              "Software Failure / Operating System / Kernel Panic", true});
  }
  SECTION("from_day and time_scale: a fault over is skipped, one open starts at 0") {
    const auto o = outages({{"file", file}, {"from_day", 1.0}, {"time_scale", 0.5}}, 3);
    REQUIRE(o.size() == 2);
    CHECK(o[0].slot == 1);
    CHECK(o[0].at == 0.0);
    CHECK(o[0].back == NEVER);
    CHECK(o[1].at == 1.0 * DAY * 0.5);
    CHECK(o[1].back == 1.25 * DAY * 0.5);
  }
  SECTION("a fixed repair replaces the trace's, the never-repaired fault's too") {
    const auto o = outages({{"file", file}, {"repair", "15min"}}, 3);
    REQUIRE(o.size() == 3);
    CHECK(o[0].at == 0.5 * DAY);
    CHECK(o[0].back == 0.5 * DAY + 900.0);
    CHECK(o[1].back == 0.5 * DAY + 900.0);  // b: never repaired in the trace
    CHECK(o[2].back == 2.0 * DAY + 900.0);
    // From day 0.52, a and b (back at day 0.5104) are over; with the trace's repairs they are not.
    const auto later = outages({{"file", file}, {"repair", "15min"}, {"from_day", 0.52}}, 3);
    REQUIRE(later.size() == 1);
    CHECK(later[0].slot == 2);
    CHECK(later[0].at == (2.0 - 0.52) * DAY);
    CHECK(outages({{"file", file}, {"from_day", 0.52}}, 3).size() == 3);
  }
  SECTION("extra nodes ignored or wrapped") {
    const auto ignored = outages({{"file", file}, {"extra_nodes", "ignore"}}, 2);
    REQUIRE(ignored.size() == 2);  // c's fault dropped
    CHECK(ignored[1].slot == 1);
    const auto wrapped = outages({{"file", file}, {"extra_nodes", "wrap"}}, 2);
    REQUIRE(wrapped.size() == 3);
    CHECK(wrapped[2].slot == 0);  // trace node 2 onto 2 mod 2
  }
  SECTION("a mapping file") {
    const auto o = outages({{"file", file},
                            {"mapping", "file"},
                            {"mapping_file", FIXTURES + "/small-trace-mapping-ab.json"},
                            {"extra_nodes", "ignore"}},
                           2);
    REQUIRE(o.size() == 2);
    CHECK(o[0].slot == 1);  // a -> 1
    CHECK(o[1].slot == 0);  // b -> 0
  }
}

TEST_CASE("a CSV, JSON-lines or sacct log becomes outages as the InfiniteHBD trace does",
          "[scenario][trace]") {
  SECTION("CSV: ISO times from the origin, causes as written, host memory by cause") {
    // node-failures.csv: gpu-a 03-01 00:00 -> 12:00 (GPU), gpu-b 06:00 -> 18:00 (Power
    // Supply, PSU lost), gpu-c 03-02 00:00 -> never (Kernel panic).
    const json columns{
        {"time", "timestamp"}, {"node", "host"}, {"cause", "reason"}, {"end", "resolved_at"}};
    const auto o = outages({{"file", FIXTURES + "/node-failures.csv"},
                            {"format", "csv"},
                            {"columns", columns},
                            {"origin", "2024-02-29T00:00:00Z"}},
                           3);
    REQUIRE(o.size() == 3);
    CHECK(o[0] == TraceOutage{0, 1.0 * DAY, 1.5 * DAY, "GPU", false});
    CHECK(o[1] == TraceOutage{1, 1.25 * DAY, 1.75 * DAY, "Power Supply, PSU lost", true});
    CHECK(o[2] == TraceOutage{2, 2.0 * DAY, NEVER, "Kernel panic", true});
  }
  SECTION("JSON lines: relative times in a unit") {
    const auto o = outages({{"file", FIXTURES + "/node-failures.jsonl"},
                            {"format", "jsonl"},
                            {"columns", {{"time", "t"}, {"node", "node"}, {"end", "repaired"}}},
                            {"time_unit", "min"}},
                           2);
    REQUIRE(o.size() == 3);
    CHECK(o[0] == TraceOutage{0, 0.0, NEVER, "unspecified", true});
    CHECK(o[1] == TraceOutage{1, 3600.0 * 60.0, 7200.0 * 60.0, "unspecified", true});
  }
  SECTION("sacct: NODE_FAIL jobs' End, every fault repaired after `repair`") {
    const auto o = outages({{"file", FIXTURES + "/sacct-node-fail.txt"},
                            {"format", "sacct"},
                            {"repair", "2h"},
                            {"origin", "2024-03-01T00:00:00"}},
                           2);
    REQUIRE(o.size() == 2);
    CHECK(o[0] == TraceOutage{0, 5.5 * 3600.0, 7.5 * 3600.0, "NODE_FAIL", true});
    CHECK(o[1] == TraceOutage{1, DAY, DAY + 7200.0, "NODE_FAIL", true});
  }
}

TEST_CASE("the Llama 3 rate table: one exponential process per kind, causes by count",
          "[scenario][rates]") {
  const Distribution repair{DistributionKind::EXPONENTIAL, 7200.0, 1.0};
  const Scenario s =
      with_failures({{"rates",
                      {{"file", FAILSIM_SOURCE_DIR "/data/failure-rates/llama3-405b.json"},
                       {"repair", {{"distribution", "exponential"}, {"mean", "2h"}}}}}});
  REQUIRE(s.collective.failures.rates);
  const auto& p = s.collective.failures.rates->processes;
  REQUIRE(p.size() == 3);
  double total = 0.0;
  for (const auto& process : p) {
    CHECK(process.repair == repair);
    CHECK(process.lifetime.kind == DistributionKind::EXPONENTIAL);
    double count = 0.0;
    for (const FailureCause& c : process.causes) count += c.weight;
    total += count;
  }
  CHECK(total == 419.0);
  // GPU-class causes and silent data corruption: 148 + 72 + 19 + 17 + 6 + 6 on 16,384 GPUs.
  CHECK(p[0].target == ClusterTarget::ACCELERATOR);
  CHECK(p[0].lifetime.value == Approx(16384.0 * 54.0 * DAY / 268.0));
  CHECK(p[0].causes.front() == FailureCause{"faulty GPU", 148.0, false});
  // Software, host and other node causes: 109 on 2,048 servers.
  CHECK(p[1].target == ClusterTarget::NODE);
  CHECK(p[1].lifetime.value == Approx(2048.0 * 54.0 * DAY / 109.0));
  // Switch or cable and NIC: 42 on 2,048 servers' links.
  CHECK(p[2].target == ClusterTarget::NIC);
  CHECK(p[2].lifetime.value == Approx(2048.0 * 54.0 * DAY / 42.0));
  CHECK(parse_scenario(to_json(s), "dir/s.json") == s);
}
