// Failure logs as clusters keep them, read into the same FaultTrace as the InfiniteHBD trace
// (fault_trace.hpp), so that the mapping onto a scenario's nodes and `failsim trace fit` work on
// any of them: a CSV file with a header row, JSON lines (one object per line), or Slurm's
// `sacct --parsable2` output of NODE_FAIL jobs. A record is one fault: its start, its node, its
// cause and, when the log has it, its end. Every malformed line is an InputError naming the file,
// the line and column, what was expected and what was found (docs/cluster.md, "Failure logs").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "input/fault_trace.hpp"
#include "input/object_reader.hpp"

namespace failsim::input {

enum class FaultLogKind { CSV, JSON_LINES, SACCT };

/// How the log writes its times.
enum class LogTimeKind {
  ISO8601,   ///< "2024-03-01T12:34:56", "2024-03-01 12:34:56.5Z", "2024-03-01T12:34+02:00"
  EPOCH,     ///< seconds since 1970-01-01T00:00:00Z
  RELATIVE,  ///< a number in a unit (seconds_per_unit) since the log's origin
};

struct FaultLogFormat {
  FaultLogKind kind = FaultLogKind::CSV;
  /// Which column (CSV header) or key (JSON lines) holds each field; sacct's are fixed (End,
  /// NodeList, State). No cause column: every fault's cause is "unspecified"; no end column: no
  /// fault ends in the log.
  std::string time_column;
  std::string node_column;
  std::optional<std::string> cause_column;
  std::optional<std::string> end_column;
  LogTimeKind time = LogTimeKind::ISO8601;
  std::string time_unit = "iso8601";  ///< as written: "iso8601", "epoch" or a unit ("min")
  double seconds_per_unit = 1.0;      ///< RELATIVE only
  /// The instant that is day 0, in seconds (since the epoch for timestamps). Unset: the earliest
  /// fault's start for timestamps, 0 for relative times.
  std::optional<double> origin;
  std::optional<std::string> origin_text;  ///< ISO8601: the origin as written

  bool operator==(const FaultLogFormat&) const = default;
};

/// The spellings of `format` for a log ("csv", "jsonl", "sacct"; "infinitehbd" is the trace's).
const Choices<FaultLogKind>& fault_log_kinds();

/// A log's format from the object `r` that holds "format" ("csv", "jsonl" or "sacct", given as
/// `kind`), "columns", "time_unit" and "origin" (a scenario's failures.trace, or `failsim trace
/// fit --log`): each checked, at its place in `r`.
FaultLogFormat read_fault_log_format(const ObjectReader& r, FaultLogKind kind);

/// The same keys as read_fault_log_format() reads them back.
nlohmann::json fault_log_format_to_json(const FaultLogFormat& f);

/// Reads the log `text` (errors name it `label`). Faults are ordered by start (the file's order
/// among equal starts), nodes by first appearance in that order, times in days since the
/// origin.
FaultTrace parse_fault_log(const std::string& text, const FaultLogFormat& format,
                           const std::string& label);

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date and time ("2024-03-01T12:34:56",
/// a space for the 'T', optional seconds and fraction, 'Z' or an offset "+02:00"; none: UTC);
/// none for any other text.
std::optional<double> parse_iso8601(std::string_view text);

}  // namespace failsim::input
