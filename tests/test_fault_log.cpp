// The failure-log readers (input/fault_log.hpp): a CSV log, a JSON-lines log and sacct's
// NODE_FAIL records, each read into the faults hand-computed from its fixture
// (tests/fixtures/node-failures.csv, node-failures.jsonl, sacct-node-fail.txt), ISO 8601 times,
// and one message per way a line can be malformed. Engine-free.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "input/fault_log.hpp"
#include "tests/file_text.hpp"
#include "tests/input_error_of.hpp"

using failsim::input::FaultLogFormat;
using failsim::input::FaultLogKind;
using failsim::input::FaultTrace;
using failsim::input::LogTimeKind;
using failsim::input::parse_fault_log;
using failsim::input::parse_iso8601;
using failsim::testing::error_of;

namespace {

std::string fixture(const char* name) {
  return failsim::testing::file_text(std::string(FAILSIM_SOURCE_DIR "/tests/fixtures/") + name);
}

FaultLogFormat csv_format() {
  FaultLogFormat f;
  f.kind = FaultLogKind::CSV;
  f.time_column = "timestamp";
  f.node_column = "host";
  f.cause_column = "reason";
  f.end_column = "resolved_at";
  return f;
}

FaultLogFormat jsonl_format() {
  FaultLogFormat f;
  f.kind = FaultLogKind::JSON_LINES;
  f.time_column = "t";
  f.node_column = "node";
  f.cause_column = "cause";
  f.end_column = "repaired";
  f.time = LogTimeKind::RELATIVE;
  return f;
}

FaultLogFormat sacct_format() {
  FaultLogFormat f;
  f.kind = FaultLogKind::SACCT;
  return f;
}

}  // namespace

TEST_CASE("ISO 8601 times read as seconds since the epoch", "[fault_log]") {
  CHECK(parse_iso8601("1970-01-01T00:00:00Z") == 0.0);
  CHECK(parse_iso8601("1970-01-02") == 86400.0);
  CHECK(parse_iso8601("1970-01-01 01:02:03") == 3723.0);
  CHECK(parse_iso8601("1970-01-01T01:02") == 3720.0);
  CHECK(parse_iso8601("1970-01-01T00:00:00.25Z") == 0.25);
  CHECK(parse_iso8601("1970-01-01T02:00:00+02:00") == 0.0);
  CHECK(parse_iso8601("1969-12-31T23:00:00-0100") == 0.0);
  // 2024-03-01 is 19,783 days after 1970-01-01 (54 years, 13 leap days, Jan and Feb 2024).
  CHECK(parse_iso8601("2024-03-01T00:00:00") == 19783.0 * 86400.0);
  CHECK(parse_iso8601("2024-02-29").has_value());
  for (const char* bad : {"2023-02-29", "2024-13-01", "2024-03-01T24:00", "2024-03-01T12:60",
                          "2024-3-1", "2024-03-01T12", "2024-03-01T12:00:00X", "yesterday", "",
                          "2024-03-01T12:00:00+2", "1709251200"}) {
    INFO(bad);
    CHECK_FALSE(parse_iso8601(bad));
  }
}

TEST_CASE("a CSV log: faults by start, times in days from the first, ends where written",
          "[fault_log]") {
  const FaultTrace t = parse_fault_log(fixture("node-failures.csv"), csv_format(), "log.csv");
  // The file lists gpu-b before gpu-a: faults and nodes go by start.
  REQUIRE(t.nodes == std::vector<std::string>{"gpu-a", "gpu-b", "gpu-c"});
  REQUIRE(t.faults.size() == 3);
  CHECK(t.faults[0].node == 0);
  CHECK(t.faults[0].start == 0.0);
  CHECK(t.faults[0].end == 0.5);
  CHECK(t.faults[0].cause() == "GPU");
  CHECK(t.faults[0].start_event == 3);  // its line
  CHECK(t.faults[1].start == 0.25);
  CHECK(t.faults[1].end == 0.75);
  CHECK(t.faults[1].cause() == "Power Supply, PSU lost");  // a quoted field with a comma
  CHECK(t.faults[2].start == 1.0);                         // a space for the 'T', no zone: UTC
  CHECK_FALSE(t.faults[2].end.has_value());                // an empty end: never back
  CHECK(t.first_event == 0.0);
  CHECK(t.last_event == 1.0);

  FaultLogFormat from_feb = csv_format();
  from_feb.origin = *parse_iso8601("2024-02-29T00:00:00Z");
  const FaultTrace shifted = parse_fault_log(fixture("node-failures.csv"), from_feb, "log.csv");
  CHECK(shifted.faults[0].start == 1.0);
  CHECK(shifted.faults[2].start == 2.0);

  FaultLogFormat no_cause = csv_format();
  no_cause.cause_column.reset();
  no_cause.end_column.reset();
  const FaultTrace bare = parse_fault_log(fixture("node-failures.csv"), no_cause, "log.csv");
  CHECK(bare.faults[1].cause() == "unspecified");
  CHECK_FALSE(bare.faults[0].end.has_value());
}

TEST_CASE("a JSON-lines log of relative times in a unit", "[fault_log]") {
  FaultLogFormat f = jsonl_format();
  const FaultTrace t = parse_fault_log(fixture("node-failures.jsonl"), f, "log.jsonl");
  REQUIRE(t.nodes == std::vector<std::string>{"7", "n1"});  // an integer node is its text
  REQUIRE(t.faults.size() == 3);
  CHECK(t.faults[0].start == 0.0);
  CHECK_FALSE(t.faults[0].end.has_value());  // null
  CHECK(t.faults[0].cause() == "NIC");
  CHECK(t.faults[1].start == 3600.0 / 86400.0);
  CHECK(t.faults[1].end == 7200.0 / 86400.0);
  CHECK(t.faults[2].start == 1.0);
  CHECK(t.faults[2].start_event == 4);  // after a blank line
  f.seconds_per_unit = 60.0;            // "min"
  CHECK(parse_fault_log(fixture("node-failures.jsonl"), f, "log.jsonl").faults[2].start == 60.0);
}

TEST_CASE("sacct's NODE_FAIL records: End is the time, NodeList the node", "[fault_log]") {
  const FaultTrace t = parse_fault_log(fixture("sacct-node-fail.txt"), sacct_format(), "nf.txt");
  REQUIRE(t.nodes == std::vector<std::string>{"gpu017", "gpu003"});
  REQUIRE(t.faults.size() == 2);  // the COMPLETED job is not a fault
  CHECK(t.faults[0].start == 0.0);
  CHECK(t.faults[1].start == (24.0 - 5.5) / 24.0);
  CHECK(t.faults[1].cause() == "NODE_FAIL");
  CHECK_FALSE(t.faults[1].end.has_value());
}

TEST_CASE("every malformed line is an error naming the file, line and column", "[fault_log]") {
  struct Case {
    const char* what;
    FaultLogFormat format;
    std::string text;
    std::string message;
  };
  FaultLogFormat epoch = jsonl_format();
  epoch.time = LogTimeKind::EPOCH;
  FaultLogFormat iso = jsonl_format();
  iso.time = LogTimeKind::ISO8601;
  const std::vector<Case> cases{
      {"an empty file", csv_format(), "\n\n",
       "log:1:1: expected a header row naming the columns, then a fault per line, found an empty "
       "file"},
      {"a column the header lacks", csv_format(), "timestamp,node,reason,resolved_at\n",
       "log:1:1: expected a header row with the node column \"host\", found the columns "
       "\"timestamp\", \"node\", \"reason\", \"resolved_at\""},
      {"a line of too few fields", csv_format(),
       "timestamp,host,reason,resolved_at\n2024-03-01T00:00:00,a,GPU\n",
       "log:2:1: expected 4 fields separated by ',', as the header row has, found 3 fields"},
      {"a time that is not one", csv_format(),
       "timestamp,host,reason,resolved_at\n2024-03-01T00:00:00,a,GPU,\nyesterday,b,GPU,\n",
       "log:3:1: expected a time as an ISO 8601 date and time, such as \"2024-03-01T12:34:56\", "
       "found \"yesterday\""},
      {"an end before its start", csv_format(),
       "timestamp,host,reason,resolved_at\n2024-03-02,a,GPU,2024-03-01\n",
       "log:2:18: expected an end at or after the fault's start (\"2024-03-02\"), found "
       "\"2024-03-01\""},
      {"an empty node", csv_format(), "timestamp,host,reason,resolved_at\n2024-03-02,,GPU,\n",
       "log:2:12: expected a node name, found an empty field"},
      {"an empty cause", csv_format(), "timestamp,host,reason,resolved_at\n2024-03-02,a,,\n",
       "log:2:14: expected a cause, found an empty field"},
      {"a quote left open", csv_format(),
       "timestamp,host,reason,resolved_at\n2024-03-02,a,\"GPU,\n",
       "log:2:14: expected a quoted field closed on its line (a '\"' ends it; '\"\"' is a quote "
       "inside), found no closing quote"},
      {"a line that is not JSON", jsonl_format(), "{\"t\": 1, \"node\": \"a\"\n", "log:1:"},
      {"a JSON line that is not an object", jsonl_format(), "[1, 2]\n",
       "log:1:1: expected a JSON object on each line, found [1,2]"},
      {"a JSON line without its node", jsonl_format(), "{\"t\": 1, \"cause\": \"GPU\"}\n",
       "log:1:1: expected a node name in key \"node\", found nothing"},
      {"a negative relative time", jsonl_format(),
       "{\"t\": -5, \"node\": \"a\", \"cause\": \"GPU\"}\n",
       "log:1:2: expected a time as a number >= 0 (in the log's time_unit), found \"-5\""},
      {"a number where an ISO time is due", iso, "{\"node\": \"a\", \"t\": 12, \"cause\": \"x\"}\n",
       "log:1:15: expected a time as an ISO 8601 date and time, such as \"2024-03-01T12:34:56\", "
       "found 12"},
      {"an epoch time as a word", epoch, "{\"t\": \"noon\", \"node\": \"a\", \"cause\": \"GPU\"}\n",
       "log:1:2: expected a time as seconds since 1970-01-01T00:00:00Z, such as 1709296496, found "
       "\"noon\""},
      {"a JSON end before its start", jsonl_format(),
       "{\"t\": 10, \"node\": \"a\", \"cause\": \"GPU\", \"repaired\": 5}\n",
       "log:1:40: expected an end at or after the fault's start (10), found 5"},
      {"sacct: a job of several nodes", sacct_format(),
       "JobID|State|NodeList|End\n7|NODE_FAIL|gpu[01-04]|2024-03-01T00:00:00\n",
       "log:2:13: expected a NODE_FAIL job of one node (sacct names every node of a job, not the "
       "one that failed;"},
      {"sacct: no NODE_FAIL job", sacct_format(),
       "JobID|State|NodeList|End\n7|COMPLETED|gpu01|2024-03-01T00:00:00\n",
       "log:1:1: expected at least one NODE_FAIL job (State NODE_FAIL), found none"},
      {"sacct: output without its header (sacct -n)", sacct_format(),
       "7|NODE_FAIL|gpu01|2024-03-01T00:00:00\n",
       "log:1:1: expected a header row with the time column \"End\", found the columns \"7\", "
       "\"NODE_FAIL\", \"gpu01\", \"2024-03-01T00:00:00\""},
      {"sacct: an End still Unknown", sacct_format(),
       "JobID|State|NodeList|End\n7|NODE_FAIL|gpu01|Unknown\n",
       "log:2:19: expected the End of a NODE_FAIL job as an ISO 8601 date and time, such as "
       "\"2024-03-01T12:34:56\", found \"Unknown\""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto e = error_of([&] { parse_fault_log(c.text, c.format, "log"); });
    CHECK_THAT(std::string(e.what()), Catch::StartsWith(c.message));
    CHECK(e.file() == "log");
    CHECK(e.line() > 0);
  }
}
