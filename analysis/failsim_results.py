"""The vocabulary of failsim result files for the Python tools (plot.py, daly.py).

The Python twin of the C++ library failsim_result_format (result_format/) and of
analysis/stats.cpp's Student t quantiles, for the tools that cannot link C++: what a failure
window is (result_format/failure_window.hpp, docs/tables.md#failures-and-failure-windows) and
t_{0.975}(df). tests/test_results.cpp runs python3 on this module and checks that both sides
agree.

Standard library only, like the tools that import it.
"""

import collections
import functools
import json
import math

# The top-level keys of result.json that are not a function of the scenario and its seed (the
# build and command line, real time): comparisons of results leave them out
# (result_format/reproducible.hpp, docs/result-format.md#determinism).
NOT_REPRODUCED_KEYS = ("provenance", "wall_clock")


def reproducible_part(result):
    """A parsed result.json without NOT_REPRODUCED_KEYS: equal for two runs of one scenario
    and seed."""
    return {k: v for k, v in result.items() if k not in NOT_REPRODUCED_KEYS}


def _natural_compare(a, b):
    """-1, 0 or 1 as name a is before, equivalent to or after b in natural order alone: runs of
    decimal digits as numbers (then the shorter run of leading zeros first), other characters by
    their UTF-8 bytes. analysis/natural_order.cpp, step for step."""
    a, b = a.encode(), b.encode()
    i = j = 0
    digit = lambda c: 0x30 <= c <= 0x39  # noqa: E731
    while i < len(a) and j < len(b):
        if digit(a[i]) and digit(b[j]):
            i0, j0 = i, j
            while i < len(a) and a[i] == 0x30:
                i += 1
            while j < len(b) and b[j] == 0x30:
                j += 1
            ni, nj = i, j
            while i < len(a) and digit(a[i]):
                i += 1
            while j < len(b) and digit(b[j]):
                j += 1
            if i - ni != j - nj:
                return -1 if i - ni < j - nj else 1
            if a[ni:i] != b[nj:j]:
                return -1 if a[ni:i] < b[nj:j] else 1
            if ni - i0 != nj - j0:
                return -1 if ni - i0 < nj - j0 else 1
            continue
        if a[i] != b[j]:
            return -1 if a[i] < b[j] else 1
        i += 1
        j += 1
    return (i < len(a)) - (j < len(b))


def _natural_order(a, b):
    order = _natural_compare(a, b)
    return order if order else (a.encode() > b.encode()) - (a.encode() < b.encode())


# The sort key of natural order (analysis/natural_order.hpp): "every-25" before "every-100";
# equal names only are equivalent. sorted(names, key=natural_key).
natural_key = functools.cmp_to_key(_natural_order)


# Where a collective run's wall time went: (key of summary.collective.time, label), in the order
# of result_format/time_cause.cpp (docs/cluster.md#effective-training-time).
TIME_CAUSES = (
    ("productive", "productive"),
    ("stragglers", "stragglers"),
    ("interference", "interference"),
    ("checkpoint_stall", "checkpoint stall"),
    ("lost_work", "lost work"),
    ("detection", "detection"),
    ("repair_wait", "repair wait"),
    ("restart", "restart"),
    ("checkpoint_load", "checkpoint load"),
    ("quorum", "quorum"),
    ("unfinished", "unfinished step"),
)


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


# t_{0.975}(df) for df = 1..30, 40, 60 and 120, to 12 significant digits: the table of
# analysis/stats.cpp (mpmath, inverting the regularised incomplete beta function).
T975 = (12.7062047362, 4.30265272975, 3.18244630528, 2.7764451052, 2.57058183564,
        2.44691185114, 2.36462425159, 2.3060041352, 2.2621571628, 2.22813885199,
        2.20098516009, 2.17881282967, 2.16036865646, 2.14478668792, 2.13144954556,
        2.11990529922, 2.10981557783, 2.10092204024, 2.09302405441, 2.08596344727,
        2.07961384473, 2.0738730679, 2.06865761042, 2.06389856163, 2.05953855275,
        2.05552943864, 2.05183051648, 2.0484071418, 2.04522964213, 2.0422724563)
T975_BEYOND = {40: 2.02107539031, 60: 2.00029782201, 120: 1.97993040508}
Z975 = 1.959963984540054  # the standard normal 0.975 quantile (analysis/stats.hpp Z_975)


def t975(df):
    """t_{0.975}(df), the factor of a two-sided 95% Student t interval: the table, and for other
    df > 30 the Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5 (error below 1e-7),
    computed as analysis/stats.cpp computes it."""
    if df < 1:
        raise ValueError(f"t975: df must be >= 1, got {df}")
    if df <= len(T975):
        return T975[df - 1]
    if df in T975_BEYOND:
        return T975_BEYOND[df]
    z, v = Z975, float(df)
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)
