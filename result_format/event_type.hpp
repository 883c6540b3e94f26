// The types of the events a run records (result.json's `events`, events.csv's `type` column;
// docs/failures.md#events describes each). The simulation records them by enum value, the
// analysis reads them back into one: the spellings are in one table, event_type.cpp, and
// tests/test_results.cpp checks that docs/result-format.md and docs/failures.md list exactly
// these.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace failsim::result_format {

/// What happened, in the order of docs/failures.md's table.
enum class EventType {
  START,
  STOP,
  FAILURE,
  FAILURE_SKIPPED,
  FAILURE_NOT_INJECTED,
  LINK_FAILURE,
  LINK_UP,
  HOST_UP,
  HOST_LOST,
  DETECTED,
  RESTART,
  NO_REPLACEMENT,
  NO_REPLICA,
  CHECKPOINT_WRITTEN,
  CHECKPOINT_UNREACHABLE,
  CHECKPOINT_SNAPSHOT,
  CHECKPOINT_SUPERSEDED,
  CHECKPOINT_BLOCKED,
  CHECKPOINT_LOADED,
  REPLICATED,
  REPLICATION_INCOMPLETE,
  PROMOTED,
  REPLICA_JOINED,
  PENDING_APPLIED,
  TRAINING_RESUMED,
  RESIZE,
  ROLLED_BACK,
  RESIZED,
  BAD_NODES,
};

/// An event type and how result files spell it.
struct EventTypeSpelling {
  EventType type;
  std::string_view spelling;
};

/// Every event type with its spelling, in enum order.
std::span<const EventTypeSpelling> event_types();

/// How result files spell `type`, e.g. "link_failure".
std::string_view spelling(EventType type);

/// The event type spelled `text`; none for a spelling this build does not know (a result file
/// of a newer writer).
std::optional<EventType> parse_event_type(std::string_view text);

}  // namespace failsim::result_format
