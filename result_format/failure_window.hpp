// What a failure of a run is, and the window of time it covers: one definition for the tables
// (analysis/table.cpp), runs.csv (sweep/aggregate.cpp) and, through its Python twin
// analysis/failsim_results.py, the figures (analysis/plot.py). docs/tables.md defines it:
// a `failure` event (its host is off, or its process crashed) or a `link_failure` event (its
// host's link is off; the host is the link's name without "-link"), covering
// [time, time + details.down_for) clipped to the run's end ("forever": to the end).
// `failure_skipped` is not a failure: nothing was hit.
#pragma once

#include <string>
#include <string_view>

#include "result_format/event_type.hpp"

namespace failsim::result_format {

/// Whether an event of `type` is a failure: `failure` or `link_failure`.
bool is_failure(EventType type);

/// One failure as a window [begin, end) on a host.
struct FailureWindow {
  double begin = 0.0;  ///< s: the event's time (at most the run's end)
  double end = 0.0;    ///< s: begin + down_for, at most the run's end
  std::string host;    ///< the failed host (a link's host for a link failure)
  bool link = false;   ///< a `link_failure`: the host stayed up, its link went down
};

/// The window of a failure event (is_failure(type)) at `time` with subject `subject` and
/// details.down_for `down_for` (s; +infinity for "forever") in a run that ended at `end_time`.
FailureWindow failure_window(EventType type, double time, std::string_view subject, double down_for,
                             double end_time);

}  // namespace failsim::result_format
