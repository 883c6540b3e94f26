// The one table of time causes. A new cause is an enum value, a row here, a row in
// docs/cluster.md's and docs/result-format.md's tables and in analysis/failsim_results.py
// (tests/test_results.cpp and test_cli.cpp fail until they agree).
#include "result_format/time_cause.hpp"

#include <algorithm>
#include <array>

namespace failsim::result_format {
namespace {

// The enum's names unqualified inside the table only: a unity build puts this file's anonymous
// namespace beside others that spell the same names (RESTART is a cause and an event).
constexpr std::array TIME_CAUSE_TABLE = [] {
  using enum TimeCause;
  return std::array{
      TimeCauseSpelling{PRODUCTIVE, "productive", "productive"},
      TimeCauseSpelling{STRAGGLERS, "stragglers", "stragglers"},
      TimeCauseSpelling{INTERFERENCE, "interference", "interference"},
      TimeCauseSpelling{CHECKPOINT_STALL, "checkpoint_stall", "checkpoint stall"},
      TimeCauseSpelling{LOST_WORK, "lost_work", "lost work"},
      TimeCauseSpelling{DETECTION, "detection", "detection"},
      TimeCauseSpelling{REPAIR_WAIT, "repair_wait", "repair wait"},
      TimeCauseSpelling{RESTART, "restart", "restart"},
      TimeCauseSpelling{CHECKPOINT_LOAD, "checkpoint_load", "checkpoint load"},
      TimeCauseSpelling{QUORUM, "quorum", "quorum"},
      TimeCauseSpelling{UNFINISHED, "unfinished", "unfinished step"},
  };
}();
static_assert(TIME_CAUSE_TABLE.size() == TIME_CAUSES);

}  // namespace

std::span<const TimeCauseSpelling> time_causes() { return TIME_CAUSE_TABLE; }

std::string_view spelling(TimeCause cause) {
  return TIME_CAUSE_TABLE[static_cast<std::size_t>(cause)].spelling;
}

std::optional<TimeCause> parse_time_cause(std::string_view text) {
  const auto it = std::find_if(TIME_CAUSE_TABLE.begin(), TIME_CAUSE_TABLE.end(),
                               [&](const TimeCauseSpelling& c) { return c.spelling == text; });
  if (it == TIME_CAUSE_TABLE.end()) return std::nullopt;
  return it->cause;
}

}  // namespace failsim::result_format
