#!/usr/bin/env python3
"""Young/Daly under a real fault log (docs/validation.md, "Young/Daly under the InfiniteHBD trace").

    python3 scripts/validate-young-daly-trace.py [-j JOBS] [-o DIR] [--failsim PATH]

Runs two sweeps of scenarios/validation/young-daly-trace.json over the checkpoint interval:
the replayed InfiniteHBD trace (one run per interval: the trace is one history) and an
exponential process of the same mean time between fault instants (10 seeds per interval). Then
prints, as Markdown, the efficiency (ETTR: kept work / wall time) at each interval beside Daly's
prediction from the symbols measured in the runs, the optimum interval of each, and writes the
figure docs/figures/young-daly-trace.png.

The sweeps resume (`failsim sweep` skips complete runs): remove DIR to redo everything.
Needs Debian's python3 with numpy and matplotlib (/usr/bin/python3), like analysis/daly.py,
whose formulas it uses.
"""

import argparse
import glob
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "analysis"))
from daly import daly_optimum, daly_time, mean_half_width  # noqa: E402

SWEEPS = ("trace", "halves", "exponential")
DAY = 86400.0


def run_sweeps(failsim, jobs, out):
    for name in SWEEPS:
        sweep = os.path.join(ROOT, "scenarios", "validation", f"young-daly-{name}.sweep.json")
        print(f"validate-young-daly-trace: {name}", file=sys.stderr)
        subprocess.run([failsim, "sweep", sweep, "-j", str(jobs), "-q", "-o",
                        os.path.join(out, name)], check=True)


def read_runs(directory):
    """{(from_day, every_steps): [result, ...]} of one sweep's complete runs."""
    runs = {}
    paths = sorted(glob.glob(os.path.join(directory, "runs", "*", "seed-*", "result.json")))
    if not paths:
        sys.exit(f"validate-young-daly-trace: {directory}: expected runs/*/seed-*/result.json "
                 "(a failsim sweep's output), found none")
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        scenario = result["scenario"]
        every = scenario["recovery"]["checkpoint"]["every_steps"]
        trace = scenario["failures"].get("trace")
        key = (trace["from_day"] if trace else None, every)
        # The resolved scenario says which window of which trace the run replayed.
        collective = dict(result["summary"]["collective"], end_time=result["summary"]["end_time"],
                          stop_time=scenario["stop"]["time"],
                          trace_file=trace["file"] if trace else None)
        runs.setdefault(key, []).append(collective)
    return runs


def by_window(runs):
    """{from_day: {every_steps: [collective summary, ...]}}."""
    out = {}
    for (from_day, every), results in runs.items():
        out.setdefault(from_day, {})[every] = results
    return out


def symbols(runs):
    """Daly's delta (s per checkpoint), R (s per restart, everything but lost work) and the step."""
    ckpt = sum(c["time"]["checkpoint_stall"] for rs in runs.values() for c in rs)
    count = sum(c["checkpoints"] for rs in runs.values() for c in rs)
    down = sum(c["time"][k] for rs in runs.values() for c in rs
               for k in ("detection", "repair_wait", "restart", "checkpoint_load"))
    restarts = sum(c["restarts"] for rs in runs.values() for c in rs)
    step = next(iter(runs.values()))[0]["step"]["nominal_seconds"]
    return ckpt / count, down / restarts, step


def trace_instants(run, from_day):
    """Distinct fault-start instants, in seconds from the window's start, of the trace a run
    replayed, within its window (from_day to from_day + its stop time)."""
    with open(run["trace_file"]) as f:
        events = json.load(f)
    days = run["stop_time"] / DAY
    starts = {e["event_time"] for e in events if e["event_type"] == "fault_start"}
    return sorted((t - from_day) * DAY for t in starts if from_day <= t < from_day + days)


def vertex(xs, ys):
    """The maximum of the parabola through the best grid point and its neighbours, in log x."""
    i = max(range(len(ys)), key=lambda k: ys[k])
    if i == 0 or i == len(ys) - 1:
        return xs[i]
    (a, b, c), (ya, yb, yc) = ([math.log(xs[k]) for k in (i - 1, i, i + 1)],
                               [ys[k] for k in (i - 1, i, i + 1)])
    denominator = (b - a) * (yb - yc) - (b - c) * (yb - ya)
    if denominator == 0:
        return xs[i]
    numerator = (b - a) ** 2 * (yb - yc) - (b - c) ** 2 * (yb - ya)
    return math.exp(b - 0.5 * numerator / denominator)


def lost_share(results, tau, delta):
    """Lost work per restart as a share of (tau + delta): about 1/2 under memoryless failures."""
    lost = sum(c["time"]["lost_work"] for c in results)
    return lost / sum(c["restarts"] for c in results) / (tau + delta)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("-o", "--output", default=os.path.join(ROOT, "results", "validation",
                                                               "young-daly-trace"))
    parser.add_argument("--failsim", default=os.path.join(ROOT, "build", "cli", "failsim"))
    parser.add_argument("--figure", default=os.path.join(ROOT, "docs", "figures",
                                                         "young-daly-trace.png"))
    args = parser.parse_args()
    if args.jobs < 1:
        sys.exit(f"validate-young-daly-trace: -j expects an integer >= 1, found {args.jobs}")
    run_sweeps(args.failsim, args.jobs, args.output)

    whole = by_window(read_runs(os.path.join(args.output, "trace")))[0]
    halves = by_window(read_runs(os.path.join(args.output, "halves")))
    exp_runs = by_window(read_runs(os.path.join(args.output, "exponential")))[None]

    first = next(iter(whole.values()))[0]
    days = first["stop_time"] / DAY
    instants = trace_instants(first, 0)
    M = days * DAY / len(instants)
    gaps = [b - a for a, b in zip(instants, instants[1:])]
    delta, R, step = symbols(exp_runs)
    delta_t, R_t, _ = symbols(whole)
    print(f"step {step:.3f} s; trace: {len(instants)} fault instants in {days:.0f} d, job MTBF "
          f"M = {M / 3600:.2f} h; gaps under 1 h: {sum(g < 3600 for g in gaps) / len(gaps):.0%} "
          f"(an exponential of mean M: {1 - math.exp(-3600 / M):.0%})")
    print(f"measured: delta = {delta:.1f} s per checkpoint (trace runs {delta_t:.1f}); "
          f"R = {R / 60:.1f} min per restart, all but lost work (trace runs {R_t / 60:.1f})")

    intervals = sorted(set(whole) & set(exp_runs))
    taus = [k * step for k in intervals]
    trace_ettr = [whole[k][0]["ettr"] for k in intervals]
    exp_stats = [mean_half_width([c["ettr"] for c in exp_runs[k]]) for k in intervals]
    daly_ettr = [1.0 / daly_time(tau, delta, M, R, 1.0) for tau in taus]
    print()
    print("| checkpoint every | min of work | ETTR, trace | restarts | lost / (τ + δ) | "
          "ETTR, exponential (10 seeds, 95%) | restarts | lost / (τ + δ) | ETTR, Daly |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k, tau, te, (em, eh), de in zip(intervals, taus, trace_ettr, exp_stats, daly_ettr):
        restarts = sum(c["restarts"] for c in exp_runs[k]) / len(exp_runs[k])
        print(f"| {k} steps | {tau / 60:.1f} | {te:.4f} | {whole[k][0]['restarts']} | "
              f"{lost_share(whole[k], tau, delta):.3f} | {em:.4f} ± {eh:.4f} | {restarts:.0f} | "
              f"{lost_share(exp_runs[k], tau, delta):.3f} | {de:.4f} |")

    tau_daly = daly_optimum(delta, M)
    best_trace = vertex(taus, trace_ettr)
    best_exp = vertex(taus, [m for m, _ in exp_stats])
    print()
    print("optimum interval, minutes of work (the best grid point refined by a parabola in "
          "log interval through it and its neighbours):")
    print(f"- Daly's formula (M = {M / 3600:.2f} h, δ = {delta:.0f} s): {tau_daly / 60:.1f}")
    print(f"- exponential of equal mean, simulated: {best_exp / 60:.1f}")
    print(f"- InfiniteHBD trace replayed, {days:.0f} d: {best_trace / 60:.1f}")
    for from_day, runs in sorted(halves.items()):
        half = next(iter(runs.values()))[0]
        length = half["stop_time"] / DAY
        n = len(trace_instants(half, from_day))
        m_half = length * DAY / n
        ettr = [runs[k][0]["ettr"] for k in intervals]
        print(f"- the trace's days {from_day:.0f}-{from_day + length:.0f} ({n} fault instants, "
              f"M = {m_half / 3600:.2f} h): {vertex(taus, ettr) / 60:.1f} (Daly for its M: "
              f"{daly_optimum(delta, m_half) / 60:.1f}); best ETTR {max(ettr):.4f}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, ax = plt.subplots(figsize=(7, 4.2))
    minutes = [t / 60 for t in taus]
    ax.plot(minutes, daly_ettr, "k--", label="Daly (measured δ and R, M of the trace)")
    ax.errorbar(minutes, [m for m, _ in exp_stats], yerr=[h for _, h in exp_stats], fmt="o-",
                color="C0", capsize=3, label="exponential of equal mean (10 seeds, 95% CI)")
    ax.plot(minutes, trace_ettr, "s-", color="C1", label="InfiniteHBD trace replayed")
    for x, color in ((tau_daly, "k"), (best_exp, "C0"), (best_trace, "C1")):
        ax.axvline(x / 60, linestyle=":", color=color)
    ax.set_xscale("log")
    ax.set_xticks([15, 30, 60, 120, 240])
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("checkpoint interval (minutes of work)")
    ax.set_ylabel("ETTR (kept work / wall time)")
    ax.set_title(f"Young/Daly under the InfiniteHBD trace (3,200 H100s, {days:.0f} days)")
    ax.legend(fontsize=8, loc="lower center")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    tmp = args.figure + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, args.figure)
    print(f"figure: {os.path.relpath(args.figure, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
