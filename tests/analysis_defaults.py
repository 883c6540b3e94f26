#!/usr/bin/env python3
"""`failsim table`, `plot` and `report` with no options on every shipped example and sweep, of
both protocols (issue 34: the output side picks what a run has, docs/plots.md, docs/tables.md).

    analysis_defaults.py FAILSIM SOURCE_DIR examples|sweeps

examples: runs each scenario of scenarios/examples and scenarios/cluster (cnn-4-async shortened
as tests/wall_estimate.py shortens it), then the three commands on its result directory.
sweeps: runs each sweep of scenarios/sweeps with its first two seeds (runs expected to take more
than RUN_BUDGET seconds stopped earlier); a sweep whose dry run expects more than BUDGET seconds
runs a spread of its runs (`--only`, then `--collect`: the others
"missing", as a half-run sweep is), always its first and last; then the three commands on the
sweep directory. Each command must exit 0, print no traceback and write what it says: a table
with a row, figures, one HTML file. Exit 0 when every check holds, 1 otherwise (each printed).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import wall_estimate  # the examples' shortening and the dry run's estimate, shared

BUDGET = 6.0  # seconds of a sweep's expected runs; beyond it, a spread of them
RUN_BUDGET = 1.5  # seconds of a run; beyond it, the sweep's runs stopped earlier
SEEDS = 2


def check(argv, what, cwd):
    """Runs a command; None when it exited 0 without a traceback, else why not."""
    p = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    if p.returncode != 0 or "Traceback" in p.stderr:
        return f"{what}: exit {p.returncode}: {(p.stderr or p.stdout)[-600:]}"
    return None


def analyse(failsim, directory, tmp, label):
    """The three commands with no options on a result or sweep directory: problems found."""
    problems = []
    table = subprocess.run([failsim, "table", directory], capture_output=True, text=True)
    if table.returncode != 0 or not re.search(r"^\| \S", table.stdout.split("\n", 2)[-1], re.M):
        problems.append(f"{label}: table: exit {table.returncode}: {table.stderr[-600:]}")
    figures = os.path.join(tmp, "figures")
    why = check([failsim, "plot", directory, "-o", figures], f"{label}: plot", tmp)
    if why is None and not any(n.endswith(".svg") for n in os.listdir(figures)):
        why = f"{label}: plot wrote no figure"
    problems += [why] if why else []
    report = os.path.join(tmp, "report.html")
    why = check([failsim, "report", directory, "-o", report], f"{label}: report", tmp)
    if why is None and not os.path.getsize(report):
        why = f"{label}: the report is empty"
    problems += [why] if why else []
    return problems


def examples(failsim, source, tmp):
    problems = []
    for scenario in wall_estimate.shipped_examples(source):
        name = os.path.relpath(scenario, os.path.join(source, "scenarios"))
        out = os.path.join(tmp, name[:-5].replace("/", "-"))
        os.makedirs(out)
        why = check([failsim, "run", scenario, "-q", "-o", os.path.join(out, "run")] +
                    wall_estimate.OVERRIDES.get(os.path.basename(name), []), f"{name}: run", out)
        found = [why] if why else analyse(failsim, os.path.join(out, "run"), out, name)
        print(f"{'BAD' if found else 'ok '} {name}", flush=True)
        problems += found
    return problems


def duration(text):
    """'215s', '30min', '2h' in seconds; None for any other form."""
    m = re.fullmatch(r"([0-9.]+)(s|min|h)", text) if isinstance(text, str) else None
    return float(m.group(1)) * wall_estimate.UNITS[m.group(2)] if m else None


def stop_seconds(scenario):
    """A base scenario's stop.time in seconds, and the time of its last failure event (0
    without one); None when either is written in another form."""
    with open(scenario) as f:
        doc = json.load(f)
    events = [duration(e.get("at")) for e in doc.get("failures", {}).get("events", [])]
    stop = duration(doc.get("stop", {}).get("time"))
    return None if stop is None or None in events else (stop, max(events, default=0.0))


def has_failures(scenario):
    with open(scenario) as f:
        return isinstance(json.load(f).get("failures"), dict)


def shortened(sweep_file, tmp, scale=1.0):
    """A copy of a sweep file with its bases' absolute paths, its first SEEDS seeds, and, for
    `scale` < 1, every run's stop time that much shorter (one value of /stop/time varied)."""
    with open(sweep_file) as f:
        doc = json.load(f)
    here = os.path.dirname(os.path.abspath(sweep_file))
    doc["scenarios"] = [os.path.normpath(os.path.join(here, s)) for s in doc["scenarios"]]
    seeds = doc.get("seeds")
    if isinstance(seeds, dict):
        seeds = list(range(seeds["from"], seeds["to"] + 1))
    if seeds:
        doc["seeds"] = seeds[:SEEDS]
    stops = [stop_seconds(s) for s in doc["scenarios"]]
    if scale < 1 and None not in stops and len({stop for stop, _ in stops}) == 1:
        # Not before a failure event a base has; events a sweep moves past the stop are
        # recorded as not injected (failures.after_stop) rather than refused.
        stop = max(stops[0][0] * scale, max(last for _, last in stops) + 1.0)
        moved = any("/failures/events" in v.get("path", "") for v in doc.get("vary", []))
        if stop < stops[0][0] and (not moved or all(has_failures(s) for s in doc["scenarios"])):
            doc.setdefault("vary", []).append({"path": "/stop/time", "values": [f"{stop:g}s"]})
            if moved:
                doc["vary"].append({"path": "/failures/after_stop", "values": ["record"]})
    copy = os.path.join(tmp, os.path.basename(sweep_file))
    with open(copy, "w") as f:
        json.dump(doc, f)
    return copy


def expected_runs(failsim, sweep, out):
    """(runs, expected seconds of them all) of a sweep's dry run, or None."""
    dry = subprocess.run([failsim, "sweep", sweep, "--dry-run", "-o", out],
                         capture_output=True, text=True)
    runs = re.search(r"(\d+) runs", dry.stdout)
    total = re.search(r"expected wall time of its runs: (.+?) in all", dry.stdout)
    if dry.returncode != 0 or not runs or not total:
        return None
    return int(runs.group(1)), wall_estimate.seconds(total.group(1))


def sweeps(failsim, source, tmp):
    problems = []
    folder = os.path.join(source, "scenarios/sweeps")
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".json")):
        start = time.monotonic()
        work = os.path.join(tmp, name[:-5])
        os.makedirs(work)
        out = os.path.join(work, "sweep")
        sweep = shortened(os.path.join(folder, name), work)
        planned = expected_runs(failsim, sweep, out)
        if planned and planned[1] / planned[0] > RUN_BUDGET:
            sweep = shortened(os.path.join(folder, name), work, RUN_BUDGET * planned[0] / planned[1])
            planned = expected_runs(failsim, sweep, out)
        if not planned:
            problems.append(f"{name}: its dry run fails or prints no estimate")
            print(f"BAD {name}", flush=True)
            continue
        n, expected = planned
        if expected <= BUDGET:
            why = check([failsim, "sweep", sweep, "-q", "-o", out], f"{name}: sweep", work)
            ran = n
        else:
            k = max(2, int(BUDGET / (expected / n)))
            chosen = sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})
            why = None
            for i in chosen:
                why = why or check([failsim, "sweep", sweep, "-q", "-o", out, "--only", str(i)],
                                   f"{name}: run {i}", work)
            # Exit 1 and the runs without a result named: a half-run sweep, collected.
            collect = subprocess.run([failsim, "sweep", sweep, "-q", "-o", out, "--collect"],
                                     capture_output=True, text=True)
            if not why and (collect.returncode != 1 or "no result for runs" not in collect.stderr
                            or not os.path.exists(os.path.join(out, "runs.csv"))):
                why = f"{name}: collect: exit {collect.returncode}: {collect.stderr[-600:]}"
            ran = len(chosen)
        found = [why] if why else analyse(failsim, out, work, name)
        print(f"{'BAD' if found else 'ok '} {name} ({ran} of {n} runs, "
              f"{time.monotonic() - start:.1f} s)", flush=True)
        problems += found
    return problems


def main():
    failsim, source, which = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory(prefix=f"analysis-defaults-{which}-") as tmp:
        problems = (examples if which == "examples" else sweeps)(failsim, source, tmp)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
