// The causes a collective run's wall time is split into (result.json's summary.collective.time,
// docs/cluster.md#effective-training-time). The simulation's time ledger charges them, the
// tables and the figure of where the time went read them back: their spellings and labels are
// in one table, time_cause.cpp (its Python twin: analysis/failsim_results.py's TIME_CAUSES,
// checked by tests/test_results.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace failsim::result_format {

/// Where a second of a collective run went, in the order result files and figures list them.
enum class TimeCause {
  PRODUCTIVE,        ///< kept steps at their nominal time (no straggler, no contention)
  STRAGGLERS,        ///< kept steps' excess while a straggler was slowing them
  INTERFERENCE,      ///< kept steps' excess from contention (a checkpoint written meanwhile)
  CHECKPOINT_STALL,  ///< training waiting for a checkpoint (its write, or its copy to host)
  LOST_WORK,         ///< steps rolled back by a restart, and the step a failure interrupted
  DETECTION,         ///< from a failure until it is noticed
  REPAIR_WAIT,       ///< waiting for failed nodes to come back
  RESTART,           ///< scheduler, process start, communicator initialisation
  CHECKPOINT_LOAD,   ///< reading the checkpoint back (from the file system or a peer)
  QUORUM,            ///< the per-step quorum of a fault-tolerant job (its lighthouse round)
  UNFINISHED,        ///< the step the stop interrupted
};
constexpr std::size_t TIME_CAUSES = 11;

/// A cause, its key in summary.collective.time and its label for people (table headers,
/// figure legends).
struct TimeCauseSpelling {
  TimeCause cause;
  std::string_view spelling;
  std::string_view label;
};

/// Every cause, in enum order.
std::span<const TimeCauseSpelling> time_causes();

/// Its key in summary.collective.time, e.g. "checkpoint_stall".
std::string_view spelling(TimeCause cause);

/// The cause spelled `text`; none for a spelling this build does not know.
std::optional<TimeCause> parse_time_cause(std::string_view text);

}  // namespace failsim::result_format
