"""The vocabulary of failsim result files for the Python tools (plot.py, daly.py).

The Python twin of the C++ library failsim_result_format (result_format/), for the tools that
cannot link C++: what a failure window is (result_format/failure_window.hpp,
docs/tables.md#failures-and-failure-windows). tests/test_results.cpp runs python3 on this module
and checks that both sides agree.

Standard library only, like the tools that import it.
"""

import collections
import json
import math

# Event types (result_format/event_type.cpp spells every one) that the Python tools read.
FAILURE = "failure"
LINK_FAILURE = "link_failure"
LINK_SUFFIX = "-link"  # a host's link is "<host>-link" (result_format/process_name.hpp)


def is_failure(event_type):
    """Whether an event of this type is a failure: `failure` (its host is off, or its process
    crashed) or `link_failure` (its host's link is off). `failure_skipped` is not one."""
    return event_type in (FAILURE, LINK_FAILURE)


def link_host(link):
    """The host of a link named "<host>-link"; any other name as it is."""
    if len(link) > len(LINK_SUFFIX) and link.endswith(LINK_SUFFIX):
        return link[:-len(LINK_SUFFIX)]
    return link


FailureWindow = collections.namedtuple("FailureWindow", "begin end host link")
FailureWindow.__doc__ = """One failure as [begin, end) on a host (s); `link`: a link failure
(the host stayed up)."""


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _get(event, path, check, kind, where):
    value = event
    for i, key in enumerate(path):
        if not isinstance(value, dict) or key not in value:
            raise ValueError(f"{where}: expected /{'/'.join(path[:i + 1])}, found none")
        value = value[key]
    if not check(value):
        raise ValueError(f"{where}: expected /{'/'.join(path)} to be a {kind}, "
                         f"found {json.dumps(value)}")
    return value


def failure_windows(events, end_time):
    """Every failure of a result's `events` list, in event order, as FailureWindow: [time,
    time + details.down_for) clipped to the run's end, "forever" running to it; a crash
    (down_for 0) has an empty window. Raises ValueError naming the event ("/events/<i>: ...")
    for a failure without a number `time`, a string `subject` or a `details.down_for` that is a
    number or "forever"."""
    windows = []
    for i, event in enumerate(events):
        if not isinstance(event, dict) or not is_failure(event.get("type")):
            continue
        where = f"/events/{i}"
        time = _get(event, ["time"], _number, "number", where)
        subject = _get(event, ["subject"], lambda v: isinstance(v, str), "string", where)
        down_for = _get(event, ["details", "down_for"], lambda v: True, "any", where)
        if down_for == "forever":
            down_for = math.inf
        elif not _number(down_for):
            raise ValueError(f"expected {where}/details/down_for to be a number or \"forever\", "
                             f"found {json.dumps(down_for)}")
        link = event["type"] == LINK_FAILURE
        windows.append(FailureWindow(min(time, end_time), min(time + down_for, end_time),
                                     link_host(subject) if link else subject, link))
    return windows
