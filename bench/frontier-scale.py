#!/usr/bin/python3
"""The benchmarks of issue 33 ("Frontier scale"): what a collective run costs from 16,384 to
600,000 accelerators, and whether it meets the issue's targets. Prints, never fails.

    /usr/bin/python3 bench/frontier-scale.py FAILSIM [--only SUBSTR] [--cap S] [--quick]
        [--figure PATH] [--bench-platform PATH] [--keep DIR]

Each row is a scenario built here (time only, from scenarios/cluster/validation/llama3-405b.json:
H100 nodes of 8, a replica of tp 8 x pp 16 = 128 accelerators, 16 micro-batches of one
8,192-token sequence each, a blocking checkpoint every 100 steps, NCCL's 10-min watchdog) and
run alone with `FAILSIM run -q --threads 1` (docs/performance.md, "Frontier-scale benchmarks"):

  llama3-16k         the shipped file as is: 16,384 accelerators, 54 days, Llama 3's rates;
  llama3-16k-spares  the same with `--set /platform/spares=16`;
  rsc1-131k          dp 1,024 (131,072 accelerators), 54 days, every node failing at Meta's RSC-1
                     rate (6.50 failures per 1,000 node-days: exponential lifetimes of 153.8 d;
                     Kokolis et al., HPCA'25), repaired in 15 min as in the shipped file;
  airesim-100k       dp 784 (100,352 accelerators) + 49 spare nodes, 30 days of work (stop.version
                     = 30 d over the nominal step of the same replica, measured at dp 16),
                     exponential node lifetimes of mean 100 d, fixed repairs of 2 h (AIReSim's job);
  rsc1-600k          dp 4,688 (600,064 accelerators: a replica is 128), 30 days, RSC-1 rate;
  platform-16k       16,384 nodes (131,072 accelerators) stopped at once: node 0 fails at 0 s, so
                     no step starts, and the run ends at 1 us (bench/setup-rates.py's way): the
                     whole set-up, the platform's construction among it;
  platform-16k-bench the construction alone (CPU s of build_cluster_platform, bench/bench_platform),
                     when that benchmark is built (--bench-platform, or next to FAILSIM's build);
  inmem-2k           dp 16 (2,048 accelerators), 7 days, Llama 3's rates, in-memory checkpoints
                     every 10 steps (partner node, the file system every 10th; in-memory.json's).

Per row: the wall time, CPU time (user + system) and peak resident memory of the failsim process
(os.wait4's rusage, its children included), the simulated days, failures, restarts and spare
swaps (result.json's summary), CPU seconds per failure and per node, the 1-min load average at
its start, and the issue's targets with whether they were met (only on a full run: --quick's
jobs are smaller). A run refused by the resolve step prints its message: today's limits
(MAX_CLUSTER_NODES, the set-up limits of sim/scenario/collective/work.hpp) are the baseline. A
run still going after --cap seconds (default 600) gets SIGTERM and prints "over N s" with the
simulated time its interrupt message names.

--figure PATH also runs the shipped job's layout at dp 8 to 4,688 (1,024 to 600,064
accelerators, 54 days, Llama 3's rates) and draws wall time against accelerators, log-log
(matplotlib), with the issue's targets; sizes refused are left out and named. --quick runs
every job scaled down (the script's own check: under a minute). Measure on an idle machine.
--keep DIR writes the scenarios and each run's result directory (DIR/out-KEY) there instead of
a temporary directory, and keeps them: scripts/compare-results.sh compares two binaries' so.
"""
import argparse
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
from frontier_jobs import (ACCELERATORS_PER_NODE, DAY, LLAMA3, REPLICA,  # noqa: E402
                           interrupted_at, llama3, load, measure, node_failures, rsc1)

GIB = 2.0**30


class Job:
    """A row: how to run it (`argv` once prepared) and the issue's targets."""

    def __init__(self, key, title, dp, spares, days, target_wall, target_gib, prepare):
        self.key, self.title = key, title
        self.accelerators = dp * REPLICA
        self.nodes = self.accelerators // ACCELERATORS_PER_NODE
        self.spares, self.days = spares, days
        self.target_wall, self.target_gib = target_wall, target_gib
        self.prepare = prepare  # (Runner) -> argv after FAILSIM run, or a full command


def jobs(quick):
    """The rows of issue 33's table; with `quick`, each scaled down to a few thousand
    accelerators at most."""
    q = quick
    return [
        Job("llama3-16k", "Llama 3 rates, the shipped file", 8 if q else 128, 0, 54, 3, 1,
            lambda r: r.write(llama3("llama3-1k", 8, 54)) if q else [LLAMA3]),
        Job("llama3-16k-spares", "the same, 16 spares", 8 if q else 128, 2 if q else 16, 54, 10, 1,
            lambda r: (r.write(llama3("llama3-1k", 8, 54)) if q else [LLAMA3])
            + ["--set", f"/platform/spares={2 if q else 16}"]),
        Job("rsc1-131k", "RSC-1 rate", 16 if q else 1024, 0, 54, 60, 4,
            lambda r: r.write(rsc1("rsc1", 16 if q else 1024, 54))),
        Job("airesim-100k", "AIReSim's job: lifetimes 100 d, repairs 2 h", 16 if q else 784,
            1 if q else 49, 30, 30, 4, lambda r: r.write_airesim(16 if q else 784, 1 if q else 49)),
        Job("rsc1-600k", "RSC-1 rate", 32 if q else 4688, 0, 30, 300, 16,
            lambda r: r.write(rsc1("rsc1", 32 if q else 4688, 30))),
        Job("platform-16k", "platform construction, failsim run stopped at once",
            64 if q else 1024, 0, 0, 10, None,
            lambda r: r.write(stopped_at_once(64 if q else 1024))),
        Job("platform-16k-bench", "platform construction alone (bench_platform, CPU s)",
            64 if q else 1024, 0, 0, 10, None, lambda r: r.bench_platform_argv()),
        Job("inmem-2k", "in-memory checkpoints every 10 steps", 2 if q else 16, 0,
            1 / 12 if q else 7, 10, None, lambda r: r.write(in_memory(2 if q else 16, 2 if q else 7 * 24))),
    ]


def stopped_at_once(dp):
    """The job's set-up alone: node 0 fails at 0 s for good, so no step starts (a first step's
    flows are simulation, and cut short by the stop they cost time quadratic in their number)."""
    doc = llama3(f"platform-{dp * REPLICA // ACCELERATORS_PER_NODE}-nodes", dp, 1)
    doc["stop"] = {"time": "1us"}
    doc["failures"] = {"detection": doc["failures"]["detection"],
                       "events": [{"target": "node", "index": 0, "at": "0s"}]}
    return doc


def in_memory(dp, hours):
    doc = llama3(f"in-memory-{dp * REPLICA}", dp, 1)
    doc["stop"] = {"time": f"{hours}h"}
    doc["recovery"] = {"strategy": "in-memory",
                       "in_memory": {"every_steps": 10, "host_copy_bandwidth": "50GBps",
                                     "placement": "partner-node", "file_system_every": 10}}
    return doc


class Runner:
    def __init__(self, failsim, tmp, cap, bench_platform):
        self.failsim, self.tmp, self.cap, self.bench_platform = failsim, tmp, cap, bench_platform

    def write(self, doc):
        path = os.path.join(self.tmp, doc["name"] + ".json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        return [path]

    def nominal_step(self, dp):
        """The nominal step (s) of the shipped job's replica at `dp`, failure-free, one update."""
        doc = llama3(f"step-probe-{dp}", dp, 1)
        doc["failures"] = {}
        doc["stop"] = {"updates": 1}
        doc["output"] = {"timeseries": False, "events": False}
        m = self.run(self.write(doc), "step-probe")
        if m.status != 0:
            raise RuntimeError(f"the step probe failed: exit {m.status}: {m.stderr[-300:]}")
        return m.result["summary"]["collective"]["step"]["nominal_seconds"]

    def write_airesim(self, dp, spares):
        """AIReSim's job: 30 days of work (stop.version), node lifetimes 100 d, repairs 2 h."""
        step = self.nominal_step(16)
        doc = node_failures(llama3(f"airesim-{dp * REPLICA}", dp, 30), 100.0, "2h")
        doc["platform"]["spares"] = spares
        doc["stop"] = {"version": math.ceil(30 * DAY / step)}
        return self.write(doc)

    def bench_platform_argv(self):
        if not self.bench_platform or not os.access(self.bench_platform, os.X_OK):
            raise RuntimeError("bench_platform not found (cmake --build BUILD --target "
                               "bench_platform; --bench-platform PATH)")
        return None  # run by run_bench_platform

    def run(self, args, key):
        out = os.path.join(self.tmp, "out-" + key)
        m = measure([self.failsim, "run", *args, "-q", "--threads", "1", "-o", out], self.cap)
        m.result = None
        if m.status == 0:
            m.result = load(os.path.join(out, "result.json"))
        return m

    def run_bench_platform(self, nodes):
        env = dict(os.environ, FAILSIM_BENCH_OLD_MAX_NODES="0")
        report = os.path.join(self.tmp, f"bench-platform-{nodes}.json")
        m = measure([self.bench_platform, f"--benchmark_filter=^platform/new/{nodes}/",
                     f"--benchmark_out={report}", "--benchmark_out_format=json"], self.cap, env)
        m.result = None
        if m.status == 0:
            runs = load(report)["benchmarks"] if os.path.getsize(report) else []
            if runs and "error_message" not in runs[0]:
                m.result = runs[0]
            elif runs:
                m.status, m.stderr = 1, runs[0]["error_message"]
            else:
                m.status, m.stderr = 1, f"no benchmark platform/new/{nodes} (512 to 16,384 nodes)"
        return m


class Row:
    """A row's cells, as printed."""

    def __init__(self, job):
        self.job = job
        self.days = self.wall = self.cpu = self.rss = self.failures = self.restarts = "-"
        self.per_failure = self.per_node = self.load = "-"
        self.verdict = ""
        self.wall_s = None  # for the figure

    def measured(self, m):
        self.wall, self.cpu = f"{m.wall:.2f}", f"{m.cpu:.2f}"
        self.rss, self.load, self.wall_s = f"{m.rss / 2**20:.0f} MiB", f"{m.load:.1f}", m.wall


def fill_run(row, m, quick):
    """The cells of a failsim run's row."""
    job = row.job
    row.measured(m)
    if m.capped:
        row.verdict = f"over {m.wall:.0f} s: {interrupted_at(m.stderr)}"
        return
    if m.status != 0:
        kind = "refused" if m.status == 2 else f"failed (exit {m.status})"
        row.verdict = f"{kind}: {m.stderr.splitlines()[-1] if m.stderr else ''}"
        return
    s = m.result["summary"]
    c = s["collective"]
    row.days = f"{s['end_time'] / DAY:.2f}"
    row.failures = str(c["failures"])
    row.restarts = f"{c['restarts']} / {c['spares']['swaps']}"
    row.per_failure = f"{m.cpu / c['failures']:.3g}" if c["failures"] else "-"
    row.per_node = f"{m.cpu / (job.nodes + job.spares):.3g}"
    if job.key == "platform-16k":
        row.verdict = f"set-up {m.result['wall_clock']['setup_seconds']:.2f} s; "
    row.verdict += verdict(job, m.wall, m.rss, quick)


def fill_bench(row, m, quick):
    """The cells of the bench_platform row: the construction's CPU time is the figure."""
    row.measured(m)
    if m.status != 0 or m.capped:
        row.verdict = (f"over {m.wall:.0f} s" if m.capped
                       else f"failed (exit {m.status}): {m.stderr[-300:]}")
        return
    construction = m.result["real_time"] / 1e3  # manual time: the child's CPU s, in ms
    row.cpu = f"{construction:.2f}"
    row.rss = f"{m.result['max_rss_MiB']:.0f} MiB"
    row.per_node = f"{construction / row.job.nodes:.3g}"
    row.wall_s = construction
    row.verdict = verdict(row.job, construction, m.result["max_rss_MiB"] * 2**20, quick)


def verdict(job, wall, rss, quick):
    if job.target_wall is None:
        return "ended"
    if quick:
        return "n/a (--quick)"
    missed = []
    if wall > job.target_wall:
        missed.append(f"wall {wall:.1f} s > {job.target_wall} s")
    if job.target_gib is not None and rss > job.target_gib * GIB:
        missed.append(f"memory {rss / GIB:.2f} GiB > {job.target_gib} GiB")
    return "met" if not missed else "missed: " + ", ".join(missed)


def run_row(runner, job, quick):
    row = Row(job)
    try:
        args = job.prepare(runner)
    except RuntimeError as e:
        row.verdict = f"not run: {e}"
        return row
    if args is None:
        fill_bench(row, runner.run_bench_platform(job.nodes), quick)
    else:
        fill_run(row, runner.run(args, job.key), quick)
    return row


HEADER = ["job", "accelerators", "nodes", "days", "wall s", "CPU s", "peak RSS", "failures",
          "restarts / swaps", "CPU s / failure", "CPU s / node", "target wall", "target memory",
          "load", "result"]


def print_row(row):
    j = row.job
    nodes = f"{j.nodes:,}" + (f" + {j.spares}" if j.spares else "")
    cells = [f"{j.key}: {j.title}", f"{j.accelerators:,}", nodes,
             f"{row.days} of {j.days:g}" if j.days else row.days, row.wall, row.cpu, row.rss,
             row.failures, row.restarts, row.per_failure, row.per_node,
             f"≤ {j.target_wall} s" if j.target_wall else "",
             f"≤ {j.target_gib} GiB" if j.target_gib else "", row.load, row.verdict]
    print("| " + " | ".join(cells) + " |", flush=True)


def print_header(title):
    print(f"\n{title}\n")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "|".join(" --- " if i in (0, len(HEADER) - 1) else " ---: "
                         for i in range(len(HEADER))) + "|", flush=True)


# The targets of wall time, by accelerators (drawn on the figure).
TARGETS = [(16384, 3), (131072, 60), (600000, 300)]


def sweep_jobs(quick):
    dps = [1, 2, 4, 8] if quick else [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4688]
    return [Job(f"sweep-{dp * REPLICA}", "Llama 3 rates, the shipped layout", dp, 0, 54, None,
                None, lambda r, dp=dp: r.write(llama3(f"sweep-{dp * REPLICA}", dp, 54)))
            for dp in dps]


def draw(rows, path, cap):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    done = [(r.job.accelerators, r.wall_s) for r in rows
            if r.wall_s is not None and not r.verdict.startswith(("over", "refused", "failed"))]
    over = [(r.job.accelerators, r.wall_s) for r in rows if r.verdict.startswith("over")]
    refused = [r.job.accelerators for r in rows if r.verdict.startswith(("refused", "failed"))]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    if done:
        ax.plot(*zip(*done), "o-", label="failsim run, --threads 1 (wall s)")
    if over:
        ax.plot(*zip(*over), "^", color="tab:red", label=f"stopped at the cap ({cap:g} s)")
    ax.plot(*zip(*TARGETS), "x", color="black", label="issue 33's targets")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("accelerators (Llama-3-405B layout, 54 simulated days, Llama 3's rates)")
    ax.set_ylabel("wall time (s)")
    if refused:
        ax.set_title("refused: " + ", ".join(f"{a:,}" for a in refused), fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"\nfigure: {path}" + (f" (left out, refused: {', '.join(f'{a:,}' for a in refused)})"
                                  if refused else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("failsim")
    parser.add_argument("--only", help="run only the rows whose key holds this")
    parser.add_argument("--cap", type=float, default=600.0, help="wall seconds a run may take")
    parser.add_argument("--quick", action="store_true", help="every job scaled down")
    parser.add_argument("--figure", help="also sweep the Llama-3 layout's sizes and draw this")
    parser.add_argument("--bench-platform", help="bench_platform (default: next to FAILSIM's)")
    parser.add_argument("--keep", help="write the scenarios and results here, and keep them")
    a = parser.parse_args()
    failsim = os.path.abspath(a.failsim)
    bench = a.bench_platform or os.path.join(os.path.dirname(os.path.dirname(failsim)), "bench",
                                             "bench_platform")
    selected = lambda js: [j for j in js if a.only is None or a.only in j.key]
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="frontier-scale-") as tmp:
        if a.keep:
            tmp = os.path.abspath(a.keep)
        runner = Runner(failsim, tmp, a.cap, bench)
        print(f"frontier-scale: {failsim}{' (--quick)' if a.quick else ''}, cap {a.cap:g} s, "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
        print_header("Issue 33's benchmarks")
        for job in selected(jobs(a.quick)):
            print_row(run_row(runner, job, a.quick))
        if a.figure:
            print_header("Sweep of the Llama-3-sized job's layout (the figure)")
            rows = []
            for job in selected(sweep_jobs(a.quick)):
                rows.append(run_row(runner, job, a.quick))
                print_row(rows[-1])
            draw(rows, a.figure, a.cap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
