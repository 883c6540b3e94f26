// The InfiniteHBD fault-log reader (input/fault_trace.hpp): pairing of starts and ends, the
// shipped trace, and one error per way a trace can be malformed. Engine-free.
#include <catch2/catch.hpp>

#include "input/fault_trace.hpp"
#include "tests/input_error_of.hpp"

using failsim::input::FaultTrace;
using failsim::input::parse_fault_trace;
using failsim::testing::error_of;

namespace {

nlohmann::json start(const char* node, double day, const char* kind = "GPU") {
  return {{"node_id", node},
          {"event_time", day},
          {"event_type", "fault_start"},
          {"fault_type", {{"Level", "Hardware Failure"}, {"Class", kind}, {"Desc", "Lost"}}}};
}
nlohmann::json end(const char* node, double day) {
  return {{"node_id", node}, {"event_time", day}, {"event_type", "fault_end"}};
}

}  // namespace

TEST_CASE("a fault_end closes the earliest open fault of its node", "[fault_trace]") {
  const nlohmann::json doc = nlohmann::json::array(
      {start("a", 1.0), start("b", 1.5, "NIC"), start("a", 2.0), end("a", 3.0), end("a", 5.0)});
  const FaultTrace t = parse_fault_trace(doc, "t.json");
  REQUIRE(t.nodes == std::vector<std::string>{"a", "b"});
  REQUIRE(t.faults.size() == 3);
  CHECK(t.faults[0].node == 0);
  CHECK(t.faults[0].end == 3.0);  // the earliest open one
  CHECK(t.faults[2].end == 5.0);
  CHECK_FALSE(t.faults[1].end.has_value());  // never repaired in the trace
  CHECK(t.faults[1].cause() == "Hardware Failure / NIC / Lost");
  CHECK(t.faults[1].start_event == 1);
  CHECK(t.first_event == 1.0);
  CHECK(t.last_event == 5.0);
}

TEST_CASE("the shipped InfiniteHBD trace reads as its SOURCE.md counts it", "[fault_trace]") {
  const FaultTrace t = failsim::input::read_fault_trace(
      FAILSIM_SOURCE_DIR "/data/traces/infinitehbd/fault_trace.json", "fault_trace.json");
  CHECK(t.faults.size() == 584);
  CHECK(t.nodes.size() == 231);
  std::size_t hardware = 0;
  for (const auto& f : t.faults) {
    CHECK(f.end.has_value());
    CHECK(*f.end >= f.start);
    hardware += f.level == "Hardware Failure" ? 1 : 0;
  }
  CHECK(hardware == 298);
  // Days count from the trace's origin, day 0, before the first fault (day 3.8955).
  CHECK(t.last_event == Approx(348.98).margin(0.01));
}

TEST_CASE("a malformed trace is an error naming the event and the field", "[fault_trace]") {
  struct Case {
    const char* what;
    nlohmann::json doc;
    const char* path;
    const char* message;
  };
  nlohmann::json bad_type = start("a", 1.0);
  bad_type["event_type"] = "fault_begin";
  nlohmann::json no_node = start("a", 1.0);
  no_node.erase("node_id");
  nlohmann::json no_desc = start("a", 1.0);
  no_desc["fault_type"].erase("Desc");
  nlohmann::json text_time = start("a", 1.0);
  text_time["event_time"] = "1.0";
  const std::vector<Case> cases{
      {"not an array", nlohmann::json::object(), "",
       "t.json: expected a fault trace: a non-empty JSON array of events"},
      {"no events", nlohmann::json::array(), "", "found []"},
      {"a fault_end with no open start", nlohmann::json::array({start("a", 1.0), end("b", 2.0)}),
       "/1/event_type",
       "t.json: /1/event_type: expected a fault_end of node b after one of its fault_start "
       "events (it has no open fault), found \"fault_end\""},
      {"times not sorted", nlohmann::json::array({start("a", 2.0), start("b", 1.0)}),
       "/1/event_time",
       "t.json: /1/event_time: expected a time at or after the previous event's 2 days (events "
       "sorted by time), found 1"},
      {"unknown event_type", nlohmann::json::array({bad_type}), "/0/event_type",
       "expected one of \"fault_start\", \"fault_end\", found \"fault_begin\""},
      {"missing node_id", nlohmann::json::array({no_node}), "/0/node_id", "(required)"},
      {"missing cause", nlohmann::json::array({no_desc}), "/0/fault_type/Desc", "(required)"},
      {"time as text", nlohmann::json::array({text_time}), "/0/event_time", "found \"1.0\""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto e = error_of([&] { parse_fault_trace(c.doc, "t.json"); });
    CHECK(e.json_path() == c.path);
    CHECK_THAT(e.what(), Catch::Contains(c.message));
  }
}
