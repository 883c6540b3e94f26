// The one table of event-type spellings. A new event type is an enum value, a row here, and a
// row in docs/failures.md's table (tests/test_results.cpp fails until all three agree).
#include "result_format/event_type.hpp"

#include <array>
#include <stdexcept>

namespace failsim::result_format {
namespace {

// The enum's names unqualified inside the table only: a unity build puts this file's anonymous
// namespace beside others that spell the same names (RESTART is a cause and an event).
constexpr std::array EVENT_TYPES = [] {
  using enum EventType;
  return std::array{
      EventTypeSpelling{START, "start"},
      EventTypeSpelling{STOP, "stop"},
      EventTypeSpelling{FAILURE, "failure"},
      EventTypeSpelling{FAILURE_SKIPPED, "failure_skipped"},
      EventTypeSpelling{FAILURE_NOT_INJECTED, "failure_not_injected"},
      EventTypeSpelling{LINK_FAILURE, "link_failure"},
      EventTypeSpelling{LINK_UP, "link_up"},
      EventTypeSpelling{HOST_UP, "host_up"},
      EventTypeSpelling{HOST_LOST, "host_lost"},
      EventTypeSpelling{DETECTED, "detected"},
      EventTypeSpelling{RESTART, "restart"},
      EventTypeSpelling{NO_REPLACEMENT, "no_replacement"},
      EventTypeSpelling{NO_REPLICA, "no_replica"},
      EventTypeSpelling{CHECKPOINT_WRITTEN, "checkpoint_written"},
      EventTypeSpelling{CHECKPOINT_UNREACHABLE, "checkpoint_unreachable"},
      EventTypeSpelling{CHECKPOINT_SNAPSHOT, "checkpoint_snapshot"},
      EventTypeSpelling{CHECKPOINT_SUPERSEDED, "checkpoint_superseded"},
      EventTypeSpelling{CHECKPOINT_BLOCKED, "checkpoint_blocked"},
      EventTypeSpelling{CHECKPOINT_LOADED, "checkpoint_loaded"},
      EventTypeSpelling{REPLICATED, "replicated"},
      EventTypeSpelling{REPLICATION_INCOMPLETE, "replication_incomplete"},
      EventTypeSpelling{PROMOTED, "promoted"},
      EventTypeSpelling{REPLICA_JOINED, "replica_joined"},
      EventTypeSpelling{PENDING_APPLIED, "pending_applied"},
      EventTypeSpelling{TRAINING_RESUMED, "training_resumed"},
      EventTypeSpelling{RESIZE, "resize"},
      EventTypeSpelling{ROLLED_BACK, "rolled_back"},
      EventTypeSpelling{RESIZED, "resized"},
      EventTypeSpelling{BAD_NODES, "bad_nodes"},
  };
}();

// spelling() indexes the table by enum value: a row out of order is a compile error.
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < EVENT_TYPES.size(); ++i) {
    if (static_cast<std::size_t>(EVENT_TYPES[i].type) != i) return false;
  }
  return static_cast<std::size_t>(EventType::BAD_NODES) + 1 == EVENT_TYPES.size();
}
static_assert(in_enum_order(), "EVENT_TYPES must list every EventType once, in enum order");

}  // namespace

std::span<const EventTypeSpelling> event_types() { return EVENT_TYPES; }

std::string_view spelling(EventType type) {
  const auto i = static_cast<std::size_t>(type);
  if (i >= EVENT_TYPES.size()) throw std::logic_error("spelling: not an EventType");
  return EVENT_TYPES[i].spelling;
}

std::optional<EventType> parse_event_type(std::string_view text) {
  for (const EventTypeSpelling& e : EVENT_TYPES) {
    if (e.spelling == text) return e.type;
  }
  return std::nullopt;
}

}  // namespace failsim::result_format
