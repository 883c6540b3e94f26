// A per-node fault log in the format of StepFun's InfiniteHBD trace (data/traces/infinitehbd/
// SOURCE.md): one JSON array of events sorted by time, each a node's fault_start or fault_end
// with its cause. Read into faults (start, end, cause, node), every malformed event an
// InputError naming the file, the event's JSON Pointer, the expectation and the found value.
// Engine-free: the collective scenario replays it (failures.trace) and `failsim trace fit`
// fits it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace failsim::input {

/// One fault of one node: from its fault_start to the fault_end paired with it.
struct TraceFault {
  std::size_t node = 0;  ///< index into FaultTrace::nodes
  double start = 0.0;    ///< days, as the trace writes them
  /// Days; nullopt: the trace has no fault_end for it (the node never came back in the trace).
  std::optional<double> end;
  std::string level;  ///< fault_type.Level, e.g. "Hardware Failure"; "" in a log (fault_log.hpp)
  /// fault_type.Class, e.g. "GPU"; a log's cause as written (its Level and Desc empty)
  std::string kind;
  std::string desc;  ///< fault_type.Desc, e.g. "GPU DBE(Double Bit ECC) > Threshold"
  /// Index of its fault_start in the file's array; in a log, its line (1-based).
  std::size_t start_event = 0;

  /// "Level / Class / Desc", as results name the cause; a log's cause as written.
  std::string cause() const;
};

struct FaultTrace {
  /// The nodes' ids in order of first appearance (a node appears with its first event).
  std::vector<std::string> nodes;
  /// Every fault, in order of fault_start (the file's order).
  std::vector<TraceFault> faults;
  /// Days since the trace's origin (day 0, which may precede the first event): the time of
  /// the first and of the last event of the file.
  double first_event = 0.0;
  double last_event = 0.0;
};

/// Reads a parsed trace. A fault_end is paired with the earliest open fault_start of its node
/// (a node may hold several open faults at once); a fault_end with none open, events out of
/// time order, an unknown event_type, a missing or unknown field or a wrong type is an
/// InputError at `label` and the event's pointer (e.g. "/17/event_time").
FaultTrace parse_fault_trace(const nlohmann::json& doc, const std::string& label);

/// Reads and parses the trace file at `path` (errors name it as `label`).
FaultTrace read_fault_trace(const std::filesystem::path& path, const std::string& label);

}  // namespace failsim::input
