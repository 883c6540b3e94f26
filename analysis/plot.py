#!/usr/bin/env python3
"""Figures of failsim result directories (`failsim plot`, docs/plots.md).

Reads the result directories written by `failsim run` (result.json, timeseries.csv), groups the
runs into configurations by `scenario.name` and seeds by `scenario.seed`, and draws:

  accuracy     test accuracy against simulated time, mean over seeds with a 95% confidence band
  gradients    cumulative gradients computed (solid) and applied (dashed), mean over seeds
  utilisation  worker time: busy / waiting for recovery / down / idle, mean over seeds
  timeline     of each run that recorded intervals.csv: per host, busy / checkpointing /
               waiting for recovery / down / up and idle over simulated time (a Gantt chart);
               of a collective run, from its events: the job's training, detection, repair
               wait, restart and load, its checkpoints and its failed node groups
  time         of collective runs: where the wall time went, by cause, ETTR on each bar
  loss         of language models: validation loss against tokens and against simulated time,
               mean over seeds, failures marked on both
  sweep        of a sweep directory (`failsim sweep`): a summary metric of runs.csv against one
               varied value (a log axis for a span of intervals, the Young/Daly optimum on a
               checkpoint interval in steps), one line per base scenario, mean over seeds with
               a 95% band

Every input is read and checked before anything is drawn, and every figure is written to a
temporary file in the output directory and renamed only once all of them are complete, so a bad
input leaves no figure behind. Exit status: 0 success, 1 matplotlib missing, 2 bad input (with one
message naming the file and what was expected), 3 a figure could not be written.

Standalone on purpose: python3's standard library and Debian's python3-matplotlib (which pulls
python3-numpy) only, so it runs without building failsim. What a failure window is and the
Student t quantiles come from failsim_results.py beside it, the Python twin of the C++ code the
tables use.
"""

import argparse
import csv
import json
import math
import os
import re
import sys

import failsim_results

PROG = os.environ.get("FAILSIM_PLOT_PROG", "plot.py")
# analysis/figure_names.hpp holds the same list for the C++ side (a sweep file's figures).
FIGURES = ("accuracy", "gradients", "utilisation", "timeline", "time", "loss", "sweep")
RUN_FIGURES = ("accuracy", "gradients", "utilisation")  # drawn from result directories
COLLECTIVE_FIGURES = ("time",)  # the default when every run is a collective one
FORMATS = ("png", "svg")
BAD_INPUT, OUTPUT_FAILED, NO_MATPLOTLIB = 2, 3, 1

class BadInput(Exception):
    """An input that cannot be plotted; the message names the file and what was expected."""


def mean_and_half_width(values):
    """Mean of the values and the half-width of its 95% confidence interval,
    t_{0.975}(n-1) * s / sqrt(n) with s the sample standard deviation; 0 when n = 1."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    s = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, failsim_results.t975(n - 1) * s / math.sqrt(n)


# ---------------------------------------------------------------------------------------------
# Reading result directories

def find_result_dirs(paths):
    """Each path is a result directory (it holds result.json) or is searched recursively for
    them. Returns real paths, each once, in a stable order."""
    found = []
    for path in paths:
        if not os.path.isdir(path):
            raise BadInput(f"{path}: expected a result directory or a directory holding them, "
                           "found " + ("a file" if os.path.exists(path) else "nothing"))
        if os.path.isfile(os.path.join(path, "result.json")):
            found.append(path)
            continue
        for root, dirs, files in os.walk(path):
            dirs.sort()
            if "result.json" in files:
                found.append(root)
                dirs.clear()  # a result directory holds no other
    unique, seen = [], set()
    for d in found:
        real = os.path.realpath(d)
        if real not in seen:
            seen.add(real)
            unique.append(d)
    if not unique:
        raise BadInput(f"{', '.join(paths)}: expected result directories of `failsim run` "
                       "(holding result.json), found none")
    return unique


def field(obj, path, kind, file):
    """obj[path[0]][path[1]]... checked to be of the given kind ("number", "integer", "string",
    "list", "object" or "any"); `file` prefixes the message."""
    value = obj
    for i, key in enumerate(path):
        if not isinstance(value, dict) or key not in value:
            raise BadInput(f"{file}: expected /{'/'.join(path[:i + 1])}, found none")
        value = value[key]
    checks = {
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "list": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
        "any": lambda v: True,
    }
    if not checks[kind](value):
        raise BadInput(f"{file}: expected /{'/'.join(path)} to be a {kind}, "
                       f"found {json.dumps(value)}")
    return value


def load_tagged_json(file, expected_format):
    """The JSON object in `file`, whose /format must be `expected_format`."""
    try:
        with open(file) as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{file}: expected a readable file, found {e}") from None
    except json.JSONDecodeError as e:
        raise BadInput(f"{file}: expected JSON, found a syntax error at line {e.lineno}, "
                       f"column {e.colno}: {e.msg}") from None
    if not isinstance(data, dict) or data.get("format") != expected_format:
        found = data.get("format") if isinstance(data, dict) else data
        raise BadInput(f"{file}: expected /format \"{expected_format}\", "
                       f"found {json.dumps(found)}")
    return data


def read_timeseries(file, columns, why=None):
    """The named columns of timeseries.csv as lists of floats, read by header name; `why`
    (column -> text) says in an error why a column is needed."""
    why = why or {}
    try:
        with open(file, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise BadInput(f"{file}: expected a header line, found an empty file")
            missing = [c for c in columns if c not in header]
            if missing:
                raise BadInput(f"{file}: expected column{'s' if len(missing) > 1 else ''} "
                               f"{', '.join(missing)} in the header"
                               f"{''.join(why.get(c, '') for c in missing[:1])}, found "
                               f"{','.join(header)}")
            index = [header.index(c) for c in columns]
            data = {c: [] for c in columns}
            for line, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    raise BadInput(f"{file}:{line}: expected {len(header)} fields, "
                                   f"found {len(row)}")
                for c, i in zip(columns, index):
                    try:
                        data[c].append(float(row[i]))
                    except ValueError:
                        raise BadInput(f"{file}:{line}: expected a number in column {c}"
                                       f"{why.get(c, '')}, found {row[i]!r}") from None
    except FileNotFoundError:
        raise BadInput(f"{file}: expected timeseries.csv (written by `failsim run` unless "
                       "output.timeseries is false), found no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{file}: expected a readable CSV file, found {e}") from None
    if not data[columns[0]]:
        raise BadInput(f"{file}: expected at least one evaluation row, found none")
    return data


# The states of intervals.csv (docs/result-format.md#intervalscsv), in drawing order, with
# their legend text and colour; the rest of a host's time is up and idle or waiting.
HOST_STATES = {"busy": ("busy (computing)", "#4c72b0"),
               "checkpointing": ("checkpointing", "#8172b3"),
               "recovery_wait": ("waiting for recovery", "#dd8452"),
               "down": ("down", "#c44e52")}


def read_csv_rows(file, expected):
    """Every row of a CSV file; a missing file is BadInput saying which file was `expected`."""
    try:
        with open(file, newline="") as f:
            return list(csv.reader(f))
    except FileNotFoundError:
        raise BadInput(f"{file}: expected {expected}, found no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{file}: expected a readable CSV file, found {e}") from None


def read_intervals(file):
    """intervals.csv as [(host, state, begin, end)], checked: a known state, begin <= end."""
    rows = read_csv_rows(file, "intervals.csv (written by `failsim run` when the scenario sets "
                         "output.intervals to true)")
    header = ["host", "state", "begin", "end"]
    if not rows or rows[0] != header:
        raise BadInput(f"{file}: expected the header {','.join(header)}, found "
                       + (",".join(rows[0]) if rows else "an empty file"))
    intervals = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != 4:
            raise BadInput(f"{file}:{line}: expected 4 fields, found {len(row)}")
        if row[1] not in HOST_STATES:
            raise BadInput(f"{file}:{line}: expected a state among {', '.join(HOST_STATES)}, "
                           f"found {row[1]!r}")
        try:
            begin, end = float(row[2]), float(row[3])
        except ValueError:
            raise BadInput(f"{file}:{line}: expected numbers in columns begin and end, found "
                           f"{row[2]!r}, {row[3]!r}") from None
        if not begin <= end:
            raise BadInput(f"{file}:{line}: expected begin <= end, found {row[2]} > {row[3]}")
        intervals.append((row[0], row[1], begin, end))
    return intervals


class Run:
    """One result directory: what the figures need of it."""

    def __init__(self, directory, figures):
        self.directory = directory
        file = os.path.join(directory, "result.json")
        result = load_tagged_json(file, "failsim-result")
        self.name = field(result, ["scenario", "name"], "string", file)
        self.seed = field(result, ["scenario", "seed"], "integer", file)
        self.end_time = field(result, ["summary", "end_time"], "number", file)
        events = field(result, ["events"], "list", file)
        try:
            self.windows = failsim_results.failure_windows(events, self.end_time)
        except ValueError as e:
            raise BadInput(f"{file}: {e}") from None
        # (type, time) of the recovery events marked on the accuracy figure.
        self.recovery = []
        for i, event in enumerate(events):
            kind = event.get("type") if isinstance(event, dict) else None
            if kind in RECOVERY_MARKERS:
                self.recovery.append(
                    (kind, field(event, ["time"], "number", f"{file}: /events/{i}")))
        if "utilisation" in figures:
            self.worker_time = self._worker_time(field(result, ["summary", "hosts"], "list", file),
                                                 file)
        self.collective = "collective" in field(result, ["summary"], "object", file)
        if "timeline" in figures and self.collective:
            # A collective run's timeline is made from its events (it has no hosts).
            self.job = job_timeline(events, self.end_time, file)
        elif "timeline" in figures:
            self.hosts = [(field(h, ["host"], "string", f"{file}: /summary/hosts/{i}"),
                           field(h, ["role"], "string", f"{file}: /summary/hosts/{i}"))
                          for i, h in enumerate(field(result, ["summary", "hosts"], "list", file))]
            self.intervals = read_intervals(os.path.join(directory, "intervals.csv"))
        if "time" in figures:
            # summary.collective.time: seconds by cause, which sum to end_time.
            if "collective" not in result.get("summary", {}):
                raise BadInput(f"{file}: expected /summary/collective (the time figure is of "
                               "collective runs, docs/cluster.md), found none")
            self.time = {key: field(result, ["summary", "collective", "time", key], "number",
                                    file)
                         for key, _ in failsim_results.TIME_CAUSES}
        if not any(f in figures for f in ("accuracy", "gradients", "loss")):
            return  # the other figures need no time series
        columns = ["time"]
        if "accuracy" in figures:
            columns.append("test_accuracy")
        if "gradients" in figures:
            columns += ["gradients_computed", "gradients_applied"]
        if "loss" in figures:
            columns += ["test_loss", "tokens"]
        self.series = read_timeseries(os.path.join(directory, "timeseries.csv"), columns,
                                      {"tokens": LOSS_FIGURE_NOTE})
        if "loss" in figures:
            # A diverged evaluation's loss ("nan", "inf") is no point of the curve.
            self.series["test_loss"] = [v if math.isfinite(v) else math.nan
                                        for v in self.series["test_loss"]]

    def _worker_time(self, hosts, file):
        """Seconds of worker time in each state, summed over the run's worker hosts, and the
        total (workers x end_time)."""
        keys = ("busy_seconds", "recovery_wait_seconds", "down_seconds", "idle_seconds")
        sums = dict.fromkeys(keys, 0.0)
        workers = 0
        for i, host in enumerate(hosts):
            where = f"{file}: /summary/hosts/{i}"
            if field(host, ["role"], "string", where) != "worker":
                continue
            workers += 1
            for k in keys:
                sums[k] += field(host, [k], "number", where)
        if workers == 0:
            raise BadInput(f"{file}: expected at least one host of role \"worker\" in "
                           "/summary/hosts, found none")
        total = workers * self.end_time
        return {k: (v / total if total > 0 else 0.0) for k, v in sums.items()}


def load_configurations(paths, figures, order):
    """{configuration name: [Run, one per seed]} in the order to plot."""
    configs = {}
    for directory in find_result_dirs(paths):
        run = Run(directory, figures)
        runs = configs.setdefault(run.name, [])
        for other in runs:
            if other.seed == run.seed:
                raise BadInput(f"{directory}: expected one run per seed of configuration "
                               f"{run.name!r}, found seed {run.seed} also in {other.directory}")
        runs.append(run)
    if order:
        unknown = [c for c in order if c not in configs]
        if unknown:
            raise BadInput(f"--configs: expected configuration names (scenario.name) among "
                           f"{', '.join(sorted(configs, key=failsim_results.natural_key))}, "
                           f"found {', '.join(unknown)}")
        names = order
    else:
        names = sorted(configs, key=failsim_results.natural_key)  # every-25 before every-100
    return {name: sorted(configs[name], key=lambda r: r.seed) for name in names}


# ---------------------------------------------------------------------------------------------
# Statistics over seeds

def mean_curve(runs, column):
    """(times, mean, half-width of the 95% band) of a column over seeds. Seeds evaluated at the
    same times are averaged point by point; otherwise each seed is interpolated linearly at the
    union of the times, and a seed counts only inside its own time range."""
    import numpy as np
    grids = [tuple(r.series["time"]) for r in runs]
    if all(g == grids[0] for g in grids):
        times = np.array(grids[0])
        values = np.array([r.series[column] for r in runs])
    else:
        times = np.array(sorted(set().union(*grids)))
        values = np.array([np.interp(times, r.series["time"], r.series[column],
                                     left=np.nan, right=np.nan) for r in runs])
    mean, half = np.empty(len(times)), np.empty(len(times))
    for j in range(len(times)):
        present = [v for v in values[:, j] if not np.isnan(v)]
        mean[j], half[j] = mean_and_half_width(present) if present else (np.nan, 0.0)
    return times, mean, half


def wrap_name(name, width=18):
    """A long configuration name broken at the hyphen nearest its middle, so that horizontal
    tick labels of neighbouring bars do not run into each other."""
    if len(name) <= width or "-" not in name:
        return name
    cut = min((i for i, c in enumerate(name) if c == "-"), key=lambda i: abs(i - len(name) / 2))
    return name[:cut + 1] + "\n" + name[cut + 1:]


def colours(configs):
    """One colour per configuration, none repeated: tab10, or tab20 beyond 10 configurations."""
    import matplotlib
    cmap = matplotlib.colormaps["tab10" if len(configs) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(configs)}


def seeds_label(name, runs):
    return f"{name} ({len(runs)} seed{'s' if len(runs) > 1 else ''})"


def legend_below(ax, handles=None, labels=None):
    """The legend under the axes, so it never covers a curve: up to 3 entries a row, fewer when
    the labels are long (a row of small text holds about 130 characters across the figure)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    from matplotlib.transforms import ScaledTranslation
    longest = max((len(label) for label in labels), default=1)
    ncol = max(1, min(3, len(labels), 130 // longest))
    # A fixed distance (in inches) under the axes, below the x label, whatever the axes' height
    # (a short lane of failures as well as a tall panel).
    below = ax.transAxes + ScaledTranslation(0, -0.5, ax.figure.dpi_scale_trans)
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below,
              ncol=ncol, frameon=False, fontsize="small")


def end_time(configs):
    return max(r.end_time for runs in configs.values() for r in runs)


def zoom_range(curves, end):
    """The y range of the accuracy's zoomed panel: the means after the first tenth of the run
    (the initial climb left out) from their 5th percentile to their highest (a brief collapse,
    e.g. a stateless restart's, stays in the full panel), widened to multiples of 0.05 with a
    margin; None when that is most of [0, 1] anyway."""
    import numpy as np
    late = [m[(t >= 0.1 * end) & ~np.isnan(m)] for t, m, _ in curves]
    late = np.concatenate(late) if late else np.array([])
    if late.size == 0:
        return None
    low = max(0.0, math.floor(np.percentile(late, 5) * 20) / 20 - 0.05)
    high = min(1.0, math.ceil(late.max() * 20) / 20 + 0.05)
    return (low, high) if high - low <= 0.6 else None


# Events of a run marked on its configuration's accuracy curve and failure lane: type -> (marker,
# legend text). The three steps of a recovery, in the order they happen.
RECOVERY_MARKERS = {"detected": ("v", "failure detected"),
                    "restart": ("^", "process restarted"),
                    "training_resumed": ("o", "training resumed")}


def failure_lanes(ax, configs, colour, end):
    """One lane per configuration that has failures: its failure windows (every seed's, each
    distinct window once) as bars in its colour, and its recovery events as markers. Each
    configuration's windows stay on its own lane, so one configuration's failures never shade
    another's curve."""
    lanes = [name for name, runs in configs.items() if any(r.windows or r.recovery for r in runs)]
    for i, name in enumerate(lanes):
        y = len(lanes) - 1 - i
        windows = sorted({(w.begin, w.end, w.link) for r in configs[name] for w in r.windows})
        spans = [(b, e - b) for b, e, link in windows if e > b and not link]
        links = [(b, e - b) for b, e, link in windows if e > b and link]
        crashes = [b for b, e, _ in windows if e <= b]
        if spans:
            ax.broken_barh(spans, (y - 0.35, 0.7), facecolor=colour[name], alpha=0.45, lw=0,
                           gid=f"failures-{name}")
        if links:
            ax.broken_barh(links, (y - 0.35, 0.7), facecolor="none", edgecolor=colour[name],
                           hatch="//", lw=0, gid=f"link-failures-{name}")
        if crashes:
            ax.vlines(crashes, y - 0.35, y + 0.35, color=colour[name], lw=1.2, ls=":",
                      gid=f"crashes-{name}")
        for kind, (marker, _) in RECOVERY_MARKERS.items():
            times = sorted({t for r in configs[name] for k, t in r.recovery if k == kind})
            if times:
                ax.scatter(times, [y] * len(times), marker=marker, s=22, color=colour[name],
                           edgecolor="black", lw=0.5, zorder=3, gid=f"{kind}-{name}")
    ax.set_yticks(range(len(lanes)), [wrap_name(n, 28) for n in reversed(lanes)],
                  fontsize="x-small")
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    ax.set_xlim(0, end)
    ax.grid(True, axis="x", color="0.92", zorder=0)
    ax.set_title("failures (bars: host down, hatched: link down, dotted: process crash) and "
                 "recovery", fontsize="small", loc="left")
    return lanes


def mark_recovery(ax, configs, curves, colour):
    """The recovery events of each configuration on its mean accuracy curve (its value there,
    interpolated)."""
    import numpy as np
    for name, runs in configs.items():
        t, mean, _ = curves[name]
        ok = ~np.isnan(mean)
        for kind, (marker, _) in RECOVERY_MARKERS.items():
            times = sorted({tt for r in runs for k, tt in r.recovery if k == kind})
            if times and ok.any():
                ax.scatter(times, np.interp(times, t[ok], mean[ok]), marker=marker, s=28,
                           color=colour[name], edgecolor="black", lw=0.6, zorder=4)


def figure_accuracy(configs, title):
    """Full range on top; below, when the curves settle in a narrow range, the same curves
    zoomed on it (where setbacks after failures are visible); at the bottom, one lane per
    configuration with failures: its windows and recovery events."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    colour = colours(configs)
    curves = {name: mean_curve(runs, "test_accuracy") for name, runs in configs.items()}
    end = end_time(configs)
    zoom = zoom_range(curves.values(), end)
    n_lanes = sum(1 for runs in configs.values() if any(r.windows or r.recovery for r in runs))
    heights = ([1, 2] if zoom else [3]) + ([0.25 + 0.22 * n_lanes] if n_lanes else [])
    fig, axes = plt.subplots(len(heights), 1, figsize=(9, (7.5 if zoom else 5.5) +
                                                        (0.4 + 0.3 * n_lanes if n_lanes else 0)),
                             sharex=True, layout="constrained",
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    axes = list(axes[:, 0])
    full, ax = axes[0], axes[1 if zoom else 0]
    panels = [(full, (0, 1))] + ([(ax, zoom)] if zoom else [])
    for panel, ylim in panels:
        for name, runs in configs.items():
            t, mean, half = curves[name]
            panel.plot(t, mean, color=colour[name], lw=1.6, marker="o", ms=2.5, zorder=3,
                       label=seeds_label(name, runs))
            if len(runs) > 1:
                # Paler bands when many overlap, so the curves stay readable through them.
                panel.fill_between(t, mean - half, mean + half, color=colour[name],
                                   alpha=0.2 if len(configs) <= 4 else 0.1, lw=0, zorder=2)
        panel.set_xlim(0, end)
        panel.set_ylim(*ylim)
        panel.set_ylabel("test accuracy (fraction correct)")
        panel.grid(True, color="0.92", zorder=1)
    mark_recovery(ax, configs, curves, colour)
    bottom = ax
    if n_lanes:
        bottom = axes[-1]
        failure_lanes(bottom, configs, colour, end)
    if zoom:
        ax.set_title(f"zoomed: accuracy {zoom[0]:.2f} to {zoom[1]:.2f}", fontsize="medium")
    bottom.set_xlabel("simulated time (s)")
    banded = any(len(runs) > 1 for runs in configs.values())
    full.set_title(title or ("Test accuracy: mean over seeds, shaded 95% confidence band"
                             if banded else "Test accuracy (one seed)"))
    handles, labels = ax.get_legend_handles_labels()
    for kind, (marker, text) in RECOVERY_MARKERS.items():
        if any(k == kind for runs in configs.values() for r in runs for k, _ in r.recovery):
            handles.append(Line2D([], [], color="0.5", marker=marker, mec="black", mew=0.6,
                                  ls="none", ms=6))
            labels.append(text)
    legend_below(bottom, handles, labels)
    return fig


LOSS_FIGURE_NOTE = (" (the loss figure is of language models, model.kind \"transformer\", whose "
                    "evaluations have tokens)")


def failure_times(runs):
    """The distinct times of a configuration's failures (every seed's), in order."""
    return sorted({w.begin for r in runs for w in r.windows})


def loss_curves(configs):
    """Per configuration, the mean over seeds at each evaluation time: (times, tokens, loss,
    half-width of the loss's 95% band). The tokens of an evaluation are the same for every seed
    of a configuration (the timing does not depend on the seed), so their mean is theirs."""
    curves = {}
    for name, runs in configs.items():
        t, loss, half = mean_curve(runs, "test_loss")
        _, tokens, _ = mean_curve(runs, "tokens")
        curves[name] = (t, tokens, loss, half)
    return curves


def figure_loss(configs, title):
    """Validation loss against tokens (top) and against simulated time (middle), one line per
    configuration (mean over seeds, 95% band); its failures marked on its curves (a cross at the
    tokens and time it had reached when one struck) and, below, on its lane of failure windows
    and recovery events, on the time axis."""
    import matplotlib.pyplot as plt
    import numpy as np
    colour = colours(configs)
    curves = loss_curves(configs)
    end = end_time(configs)
    n_lanes = sum(1 for runs in configs.values() if any(r.windows or r.recovery for r in runs))
    heights = [3, 3] + ([0.25 + 0.22 * n_lanes] if n_lanes else [])
    fig = plt.figure(figsize=(9, 9.5 + (0.4 + 0.3 * n_lanes if n_lanes else 0)),
                     layout="constrained")
    grid = fig.add_gridspec(len(heights), 1, height_ratios=heights)
    by_tokens = fig.add_subplot(grid[0])
    by_time = fig.add_subplot(grid[1])
    for name, runs in configs.items():
        t, tokens, loss, half = curves[name]
        ok = ~np.isnan(loss) & ~np.isnan(tokens)
        label = seeds_label(name, runs)
        by_tokens.plot(tokens[ok], loss[ok], color=colour[name], lw=1.6, marker="o", ms=2.5,
                       zorder=3, label=label, gid=f"loss-tokens-{name}")
        by_time.plot(t[ok], loss[ok], color=colour[name], lw=1.6, marker="o", ms=2.5, zorder=3,
                     label=label, gid=f"loss-time-{name}")
        if len(runs) > 1:
            alpha = 0.2 if len(configs) <= 4 else 0.1
            by_tokens.fill_between(tokens[ok], (loss - half)[ok], (loss + half)[ok],
                                   color=colour[name], alpha=alpha, lw=0, zorder=2)
            by_time.fill_between(t[ok], (loss - half)[ok], (loss + half)[ok],
                                 color=colour[name], alpha=alpha, lw=0, zorder=2)
        # Each failure where the curve was when it struck: the last evaluation at or before it.
        struck = failure_times(runs)
        if struck and ok.any():
            at = [int(np.searchsorted(t[ok], f, side="right")) - 1 for f in struck]
            at = [i for i in at if i >= 0]
            by_tokens.scatter(tokens[ok][at], loss[ok][at], marker="X", s=60, color=colour[name],
                              edgecolor="black", lw=0.6, zorder=5, gid=f"failed-tokens-{name}")
            by_time.scatter(struck, np.interp(struck, t[ok], loss[ok]), marker="X",
                            s=60, color=colour[name], edgecolor="black", lw=0.6, zorder=5,
                            gid=f"failed-time-{name}")
    by_tokens.set_xlim(left=0)
    by_tokens.set_xlabel("tokens trained on (kept)")
    by_time.set_xlim(0, end)
    for ax in (by_tokens, by_time):
        ax.set_ylabel("validation loss (nat)")
        ax.grid(True, color="0.92", zorder=1)
    by_time.set_title("against simulated time (the job's wall time)", fontsize="medium")
    banded = any(len(runs) > 1 for runs in configs.values())
    by_tokens.set_title(title or ("Validation loss against tokens: mean over seeds, shaded 95% "
                                  "confidence band; X: a failure" if banded else
                                  "Validation loss against tokens (one seed); X: a failure"))
    bottom = by_time
    if n_lanes:
        bottom = fig.add_subplot(grid[2], sharex=by_time)
        failure_lanes(bottom, configs, colour, end)
    bottom.set_xlabel("simulated time (s)")
    legend_below(bottom, *by_time.get_legend_handles_labels())
    return fig


def figure_gradients(configs, title):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    colour = colours(configs)
    n_lanes = sum(1 for runs in configs.values() if any(r.windows or r.recovery for r in runs))
    if n_lanes:
        fig, (ax, lanes) = plt.subplots(2, 1, figsize=(9, 5.9 + 0.3 * n_lanes), sharex=True,
                                        layout="constrained",
                                        gridspec_kw={"height_ratios": [3, 0.25 + 0.22 * n_lanes]})
        failure_lanes(lanes, configs, colour, end_time(configs))
    else:
        fig, ax = plt.subplots(figsize=(9, 5.5), layout="constrained")
        lanes = ax
    ax.set_xlim(0, end_time(configs))
    for name, runs in configs.items():
        t, computed, _ = mean_curve(runs, "gradients_computed")
        _, applied, _ = mean_curve(runs, "gradients_applied")
        # Computed wide and pale, applied thin and dashed on top: where they coincide (no
        # gradient lost or waiting) both stay visible.
        ax.plot(t, computed, color=colour[name], lw=4, alpha=0.35, solid_capstyle="butt",
                zorder=3)
        ax.plot(t, applied, color=colour[name], lw=1.4, ls="--", zorder=4,
                label=seeds_label(name, runs))
    lanes.set_xlabel("simulated time (s)")
    ax.set_ylabel("gradients (cumulative count)")
    ax.set_ylim(bottom=0)
    ax.grid(True, color="0.92", zorder=1)
    ax.set_title(title or "Gradients computed (wide, pale) and applied (dashed): mean over seeds")
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="0.3", lw=4, alpha=0.35),
                Line2D([], [], color="0.3", lw=1.4, ls="--")]
    labels += ["computed (wide, pale)", "applied (dashed)"]
    legend_below(lanes, handles, labels)
    return fig


def figure_utilisation(configs, title):
    import matplotlib.pyplot as plt
    states = [("busy_seconds", "busy (computing)", "#4c72b0"),
              ("recovery_wait_seconds", "waiting for recovery", "#dd8452"),
              ("down_seconds", "down", "#c44e52"),
              ("idle_seconds", "idle (communicating, waiting)", "#b0b0b0")]
    names = list(configs)
    width = 0.8 / len(states)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(names) + 4), 5.5), layout="constrained")
    for k, (key, label, colour) in enumerate(states):
        stats = [mean_and_half_width([r.worker_time[key] for r in configs[n]]) for n in names]
        x = [i + (k - (len(states) - 1) / 2) * width for i in range(len(names))]
        # No error bar where there is no interval (one seed) or nothing varies (always 0).
        heights = [m for m, _ in stats]
        bars = ax.bar(x, heights, width, color=colour, label=label, zorder=2)
        if len(names) <= 6:  # the value on each bar, so a zero share is seen to be zero
            ax.bar_label(bars, labels=[f"{m:.0%}" if m >= 0.005 or m == 0 else "<1%"
                                       for m in heights],
                         padding=2, fontsize="x-small", color="0.3")
        errors = [(xi, m, h) for xi, n, (m, h) in zip(x, names, stats)
                  if len(configs[n]) > 1 and h > 0]
        if errors:
            ax.errorbar([e[0] for e in errors], [e[1] for e in errors],
                        yerr=[e[2] for e in errors], fmt="none", ecolor="black", elinewidth=1,
                        capsize=3, zorder=3)
    many = len(names) > 4
    ax.set_xticks(range(len(names)),
                  [f"{n if many else wrap_name(n)}{' ' if many else chr(10)}({len(configs[n])} "
                   f"seed{'s' if len(configs[n]) > 1 else ''})" for n in names],
                  rotation=30 if many else 0, ha="right" if many else "center",
                  rotation_mode="anchor", fontsize="small")
    ax.set_ylabel("share of worker time (fraction of the run)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, axis="y", color="0.92", zorder=1)
    ax.set_title(title or "Worker time by state: mean over seeds, 95% confidence interval")
    # On the right: below, it would have to clear tick labels of any length.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize="small")
    return fig


# ---------------------------------------------------------------------------------------------
# Sweep directories (`failsim sweep`, docs/sweeps.md): sweep.json and runs.csv

# runs.csv's summary columns (docs/sweeps.md#output-directory): the metrics --metric takes, with
# the y-axis label of each.
SWEEP_METRICS = {
    "final_accuracy": "final test accuracy (fraction correct)",
    "end_time_s": "end time (simulated s)",
    "failures": "failures (count)",
    "updates": "updates (count)",
    "updates_rolled_back": "updates rolled back (count)",
    "gradients_computed": "gradients computed (count)",
    "gradients_applied": "gradients applied (count)",
    "gradients_dropped": "gradients dropped (count)",
    "gradients_lost": "gradients lost (count)",
    "gradients_pending_at_end": "gradients pending at the end (count)",
    "gradients_rolled_back": "gradients rolled back (count)",
    # Collective runs (runs.csv has them when the sweep has a collective point).
    "ettr": "ETTR (productive share of wall time)",
    "goodput_tokens_per_s": "goodput (kept tokens per simulated s)",
    "goodput_samples_per_s": "goodput (kept samples per simulated s)",
    "tokens_kept": "tokens kept (count)",
    "samples_kept": "samples kept (count)",
    "steps_kept": "steps kept (count)",
    "steps_rolled_back": "steps rolled back (count)",
    "restarts": "restarts (count)",
    "time_lost_s": "time lost (simulated s)",
}
# The sweep figure's metrics without --metric, those of them some run has.
DEFAULT_SWEEP_METRICS = ("final_accuracy", "ettr")
SWEEP_METRICS.update({f"time_{key}_s": f"time: {label} (simulated s)"
                      for key, label in failsim_results.TIME_CAUSES})

# Units of quantities as scenario files write them (input/units.cpp): symbol -> (factor to the SI
# base unit, that unit). "f" is a speed (flop/s) or an amount (flop): decided by the field.
_PREFIXES = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50,
           "Ei": 2.0**60}
UNITS = {"ps": (1e-12, "s"), "ns": (1e-9, "s"), "us": (1e-6, "s"), "\u00b5s": (1e-6, "s"),
         "ms": (1e-3, "s"), "s": (1.0, "s"), "min": (60.0, "s"), "h": (3600.0, "s"),
         "d": (86400.0, "s"), "w": (604800.0, "s")}
for _p, _f in list(_PREFIXES.items()) + list(_BINARY.items()):
    UNITS[_p + "B"] = (_f, "B")
    UNITS[_p + "b"] = (_f / 8, "B")
    UNITS[_p + "Bps"] = (_f, "B/s")
    UNITS[_p + "bps"] = (_f / 8, "B/s")
for _p, _f in _PREFIXES.items():
    for _u in ("f", "flop", "flops"):
        UNITS[_p + _u] = (_f, "flop")
QUANTITY = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z\u00b5]+)\s*")


def sweep_number(value, path):
    """(number in SI, its unit or None) of a varied value as the sweep file writes it: a JSON
    number, or a string with a unit ("40s", "10Gbps"); None when it is neither (a categorical
    value, drawn at evenly spaced positions)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), None
    if isinstance(value, str):
        m = QUANTITY.fullmatch(value)
        if m and m.group(2) in UNITS:
            factor, unit = UNITS[m.group(2)]
            if unit == "flop" and path.rsplit("/", 1)[-1] == "speed":
                unit = "flop/s"
            return float(m.group(1)) * factor, unit
    return None


# The x axis of a sweep that varies no field, or of --x base: its base scenario files.
BASE_AXIS = "base"


def default_label(pointer):
    """A varied path's default label (sweep/plan.cpp): its last token that is not an array
    index, `~1` and `~0` unescaped."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    words = [t for t in tokens if not t.isdigit()]
    return words[-1] if words else pointer


def is_sweep_dir(path):
    return os.path.isfile(os.path.join(path, "sweep.json"))


class Sweep:
    """A sweep directory: its plan (sweep.json) and its runs (runs.csv)."""

    def __init__(self, directory):
        self.directory = directory
        plan_file = os.path.join(directory, "sweep.json")
        if not os.path.isdir(directory):
            raise BadInput(f"{directory}: expected a sweep directory of `failsim sweep`, found "
                           + ("a file" if os.path.exists(directory) else "nothing"))
        if not os.path.isfile(plan_file):
            raise BadInput(f"{directory}: expected a sweep directory of `failsim sweep` (holding "
                           "sweep.json and runs.csv) for the sweep figure, found no sweep.json")
        plan = load_tagged_json(plan_file, "failsim-sweep-plan")
        self.name = field(plan, ["name"], "string", plan_file)
        self.paths = field(plan, ["paths"], "list", plan_file)
        # Each varied path's label (the sweep file's `label`, docs/sweeps.md); a plan written
        # before sweep.json held them gets the default label, as the sweep file would.
        labels = field(plan, ["labels"], "list", plan_file) if "labels" in plan else [
            default_label(p) for p in self.paths]
        if len(labels) != len(self.paths) or not all(isinstance(x, str) for x in labels):
            raise BadInput(f"{plan_file}: expected /labels to be one string per path of /paths "
                           f"({len(self.paths)}), found {json.dumps(labels)}")
        self.labels = dict(zip(self.paths, labels))
        self.labels[BASE_AXIS] = "base scenario"
        self.plan_file = plan_file
        self.points = {}
        for i, point in enumerate(field(plan, ["points"], "list", plan_file)):
            where = f"{plan_file}: /points/{i}"
            self.points[field(point, ["id"], "string", where)] = (
                field(point, ["base"], "string", where), field(point, ["values"], "object", where))
        self.runs_file = os.path.join(directory, "runs.csv")
        rows = read_csv_rows(self.runs_file, "runs.csv (written by `failsim sweep`, or "
                             "`failsim sweep --collect`)")
        if not rows:
            raise BadInput(f"{self.runs_file}: expected a header line, found an empty file")
        self.header = rows[0]
        missing = [c for c in ("point", "seed", "status") if c not in self.header]
        if missing:
            raise BadInput(f"{self.runs_file}: expected column{'s' if len(missing) > 1 else ''} "
                           f"{', '.join(missing)} in the header, found {','.join(self.header)}")
        self.rows = []
        for line, row in enumerate(rows[1:], start=2):
            if len(row) != len(self.header):
                raise BadInput(f"{self.runs_file}:{line}: expected {len(self.header)} fields, "
                               f"found {len(row)}")
            record = dict(zip(self.header, row))
            if record["point"] not in self.points:
                raise BadInput(f"{self.runs_file}:{line}: expected a point of {plan_file}, "
                               f"found {record['point']!r}")
            self.rows.append((line, record))

    def metrics(self):
        """The summary columns runs.csv has: between `status` and `directory`."""
        start = self.header.index("status") + 1
        end = self.header.index("directory") if "directory" in self.header else len(self.header)
        return self.header[start:end]

    def has_values(self, metric):
        """Whether some run has a value of this column of runs.csv."""
        return metric in self.metrics() and any(row[metric] != "" for _, row in self.rows)

    def default_metrics(self):
        """The metrics the sweep figure draws without --metric: final accuracy and ETTR, those of
        them some run has (a time-only collective run has no accuracy, a parameter-server run no
        ETTR); final accuracy when no run has either, so the error names it."""
        return [m for m in DEFAULT_SWEEP_METRICS if self.has_values(m)] or \
            [DEFAULT_SWEEP_METRICS[0]]

    def default_x(self):
        """The x axis without --x: the first varied path, or the base scenarios when the sweep
        varies none (several base files, seeds)."""
        return self.paths[0] if self.paths else BASE_AXIS

    def x_value(self, point_id, x_path):
        """The value of the point on the x axis: the varied path's, or the base file's name
        (without directory and extension) on the base axis."""
        base, values = self.points[point_id]
        if x_path == BASE_AXIS:
            return os.path.splitext(os.path.basename(base))[0]
        return values.get(x_path)


def sweep_series(sweep, metric, x_path):
    """{line: [(x, mean, half-width, values over seeds, x label)]} sorted by x, the x unit, and
    the number of runs left out (no result, or no value of the metric). A line is a base scenario,
    with the values of the other varied paths when there are any."""
    if metric not in sweep.metrics():
        raise BadInput(f"{sweep.runs_file}: --metric: expected a column of runs.csv among "
                       f"{', '.join(sweep.metrics())}, found {metric!r}")
    if x_path not in sweep.paths and x_path != BASE_AXIS:
        raise BadInput(f"{sweep.plan_file}: --x: expected a varied path among "
                       f"{', '.join(sweep.paths + [BASE_AXIS])} ({BASE_AXIS}: the base "
                       f"scenarios), found {x_path!r}")
    xs = {}  # raw value (as JSON text) -> (number or None, unit)
    for point_id in sweep.points:
        raw = sweep.x_value(point_id, x_path)
        xs.setdefault(json.dumps(raw, sort_keys=True), (raw, sweep_number(raw, x_path)))
    numeric = all(n is not None for _, n in xs.values())
    units = {n[1] for _, n in xs.values() if n is not None and n[1] is not None}
    if numeric and len(units) > 1:
        raise BadInput(f"{sweep.plan_file}: --x {x_path}: expected values of one kind of "
                       f"quantity, found units {', '.join(sorted(units))}")
    position = {}
    for i, (key, (raw, number)) in enumerate(xs.items()):
        position[key] = number[0] if numeric else float(i)
    groups, left_out = {}, 0
    for line, row in sweep.rows:
        name = line_name(sweep, row["point"], x_path)
        raw = sweep.x_value(row["point"], x_path)
        key = json.dumps(raw, sort_keys=True)
        # Every point of the plan has its entry, so one without any value shows as a gap.
        values_here = groups.setdefault(name, {}).setdefault(key, (raw, []))[1]
        text = row.get(metric, "")
        if row["status"] == "missing" or text == "":
            left_out += 1
            continue
        try:
            values_here.append(float(text))
        except ValueError:
            raise BadInput(f"{sweep.runs_file}:{line}: expected a number in column {metric}, "
                           f"found {text!r}") from None
    if not any(v for by_x in groups.values() for _, v in by_x.values()):
        raise BadInput(f"{sweep.runs_file}: expected at least one run with a value of {metric}, "
                       f"found none among {len(sweep.rows)} runs")
    series = {}
    for name, by_x in groups.items():
        points = []
        for key, (raw, values) in by_x.items():
            mean, half = mean_and_half_width(values) if values else (math.nan, math.nan)
            points.append((position[key], mean, half, values,
                           raw if isinstance(raw, str) else json.dumps(raw)))
        series[name] = sorted(points, key=lambda p: p[0])
    ticks = None if numeric else [(position[k], sweep_value_text(raw))
                                  for k, (raw, _) in xs.items()]
    # Whole numbers without a unit (a count of workers, an update interval): integer ticks.
    integers = numeric and not units and all(float(n[0]).is_integer() for _, n in xs.values())
    return series, (units.pop() if units else None), ticks, left_out, integers


def line_name(sweep, point_id, x_path):
    """The line of the sweep figure a point is on: its base scenario, with the values of the
    other varied paths when there are any (on the base axis, those values only)."""
    base, values = sweep.points[point_id]
    others = ", ".join(f"{sweep.labels[p]}={sweep_value_text(values.get(p))}"
                       for p in sweep.paths if p != x_path)
    if x_path == BASE_AXIS:  # the bases are on the x axis: a line per other value
        return others or sweep.name
    return os.path.splitext(os.path.basename(base))[0] + (f" ({others})" if others else "")


# A checkpoint interval counted in steps (cluster.md): the field the Young/Daly optimum is drawn
# on, and the unit of fields named every_<unit>.
INTERVAL_IN_STEPS = "every_steps"


def field_unit(path):
    """The unit a field's name says (`every_steps`: steps, `every_updates`: updates), or None."""
    key = path.rsplit("/", 1)[-1]
    return key.split("_", 1)[1] if key.startswith("every_") and "_" in key else None


def plain_name(pointer):
    """A varied field as runs.csv names its column (sweep/aggregate.hpp, varied_column_names, but
    for names taken twice): its last two keys that are not array indices, joined by `_`
    (`/recovery/checkpoint/every_steps`: checkpoint_every_steps)."""
    keys = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    keys = [k for k in keys if not k.isdigit()][-2:]
    return re.sub(r"[^A-Za-z0-9_]", "_", "_".join(keys)) or pointer


def axis_label(sweep, x_path, unit):
    """The x axis of a sweep figure: the sweep's label of the field, the field itself by its
    plain name when the label is another word ("every" says little: "every:
    checkpoint_every_steps"), and the unit, written with the values or said by the field's name
    (`every_steps`: steps)."""
    label = sweep.labels[x_path]
    if x_path != BASE_AXIS and plain_name(x_path) != label:
        label = f"{label}: {plain_name(x_path)}"
    unit = unit or field_unit(x_path)
    return f"{label} ({unit})" if unit else label


def young_daly(sweep, x_path):
    """{line: (optimum interval in steps, delta s, M s)} of a sweep of a collective checkpoint
    interval in steps, from each line's runs: M the mean time between failures (run time over
    failures), delta the stall of one checkpoint (checkpoint stall over checkpoints), a step the
    productive time over the kept steps; tau = Daly's optimum (analysis/daly.py) in steps. A
    line without a failure or a stalling checkpoint has none."""
    if field_unit(x_path) != "steps":
        return {}
    sums = {}  # line -> [run time, failures, stall, checkpoints, productive, steps kept]
    for _, row in sweep.rows:
        if row["status"] == "missing" or "directory" not in row:
            continue
        file = os.path.join(sweep.directory, row["directory"], "result.json")
        summary = field(load_tagged_json(file, "failsim-result"), ["summary"], "object", file)
        c = summary.get("collective")
        if not isinstance(c, dict):
            continue
        total = sums.setdefault(line_name(sweep, row["point"], x_path), [0.0] * 6)
        for i, value in enumerate((
                field(summary, ["end_time"], "number", file),
                field(c, ["failures"], "number", file),
                field(c, ["time", "checkpoint_stall"], "number", file),
                field(c, ["checkpoints"], "number", file),
                field(c, ["time", "productive"], "number", file),
                field(c, ["steps", "kept"], "number", file))):
            total[i] += value
    import daly
    optima = {}
    for name, (end, failures, stall, checkpoints, productive, kept) in sums.items():
        if failures > 0 and checkpoints > 0 and stall > 0 and kept > 0:
            mtbf, delta = end / failures, stall / checkpoints
            optima[name] = (daly.daly_optimum(delta, mtbf) / (productive / kept), delta, mtbf)
    return optima


def sweep_value_text(value):
    """A varied value as runs.csv shows it: a string as is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def log_axis(xs):
    """Whether sorted positive x values spanning a factor 8 or more (a checkpoint every 50 to
    800 steps) go on a log axis."""
    return bool(xs) and xs[0] > 0 and xs[-1] / xs[0] >= 8


def figure_sweep(sweep, metric, x_path, title):
    import matplotlib.pyplot as plt
    series, unit, ticks, left_out, integers = sweep_series(sweep, metric, x_path)
    cmap = plt.get_cmap("tab10" if len(series) <= 10 else "tab20")
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory
    fig, ax = plt.subplots(figsize=(9, 5.5), layout="constrained")
    bottom = blended_transform_factory(ax.transData, ax.transAxes)
    no_value = False
    for i, (name, points) in enumerate(series.items()):
        colour = cmap(i % cmap.N)
        x = [p[0] for p in points]
        mean = [p[1] for p in points]
        seeds = sorted({len(p[3]) for p in points if p[3]}) or [0]
        n = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
        # A point without any value (its runs failed, or have not run): a gap in the line and a
        # cross in its colour on the x axis.
        empty = [p[0] for p in points if not p[3]]
        if empty:
            ax.scatter(empty, [0.0] * len(empty), transform=bottom, marker="x", s=40, lw=1.6,
                       color=colour, clip_on=False, zorder=4)
            no_value = True
        ax.plot(x, mean, color=colour, lw=1.6, marker="o", ms=4, zorder=3,
                label=f"{name} ({n} seed{'s' if seeds[-1] > 1 else ''})")
        if any(len(p[3]) > 1 for p in points):
            ax.fill_between(x, [p[1] - p[2] for p in points], [p[1] + p[2] for p in points],
                            color=colour, alpha=0.2 if len(series) <= 2 else 0.1, lw=0, zorder=2)
        # Every seed as a faint dot: five seeds are few, the reader should see them.
        ax.scatter([p[0] for p in points for _ in p[3]], [v for p in points for v in p[3]],
                   color=colour, s=6, alpha=0.35, lw=0, zorder=2.5)
    xs = sorted({p[0] for points in series.values() for p in points})
    # Intervals spanning a decade or more (a checkpoint every 25 to 1600 steps): a log axis, a
    # tick at each value as long as they do not crowd (a factor 1.6 apart at least).
    logarithmic = ticks is None and log_axis(xs)
    optima = young_daly(sweep, x_path) if ticks is None else {}
    for i, (name, (tau, delta, mtbf)) in enumerate(optima.items()):
        ax.axvline(tau, color=cmap(list(series).index(name) % cmap.N) if name in series
                   else "0.3", ls="--", lw=1.2, zorder=2.6,
                   label=f"Young/Daly optimum {tau:.0f} steps ({name}: checkpoint "
                         f"{delta:.3g} s, MTBF {mtbf / 3600:.3g} h)")
    if logarithmic:
        from matplotlib.ticker import NullFormatter, NullLocator
        ax.set_xscale("log")
        shown = [xs[0]]
        for x in xs[1:]:
            if x / shown[-1] >= 1.6:
                shown.append(x)
        ax.set_xticks(shown, [f"{x:g}" for x in shown])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
    elif ticks is not None:
        ax.set_xticks([t[0] for t in ticks], [t[1] for t in ticks])
    elif integers:
        from matplotlib.ticker import MaxNLocator
        xs = sorted({p[0] for points in series.values() for p in points})
        if len(xs) <= 12:  # few values: a tick at each, written as an integer
            ax.set_xticks(xs, [f"{x:.0f}" for x in xs])
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(axis_label(sweep, x_path, unit) + (", log scale" if logarithmic else ""))
    # The y axis fits the data (ETTR between 0.78 and 0.80 is the story, not 0 to 1), and says
    # so.
    values = [v for pts in series.values() for p in pts for v in p[3]] + \
        [p[1] + sign * p[2] for pts in series.values() for p in pts if p[3] for sign in (-1, 1)]
    low, high = min(values), max(values)
    margin = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    ax.set_ylim(low - margin, high + margin)
    ax.set_ylabel(SWEEP_METRICS.get(metric, metric) + "\n(axis zoomed to the data)")
    ax.grid(True, color="0.92", zorder=1)
    default = (f"{sweep.name}: {SWEEP_METRICS.get(metric, metric).split(' (')[0]} against "
               f"{axis_label(sweep, x_path, None).split(' (')[0]}\n" + ("mean over seeds (dots: each seed), shaded 95% confidence band"
                                if any(len(p[3]) > 1 for pts in series.values() for p in pts)
                                else "one seed per point"))
    if left_out:
        default += (f"; {left_out} run{'s' if left_out > 1 else ''} without a value (failed or "
                    "not run) left out")
    ax.set_title(title or default, fontsize="medium")
    handles, labels = ax.get_legend_handles_labels()
    if no_value:
        handles.append(Line2D([], [], color="0.3", marker="x", ls="none", ms=6, mew=1.6))
        labels.append("no run with a value at this point")
    legend_below(ax, handles, labels)
    return fig


def figure_timeline(run, title):
    """One row per host (the servers and workers of summary.hosts, then the others of
    intervals.csv, e.g. the storage host), its recorded intervals as bars over simulated time
    on a pale bar for the time it was up and idle or waiting."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    # A platform host listed for several workers is one row.
    names = list(dict.fromkeys(h for h, _ in run.hosts))
    for host, _, _, _ in run.intervals:
        if host not in names:
            names.append(host)
    roles = dict(run.hosts)
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.32 * len(names)), layout="constrained")
    for i, host in enumerate(names):
        y = len(names) - 1 - i
        ax.broken_barh([(0, run.end_time)], (y - 0.4, 0.8), facecolor="0.93", lw=0, zorder=1)
        for state, (_, colour) in HOST_STATES.items():
            bars = [(b, e - b) for h, s, b, e in run.intervals if h == host and s == state]
            if bars:
                # The "down" bars on top: a host that is down does nothing else.
                ax.broken_barh(bars, (y - 0.4, 0.8), facecolor=colour, lw=0,
                               zorder=3 if state == "down" else 2, gid=f"{state}-{host}")
    ax.set_yticks(range(len(names)), [f"{h} ({roles[h]})" if h in roles else h
                                      for h in reversed(names)], fontsize="small")
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.set_xlim(0, run.end_time)
    ax.set_xlabel("simulated time (s)")
    ax.grid(True, axis="x", color="0.85", zorder=0)
    ax.set_title(title or f"Timeline of {run.name} (seed {run.seed}): what each host does",
                 fontsize="medium")
    handles = [Patch(facecolor=c, label=t) for t, c in HOST_STATES.values()]
    handles.append(Patch(facecolor="0.93", label="up, idle or waiting (communicating)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(names) < 6
                                                                   else -0.12),
              ncol=3, frameon=False, fontsize="small")
    return fig


# A collective job's phases on its timeline, from its events (result-format.md#events): the
# event that starts each, the phase's legend text and its colour (those of the time figure).
JOB_PHASES = {"training": ("training (steps)", "#55a868"),
              "detection": ("failure → detection", "#dd8452"),
              "repair_wait": ("repair wait", "#937860"),
              "restart": ("restart and checkpoint load", "#da8bc3")}
# The event that moves the job into a phase. A `group-<g>` subject (a DiLoCo group) is not the
# job's.
JOB_PHASE_OF_EVENT = {"start": "training", "failure": "detection", "detected": "repair_wait",
                      "restart": "restart", "checkpoint_loaded": "training",
                      "training_resumed": "training"}


class JobTimeline:
    """What a collective run's timeline draws: the job's phases [(phase, begin, end)], each
    DiLoCo group's restarts {group: [(begin, end)]}, the checkpoints [(time, level)], and the
    failures [(label, begin, end, switch)]."""

    def __init__(self, phases, groups, checkpoints, failures):
        self.phases, self.groups = phases, groups
        self.checkpoints, self.failures = checkpoints, failures


def node_group_label(nodes):
    """"node-3", or "nodes 2-3" for consecutive ones, or "4 nodes" for others."""
    if len(nodes) == 1:
        return f"node-{nodes[0]}"
    if nodes == list(range(nodes[0], nodes[0] + len(nodes))):
        return f"nodes {nodes[0]}-{nodes[-1]}"
    return f"{len(nodes)} nodes"


def job_timeline(events, end_time, file):
    """A collective run's JobTimeline from its result.json events, checked as they are read."""
    phases, checkpoints, failures = [], [], []
    groups, group_since = {}, {}  # a DiLoCo group's restarts, while the others train on
    phase, since = None, 0.0
    for i, event in enumerate(events):
        where = f"{file}: /events/{i}"
        kind = field(event, ["type"], "string", where)
        time = min(field(event, ["time"], "number", where), end_time)
        subject = field(event, ["subject"], "string", where)
        if kind == "checkpoint_written":
            checkpoints.append((time, subject))
        if kind == "failure":
            details = field(event, ["details"], "object", where)
            down = details.get("down_for", 0)
            down = end_time - time if down == "forever" else down
            nodes = details.get("nodes")
            label = node_group_label(nodes) if isinstance(nodes, list) and nodes and all(
                isinstance(n, int) for n in nodes) else (subject or "job")
            failures.append((label, time, min(end_time, time + float(down)),
                             details.get("target") == "switch"))
        if subject.startswith("group-"):
            if kind == "restart":
                group_since.setdefault(subject, time)
            elif kind in ("checkpoint_loaded", "replica_joined", "training_resumed") and \
                    subject in group_since:
                groups.setdefault(subject, []).append((group_since.pop(subject), time))
            continue
        if kind not in JOB_PHASE_OF_EVENT:
            continue
        new = JOB_PHASE_OF_EVENT[kind]
        if phase == "training" and new == "training":
            continue  # a resumption that took no recovery
        if phase not in (None, "training") and new == "detection":
            continue  # a failure during a recovery: the job is down already, nothing to detect
        if phase is not None and time > since:
            phases.append((phase, since, time))
        phase, since = new, time
    if phase is not None and end_time > since:
        phases.append((phase, since, end_time))
    for group, begin in group_since.items():  # a restart the stop cut short
        groups.setdefault(group, []).append((begin, end_time))
    return JobTimeline(phases, groups, checkpoints, failures)


def time_unit(end):
    """(divisor, unit) of a time axis over [0, end] s: hours, minutes or seconds."""
    if end >= 3 * 3600:
        return 3600.0, "h"
    if end >= 3 * 60:
        return 60.0, "min"
    return 1.0, "s"


MAX_FAILURE_LANES = 12  # beyond, the failures of the other node groups share a lane


def figure_job_timeline(run, title):
    """A collective run as a Gantt chart: the job's lane (training, and after each failure its
    detection, repair wait, restart and checkpoint load), the checkpoints that became durable
    (a tick each, a row per level), and a lane per node group that failed (its outage)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    job = run.job
    scale, unit = time_unit(run.end_time)
    groups = list(dict.fromkeys(label for label, _, _, _ in job.failures))
    if len(groups) > MAX_FAILURE_LANES:
        groups = groups[:MAX_FAILURE_LANES - 1] + ["other nodes"]
    levels = list(dict.fromkeys(level or "checkpoint" for _, level in job.checkpoints))
    rows = ["job"] + sorted(job.groups, key=failsim_results.natural_key) + \
        [f"checkpoints ({lv})" for lv in levels] + groups
    fig, ax = plt.subplots(figsize=(10, 1.9 + 0.34 * len(rows)), layout="constrained")
    y_of = {row: len(rows) - 1 - i for i, row in enumerate(rows)}
    for key, (_, colour) in JOB_PHASES.items():
        bars = [(b / scale, (e - b) / scale) for p, b, e in job.phases if p == key]
        if bars:
            ax.broken_barh(bars, (y_of["job"] - 0.4, 0.8), facecolor=colour, lw=0, zorder=2,
                           gid=f"job-{key}")
    for group, spans in job.groups.items():
        ax.broken_barh([(b / scale, (e - b) / scale) for b, e in spans],
                       (y_of[group] - 0.4, 0.8), facecolor=JOB_PHASES["restart"][1], lw=0,
                       zorder=2, gid=f"{group}-restart")
    for lv in levels:
        times = [t / scale for t, level in job.checkpoints if (level or "checkpoint") == lv]
        y = y_of[f"checkpoints ({lv})"]
        ax.vlines(times, y - 0.35, y + 0.35, color="#8172b3", lw=0.8, zorder=2,
                  gid=f"checkpoints-{lv}")
    for label, begin, end, switch in job.failures:
        row = label if label in y_of else "other nodes"
        y = y_of[row]
        if end > begin:
            ax.broken_barh([(begin / scale, (end - begin) / scale)], (y - 0.35, 0.7),
                           facecolor="none" if switch else "#c44e52",
                           edgecolor="#c44e52", hatch="//" if switch else None, lw=0.6,
                           zorder=2, gid=f"failure-{row}")
        ax.plot([begin / scale], [y], marker="x", color="black", ms=5, zorder=3)
    ax.set_yticks(range(len(rows)), list(reversed(rows)), fontsize="small")
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, run.end_time / scale)
    ax.set_xlabel(f"simulated time ({unit})")
    ax.grid(True, axis="x", color="0.88", zorder=0)
    ax.set_title(title or f"Timeline of {run.name} (seed {run.seed}): the job's phases, its "
                 "checkpoints and its failures", fontsize="medium")
    # The legend names what the figure shows.
    shown = {p for p, _, _ in job.phases} | ({"restart"} if job.groups else set())
    handles = [Patch(facecolor=c, label=t) for key, (t, c) in JOB_PHASES.items() if key in shown]
    if job.checkpoints:
        handles.append(Line2D([], [], color="#8172b3", lw=0.8, label="checkpoint durable"))
    if job.failures:
        handles.append(Patch(facecolor="#c44e52", label="nodes down (x: failure)"))
    if any(f[3] for f in job.failures):
        handles.append(Patch(facecolor="none", edgecolor="#c44e52", hatch="//",
                             label="cut off by its switch"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.3 if len(rows) < 5
                                                                   else -0.15),
              ncol=4, frameon=False, fontsize="small")
    return fig


def timeline_drawings(configs, title):
    """(file name, drawing) of each run's timeline: `timeline` for a single run, else
    `timeline-<configuration>-seed-<seed>`."""
    runs = [r for rs in configs.values() for r in rs]
    return [("timeline" if len(runs) == 1 else f"timeline-{r.name}-seed-{r.seed}",
             lambda r=r: (figure_job_timeline if r.collective else figure_timeline)(r, title))
            for r in runs]


# A colour per cause of failsim_results.TIME_CAUSES: productive green, the slowdowns of kept
# steps (stragglers, interference) ochre, checkpoint stalls violet, the failure's costs reds and
# browns, the unfinished step grey.
TIME_COLOURS = {"productive": "#55a868", "stragglers": "#ccb974", "interference": "#e5d8a0",
                "checkpoint_stall": "#8172b3", "lost_work": "#c44e52", "detection": "#dd8452",
                "repair_wait": "#937860", "restart": "#da8bc3", "checkpoint_load": "#64b5cd",
                "quorum": "#4c72b0", "unfinished": "#b0b0b0"}


def figure_time(configs, title):
    """Where the wall time went: per configuration a horizontal bar of the causes' shares of
    the run (mean over seeds of each run's seconds / end_time), ETTR written on the bar."""
    import matplotlib.pyplot as plt
    names = list(configs)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.55 * len(names) + 1.6), layout="constrained")
    y = range(len(names))
    left = [0.0] * len(names)
    present = [key for key, _ in failsim_results.TIME_CAUSES
               if any(r.time[key] > 0 for n in names for r in configs[n])]
    for key, label in failsim_results.TIME_CAUSES:
        if key not in present:
            continue  # a cause no run had would only crowd the legend
        shares = [mean_and_half_width([r.time[key] / r.end_time if r.end_time > 0 else 0.0
                                       for r in configs[n]])[0] for n in names]
        ax.barh(y, shares, left=left, color=TIME_COLOURS[key], label=label, height=0.6,
                edgecolor="white", linewidth=0.5, zorder=2)
        left = [a + b for a, b in zip(left, shares)]
    for i, n in enumerate(names):
        runs = configs[n]
        ettr, half = mean_and_half_width(
            [r.time["productive"] / r.end_time if r.end_time > 0 else 0.0 for r in runs])
        text = f"ETTR {ettr:.3f}" + (f" ± {half:.3f}" if len(runs) > 1 and half > 0 else "")
        ax.text(0.01, i, text, va="center", ha="left", fontsize="small", color="black",
                bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 1.5},
                zorder=3)
    ax.set_yticks(list(y), [f"{n} ({len(configs[n])} seed{'s' if len(configs[n]) > 1 else ''})"
                            for n in names], fontsize="small")
    ax.invert_yaxis()  # the first configuration on top
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of wall time (mean over seeds)")
    ax.grid(True, axis="x", color="0.92", zorder=1)
    ax.set_title(title or "Where the wall time went (ETTR: productive share, 95% interval)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(names) < 3 else -0.12),
              ncol=min(5, len(present)), frameon=False, fontsize="small")
    return fig


def collective_summaries(directories):
    """summary.collective of every result directory under these, or None when one of them is a
    parameter-server run (or there is none)."""
    summaries = []
    for d in find_result_dirs(directories):
        file = os.path.join(d, "result.json")
        result = load_tagged_json(file, "failsim-result")
        summary = field(result, ["summary"], "object", file)
        if "collective" not in summary:
            return None
        summaries.append(field(summary, ["collective"], "object", file))
    return summaries or None


def all_collective(directories):
    """Whether every result directory under these holds a collective run."""
    return collective_summaries(directories) is not None


def split_by_protocol(directories):
    """(parameter-server result directories, collective ones) under these, in order."""
    ps, collective = [], []
    for d in find_result_dirs(directories):
        file = os.path.join(d, "result.json")
        summary = field(load_tagged_json(file, "failsim-result"), ["summary"], "object", file)
        (collective if "collective" in summary else ps).append(d)
    return ps, collective


def is_language_model(directory):
    """Whether the run of a result directory trained a language model (scenario.model.kind
    "transformer"; a time-only collective run has no model)."""
    file = os.path.join(directory, "result.json")
    model = field(load_tagged_json(file, "failsim-result"), ["scenario"], "object", file).get(
        "model")
    return isinstance(model, dict) and model.get("kind") == "transformer"


def default_figures(directories, for_ps=None, for_collective=None):
    """[(result directories, figures)]: what is drawn without --figures, each protocol's runs
    with the figures made for them. Parameter-server runs: `for_ps` (default accuracy,
    gradients, utilisation, and the timeline when every run recorded intervals.csv); collective
    runs: `for_collective` (default collective_figures), but those the parameter-server runs
    draw already (a figure is one file). Either protocol's runs, when all are language models,
    draw the loss too."""
    ps, collective = split_by_protocol(directories)
    groups = []
    if ps:
        figures = list(for_ps if for_ps is not None else RUN_FIGURES)
        if for_ps is None and all(os.path.isfile(os.path.join(d, "intervals.csv")) for d in ps):
            figures.append("timeline")
        groups.append((ps, figures))
    if collective:
        taken = groups[0][1] if groups else []
        figures = for_collective if for_collective is not None else collective_figures(collective)
        groups.append((collective, [f for f in figures if f not in taken]))
    drawn = set()
    for dirs, figures in groups:
        if "loss" not in drawn and all(is_language_model(d) for d in dirs):
            figures.append("loss")
        drawn.update(figures)
    return groups


def run_drawings(groups, order, title):
    """(file name, drawing) of each figure of [(result directories, figures)]; `order`: the
    configurations to show, in this order (--configs), or None for all."""
    loaded = [(load_configurations(dirs, figures, None), figures) for dirs, figures in groups]
    if order:
        names = set().union(*(configs.keys() for configs, _ in loaded))
        unknown = [c for c in order if c not in names]
        if unknown:
            raise BadInput(f"--configs: expected configuration names (scenario.name) among "
                           f"{', '.join(sorted(names, key=failsim_results.natural_key))}, "
                           f"found {', '.join(unknown)}")
        loaded = [({n: configs[n] for n in order if n in configs}, figures)
                  for configs, figures in loaded]
    drawings = []
    for configs, figures in loaded:
        if not configs:
            continue
        for name in figures:
            if name == "timeline":
                drawings += timeline_drawings(configs, title)
            else:
                drawings.append((name, lambda n=name, c=configs: DRAW[n](c, title)))
    return drawings


MAX_DEFAULT_TIMELINES = 6  # beyond, a timeline per run is on request (--figures timeline)


def collective_figures(directories):
    """The figures of collective runs without --figures: where the time went; each run's
    timeline when there are few runs; the accuracy curve when every run has real math (a
    time-only run has no evaluation)."""
    summaries = collective_summaries(directories)
    figures = list(COLLECTIVE_FIGURES)
    if len(summaries) <= MAX_DEFAULT_TIMELINES:
        figures.append("timeline")
    if all(c.get("math") == "real" for c in summaries):
        figures.append("accuracy")
    return figures


DRAW = {"accuracy": figure_accuracy, "gradients": figure_gradients,
        "utilisation": figure_utilisation, "time": figure_time, "loss": figure_loss}


def write_figures(drawings, formats, outdir):
    """Draws every figure, (file name without extension, function returning the figure), to
    temporary files in outdir, then renames them all into place."""
    import matplotlib.pyplot as plt
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        raise OSError(f"{outdir}: cannot create the output directory: {e.strerror}") from None
    written = []  # (temporary, final)
    try:
        for name, draw in drawings:
            fig = draw()
            for fmt in formats:
                final = os.path.join(outdir, f"{name}.{fmt}")
                temporary = os.path.join(outdir, f".{name}.{fmt}.tmp-{os.getpid()}")
                written.append((temporary, final))
                fig.savefig(temporary, format=fmt, dpi=150,
                            metadata={"Date": None} if fmt == "svg" else None)
            plt.close(fig)
        for temporary, final in written:
            os.replace(temporary, final)
    except BaseException:
        for temporary, _ in written:
            if os.path.exists(temporary):
                os.remove(temporary)
        raise
    return [final for _, final in written]


def split_list(text, allowed, option):
    items = [s.strip() for s in text.split(",") if s.strip()]
    if not items:
        raise BadInput(f"{option}: expected a comma-separated list, found {text!r}")
    if allowed:
        bad = [s for s in items if s not in allowed]
        if bad:
            raise BadInput(f"{option}: expected some of {','.join(allowed)}, found {','.join(bad)}")
    return items


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Figures of failsim result directories (docs/plots.md).")
    parser.add_argument("results", nargs="+", metavar="DIR",
                        help="a result directory of `failsim run`, or a directory searched "
                             "recursively for them; for the sweep figure, a sweep directory of "
                             "`failsim sweep`")
    parser.add_argument("-o", "--output", metavar="OUTDIR",
                        help="where the figures go (created if needed; default: DIR/figures "
                             "when one DIR is given)")
    parser.add_argument("--configs", metavar="A,B,...",
                        help="configurations (scenario.name) to show, in this order "
                             "(default: all, sorted by name)")
    parser.add_argument("--figures", metavar="F,...",
                        help=f"figures to draw, among {','.join(FIGURES)} (default: sweep when "
                             f"every DIR is a sweep directory; else, of parameter-server runs, "
                             f"{','.join(RUN_FIGURES)} (and timeline with intervals.csv), of "
                             f"collective runs {','.join(COLLECTIVE_FIGURES)}, timeline with at "
                             f"most {MAX_DEFAULT_TIMELINES} runs and accuracy when every run has "
                             f"real math; and loss when every run is a language model)")
    parser.add_argument("--metric", metavar="M,...",
                        help="sweep figure: the columns of runs.csv to plot, one figure "
                             "sweep-M each (default: those of "
                             f"{','.join(DEFAULT_SWEEP_METRICS)} some run has a value of)")
    parser.add_argument("--x", metavar="PATH",
                        help="sweep figure: the varied path (JSON Pointer) on the x axis, or "
                             f"{BASE_AXIS} for the base scenarios (default: the sweep's first "
                             f"path, {BASE_AXIS} when it varies none)")
    parser.add_argument("--format", default=",".join(FORMATS), metavar="F,...",
                        help=f"file formats (default: {','.join(FORMATS)})")
    parser.add_argument("--title", help="title of every figure, instead of its description")
    args = parser.parse_args(argv)

    try:
        groups = None  # [(result directories, figures)] of the run figures
        if args.figures is not None:
            figures = split_list(args.figures, FIGURES, "--figures")
        elif all(is_sweep_dir(d) for d in args.results):
            figures = ["sweep"]
        else:
            # Each protocol's runs with their own figures (a mixed directory too).
            groups = default_figures(args.results)
            figures = [f for _, fs in groups for f in fs]
        formats = split_list(args.format, FORMATS, "--format")
        if args.output is None:
            if len(args.results) != 1:
                raise BadInput(f"-o: expected an output directory with several DIRs (the "
                               f"figures go to DIR/figures for one), found {len(args.results)}: "
                               f"{', '.join(args.results)}")
            args.output = os.path.join(args.results[0], "figures")
        order = split_list(args.configs, None, "--configs") if args.configs is not None else None
        drawings = []
        if "sweep" in figures:
            if len(args.results) != 1:
                raise BadInput(f"--figures sweep: expected one sweep directory, found "
                               f"{len(args.results)}: {', '.join(args.results)}")
            sweep = Sweep(args.results[0])
            metrics = split_list(args.metric, None, "--metric") if args.metric is not None \
                else sweep.default_metrics()
            x_path = args.x if args.x is not None else sweep.default_x()
            for metric in metrics:
                sweep_series(sweep, metric, x_path)  # checks the metric and path now
                drawings.append((f"sweep-{metric}",
                                 lambda m=metric: figure_sweep(sweep, m, x_path, args.title)))
        else:
            for option, value in (("--metric", args.metric), ("--x", args.x)):
                if value is not None:
                    raise BadInput(f"{option}: expected with --figures sweep only, found "
                                   f"--figures {','.join(figures)}")
        run_figures = [f for f in figures if f != "sweep"]
        if groups is None and run_figures:
            groups = [(args.results, run_figures)]
        if groups:
            drawings += run_drawings(groups, order, args.title)
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return BAD_INPUT

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401  (fails here, not halfway through, if broken)
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"{PROG}: {sys.executable} cannot import matplotlib ({e}); run scripts/setup.sh "
              "or `apt-get install python3-matplotlib`", file=sys.stderr)
        return NO_MATPLOTLIB
    matplotlib.rcParams["svg.hashsalt"] = "failsim"  # identical inputs, identical SVG files

    try:
        files = write_figures(drawings, formats, args.output)
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return OUTPUT_FAILED
    for f in files:
        print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
