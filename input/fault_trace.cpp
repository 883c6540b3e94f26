// The InfiniteHBD fault-log reader (fault_trace.hpp).
#include "input/fault_trace.hpp"

#include <deque>
#include <map>

#include <fmt/format.h>

#include "input/json_input.hpp"
#include "input/object_reader.hpp"

namespace failsim::input {
namespace {

enum class EventType { FAULT_START, FAULT_END };
const Choices<EventType> EVENT_TYPES{{"fault_start", EventType::FAULT_START},
                                     {"fault_end", EventType::FAULT_END}};

}  // namespace

std::string TraceFault::cause() const {
  if (level.empty() && desc.empty()) return kind;  // a log's cause (fault_log.hpp)
  return fmt::format("{} / {} / {}", level, kind, desc);
}

FaultTrace parse_fault_trace(const nlohmann::json& doc, const std::string& label) {
  const JsonLocation root{label, ""};
  if (!doc.is_array() || doc.empty()) {
    root.fail("a fault trace: a non-empty JSON array of events (data/traces/infinitehbd/SOURCE.md)",
              describe_found(doc));
  }
  FaultTrace trace;
  std::map<std::string, std::size_t> index_of;
  // Per node, its open faults (indices into trace.faults) in the order they started.
  std::vector<std::deque<std::size_t>> open;
  double previous = 0.0;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const JsonLocation where = root.child(i);
    const ObjectReader r(doc[i], where, {"node_id", "event_time", "event_type", "fault_type"});
    const std::string id = r.string("node_id");
    const double time = r.number("event_time", Interval::non_negative());
    if (i > 0 && time < previous) {
      r.at("event_time")
          .fail(fmt::format("a time at or after the previous event's {} days (events sorted by "
                            "time)",
                            previous),
                describe_found(doc[i].at("event_time")));
    }
    previous = time;
    const EventType type = r.choice("event_type", EVENT_TYPES);
    const auto [it, added] = index_of.emplace(id, trace.nodes.size());
    if (added) {
      trace.nodes.push_back(id);
      open.emplace_back();
    }
    const std::size_t node = it->second;
    if (type == EventType::FAULT_START) {
      const ObjectReader f = r.object("fault_type", {"Level", "Class", "Desc"});
      TraceFault fault;
      fault.node = node;
      fault.start = time;
      fault.level = f.string("Level");
      fault.kind = f.string("Class");
      fault.desc = f.string("Desc");
      fault.start_event = i;
      open[node].push_back(trace.faults.size());
      trace.faults.push_back(std::move(fault));
    } else {
      // A fault_end may repeat its fault's type; it is checked but the start's is the cause.
      if (r.has("fault_type")) (void)r.object("fault_type", {"Level", "Class", "Desc"});
      if (open[node].empty()) {
        r.at("event_type")
            .fail(fmt::format("a fault_end of node {} after one of its fault_start events (it "
                              "has no open fault)",
                              id),
                  "\"fault_end\"");
      }
      trace.faults[open[node].front()].end = time;
      open[node].pop_front();
    }
  }
  trace.first_event = doc.front().at("event_time").get<double>();
  trace.last_event = previous;
  return trace;
}

FaultTrace read_fault_trace(const std::filesystem::path& path, const std::string& label) {
  return parse_fault_trace(parse_json_text(read_input_file(path, "a readable fault trace"), label),
                           label);
}

}  // namespace failsim::input
