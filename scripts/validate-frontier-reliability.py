#!/usr/bin/python3
"""Frontier-scale reliability against published figures (docs/validation.md, "Meta's job MTTF
and expected ETTR at frontier scale" and "A 600,000-accelerator job under the Llama 3 cause
mix"). Runs failsim, one run at a time, and prints Markdown tables.

    /usr/bin/python3 scripts/validate-frontier-reliability.py FAILSIM [--part 1|2] [--quick]
        [--cap S] [--seed N]

Part 1 (Kokolis et al., HPCA'25, arXiv 2410.21680: Meta's research clusters RSC-1 and RSC-2):
  (a) job MTTF against job size, 8 to 131,072 GPUs, every node failing at RSC-1's rate
      (6.50 failures per 1,000 node-days): simulated time over the failures failsim drew,
      beside 1 / (N r_f) and Meta's figures;
  (b) Meta's expected-ETTR model, E[ETTR] ~ [1 - N r_f (u0 + dt/2)] / (1 + w/dt), at the
      points the paper quotes, beside failsim's ETTR for the same N, r_f, dt, u0 and w, and
      beside the exact expectation of the process failsim simulates (a renewal argument).
Part 2: the Llama-3-sized job (Llama 3's cause mix, data/failure-rates/llama3-405b.json) at
600,064 accelerators and at 16,384, 30 days, with and without spares (16 per 2,048 nodes).

Jobs are built from scenarios/cluster/validation/llama3-405b.json (scripts/frontier_jobs.py):
a replica is tp 8 x pp 16 = 128 accelerators, so dp = accelerators / 128; below 128
accelerators (8 and 64) a Llama-3-8B-like model on tp 8 x pp 1 (the 405B model does not fit).
Time only. Every run is capped (--cap, SIGTERM): a capped run prints how far it got. Before a
run above 100,000 accelerators the script waits until 17 GiB of memory are available.
--quick runs small sizes only (a check of the script, under a minute).
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frontier_jobs import (ACCELERATORS_PER_NODE, DAY, REPLICA,  # noqa: E402
                           RSC1_NODE_LIFETIME_DAYS, interrupted_at, llama3, load, measure,
                           node_failures, rsc1)

MINUTE, HOUR = 60.0, 3600.0
RSC1_RATE = 6.50e-3  # failures per node-day
RSC2_RATE = 2.34e-3
RATES = {"RSC-1": RSC1_RATE, "RSC-2": RSC2_RATE}
# Meta's job MTTF (hours) against GPUs: published, and projected at 131,072 (failure-data.md).
META_MTTF_HOURS = {8: 47 * 24.0, 1024: 7.9, 16384: 1.8, 131072: 0.23}
LARGE_RUN = 100_000  # accelerators above which a run needs the memory check
MIN_AVAILABLE_GIB = 17.0
# Part 1b: detection (the watchdog's timeout) in every row; the repair is shorter, so the
# failed node is back (replaced) before the job notices and no repair wait is added to u0.
DETECTION_S = 10.0
REPAIR_S = 1.0


def available_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return 0.0


class Runner:
    def __init__(self, failsim, tmp, cap, seed):
        self.failsim, self.tmp, self.cap, self.seed = failsim, tmp, cap, seed
        self.wall = 0.0

    def run(self, doc):
        """Runs `doc` (events and time series not written); returns Measured with .result
        (result.json) or None, and .accelerators."""
        name = doc["name"]
        accelerators = doc["platform"]["nodes"] * ACCELERATORS_PER_NODE
        while accelerators > LARGE_RUN and available_gib() < MIN_AVAILABLE_GIB:
            print(f"<!-- {name}: {available_gib():.1f} GiB available, waiting for "
                  f"{MIN_AVAILABLE_GIB:g} -->", file=sys.stderr, flush=True)
            time.sleep(60)
        doc["output"] = {"timeseries": False, "events": False}
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        out = os.path.join(self.tmp, "out-" + name)
        m = measure([self.failsim, "run", path, "-q", "--threads", "1", "--seed",
                     str(self.seed), "-o", out], self.cap)
        self.wall += m.wall
        m.result = load(os.path.join(out, "result.json")) if m.status == 0 else None
        m.accelerators = accelerators
        print(f"<!-- {name}: {'capped' if m.capped else 'exit ' + str(m.status)}, "
              f"{m.wall:.1f} s wall, {m.rss / 2**30:.2f} GiB -->", file=sys.stderr, flush=True)
        return m


def failed(m):
    """Why a run gave no result, or None."""
    if m.capped:
        return f"stopped at the {m.wall:.0f} s cap, {interrupted_at(m.stderr)}"
    if m.status != 0:
        return f"exit {m.status}: {m.stderr.splitlines()[-1] if m.stderr else ''}"
    return None


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---" if i == 0 else "---:" for i in range(len(header))) + " |")
    for r in rows:
        print("| " + " | ".join(r) + " |", flush=True)
    print()


def hours(h):
    return f"{h / 24:.1f} d" if h >= 48 else f"{h:.2f} h"


# ---- Part 1a: job MTTF against job size ---------------------------------------------------

def small_layout(name, dp, days):
    """Below one replica of 128: tp 8 x pp 1 x dp, a Llama-3-8B-like model (8e9 parameters, 32
    layers, hidden 4,096, 32 heads) that fits, no checkpoints (the failures do not depend on
    them, and without any the steps between failures are taken at once)."""
    doc = node_failures(llama3(name, 1, days), RSC1_NODE_LIFETIME_DAYS, "15min")
    doc["layout"].update(dp=dp, tp=8, pp=1)
    doc["platform"]["nodes"] = dp
    t = doc["workload"]["transformer"]
    t.update(parameters=8.0e9, layers=32, hidden=4096, heads=32)
    t["global_batch_tokens"] = dp * doc["layout"]["micro_batches"] * t["sequence"]
    doc["recovery"]["checkpoint"]["every_steps"] = 0
    return doc


def mttf_jobs(quick):
    """(GPUs, layout, document): simulated long enough for about 400 failures or more."""
    expected = 40 if quick else 400
    days = lambda nodes: math.ceil(expected / (nodes * RSC1_RATE))  # noqa: E731
    jobs = [(8, "tp 8 x pp 1 x dp 1, 8B", small_layout("mttf-8", 1, days(1))),
            (64, "tp 8 x pp 1 x dp 8, 8B", small_layout("mttf-64", 8, days(8)))]
    for dp in ([8] if quick else [8, 128, 1024]):
        gpus = dp * REPLICA
        d = 54 if gpus >= 16384 else days(gpus // ACCELERATORS_PER_NODE)
        jobs.append((gpus, f"tp 8 x pp 16 x dp {dp}, 405B", rsc1("mttf", dp, d)))
    return jobs


def part_mttf(runner, quick):
    print("### Job MTTF against job size at RSC-1's rate\n")
    rows = []
    for gpus, layout, doc in mttf_jobs(quick):
        nodes = gpus // ACCELERATORS_PER_NODE
        formula = 24.0 / (nodes * RSC1_RATE)
        meta = META_MTTF_HOURS.get(gpus)
        meta_cell = "-" if meta is None else hours(meta) + (" (projected)" if gpus == 131072
                                                            else "")
        m = runner.run(doc)
        why = failed(m)
        if why:
            rows.append([f"{gpus:,}", f"{nodes:,}", layout, why, "", "", "", hours(formula),
                         meta_cell])
            continue
        s = m.result["summary"]
        c = s["collective"]
        n = c["failures"]
        sim = s["end_time"] / HOUR / n
        expected = s["end_time"] / DAY * nodes * RSC1_RATE
        rows.append([f"{gpus:,}", f"{nodes:,}", layout, f"{s['end_time'] / DAY:,.0f}",
                     f"{n:,} / {expected:,.0f}", f"{hours(sim)} ± {100 / math.sqrt(n):.0f}%",
                     f"{sim / formula:.3f}", hours(formula), meta_cell])
    table(["GPUs", "nodes", "layout", "simulated days", "failures drawn / expected",
           "failsim: time / failures", "failsim / formula", "1 / (N r_f)", "Meta"], rows)


# ---- Part 1b: Meta's expected-ETTR model --------------------------------------------------

class Point:
    """A row of part 1b: N nodes (dp replicas), a rate, the checkpoint interval dt and the
    restart overhead u0 asked for (None: where Meta's model gives 0.5 with u0 = dt), and what
    the paper says there (or None)."""

    def __init__(self, dp, rate, dt_min, u0_min, quote, days):
        self.dp, self.rate, self.quote, self.days = dp, rate, quote, days
        self.dt = None if dt_min is None else dt_min * MINUTE
        self.u0 = None if u0_min is None else u0_min * MINUTE
        self.nodes = dp * REPLICA // ACCELERATORS_PER_NODE


def meta_ettr(lam, dt, u0, w):
    """Meta's first-order model: lam failures per second of the job."""
    return (1.0 - lam * (u0 + dt / 2.0)) / (1.0 + w / dt)


def renewal_ettr(lam, work, w, detection, busy, repair):
    """The expectation of the process failsim simulates, exponential failures at rate lam (per
    second) on every node in use:
    - training between failures is memoryless: a run of X ~ Exp(lam) keeps floor(X / s)
      segments of `work` seconds, s = work + w (k steps, then the blocking write), so
      E[kept] = work / (e^(lam s) - 1);
    - after a failure, the outage is the detection (later failures join it), then `busy`
      seconds (restart and checkpoint load) that a failure starts again after the node's
      repair: D + (1/lam + repair) (e^(lam busy) - 1) (repair <= D: no wait after detection);
    ETTR = E[kept] / (1/lam + E[outage])."""
    outage = detection + (1.0 / lam + repair) * math.expm1(lam * busy)
    return (work / math.expm1(lam * (work + w))) / (1.0 / lam + outage)


def ettr_doc(name, dp, rate, every_steps, process_start, days):
    doc = node_failures(llama3(name, dp, days), 1.0 / rate, f"{REPAIR_S:g}s")
    doc["failures"]["detection"] = {"kind": "watchdog", "timeout": f"{DETECTION_S:g}s"}
    doc["recovery"] = {"strategy": "checkpoint-restart",
                       "checkpoint": {"every_steps": every_steps, "mode": "blocking"},
                       "restart": {"scheduler_delay": "0s", "process_start": f"{process_start}s",
                                   "init_base": "0s", "init_per_rank": "0s"}}
    return doc


def probe(runner, dp):
    """The step, the blocking write w and the load L at `dp`: one failure of node 0 after four
    steps with a checkpoint every two, nothing else."""
    doc = ettr_doc(f"probe-{dp * REPLICA}", dp, RSC1_RATE, 2, 0, 1)
    doc["failures"] = {"detection": doc["failures"]["detection"],
                       "events": [{"target": "node", "index": 0, "at": "1h",
                                   "down_for": f"{REPAIR_S:g}s"}]}
    doc["stop"] = {"time": "2h"}
    m = runner.run(doc)
    if failed(m):
        raise SystemExit(f"the probe at dp {dp} failed: {failed(m)}")
    c = m.result["summary"]["collective"]
    step = c["step"]["nominal_seconds"]
    w = c["time"]["checkpoint_stall"] / c["checkpoints"]
    load_s = c["time"]["checkpoint_load"]
    return step, w, load_s


def ettr_points(quick):
    """The paper's statements (failure-data.md), and where its model gives 0.5 (u0 = dt)."""
    if quick:
        return [Point(8, RSC1_RATE * 16, 5, 5, None, 20), Point(8, RSC1_RATE * 16, 60, 5, None, 20)]
    big = 782  # 100,096 GPUs
    return [Point(128, RSC1_RATE, 5, 5, "~0.93", 60),
            Point(128, RSC1_RATE, 60, 5, "~0.7", 60),
            Point(big, RSC2_RATE, 2, 2, "0.9", 30),
            Point(big, RSC1_RATE, 2, 2, None, 14),
            Point(big, RSC1_RATE, None, None, None, 14),
            Point(big, RSC2_RATE, None, None, None, 30)]


def half_point(lam, w):
    """The dt = u0 (whole minutes) where Meta's model is nearest 0.5."""
    return min(range(1, 120), key=lambda x: abs(meta_ettr(lam, x * MINUTE, x * MINUTE, w) - 0.5))


def part_ettr(runner, quick):
    print("### Meta's expected-ETTR model beside failsim\n")
    probes = {}
    rows, notes = [], []
    for p in ettr_points(quick):
        if p.dp not in probes:
            probes[p.dp] = probe(runner, p.dp)
            step, w, load_s = probes[p.dp]
            notes.append(f"- dp {p.dp} ({p.dp * REPLICA:,} GPUs, {p.nodes:,} nodes): step "
                         f"{step:.3f} s, blocking write w = {w:.3f} s, load L = {load_s:.2f} s")
        step, w, load_s = probes[p.dp]
        lam = p.nodes * p.rate / DAY
        if p.dt is None:
            x = half_point(lam, w) * MINUTE
            p.dt, p.u0 = x, x
        k = max(1, round(p.dt / step))
        work = k * step
        process_start = round(p.u0 - DETECTION_S - load_s, 3)
        if process_start < 0:
            rows.append([f"{p.dp * REPLICA:,}", "", "", "", "", "", "", "", "", "",
                         f"u0 {p.u0:.0f} s < detection + load {DETECTION_S + load_s:.0f} s"])
            continue
        rate_name = next((n for n, r in RATES.items() if r == p.rate), f"{p.rate * 1e3:g}/1000")
        name = f"ettr-{p.dp * REPLICA}-{rate_name.replace('/', '-per-')}-{p.dt / MINUTE:g}min"
        m = runner.run(ettr_doc(name, p.dp, p.rate, k, process_start, p.days))
        meta_asked = meta_ettr(lam, p.dt, p.u0, w)
        meta_mapped = meta_ettr(lam, work, p.u0, w)
        renewal = renewal_ettr(lam, work, w, DETECTION_S, p.u0 - DETECTION_S, REPAIR_S)
        why = failed(m)
        sim = failures = "-"
        if why:
            sim = why
        else:
            s = m.result["summary"]
            c = s["collective"]
            sim = f"{c['ettr']:.3f}"
            failures = (f"{c['failures']:,} / {lam * s['end_time']:,.0f} "
                        f"({c['restarts']:,} restarts)")
        rows.append([f"{p.dp * REPLICA:,} ({p.nodes:,})", rate_name,
                     f"{p.dt / MINUTE:g} min: {k} × {step:.2f} s = {work / MINUTE:.2f} min",
                     f"{p.u0 / MINUTE:g} min", f"{w:.2f} s", p.quote or "-",
                     f"{meta_asked:.3f}", f"{meta_mapped:.3f}", f"{renewal:.3f}", sim, failures])
    print("\n".join(notes) + "\n")
    table(["GPUs (nodes)", "rate", "Δt: k steps", "u0", "w", "paper", "Meta's model",
           "Meta's model at k steps", "failsim process (renewal)", "failsim ETTR",
           "failures drawn / expected"], rows)


# ---- Part 2: a 600,000-accelerator job under Llama 3's cause mix --------------------------

SPARES_PER_2048 = 16


def part_llama3(runner, quick, days):
    print(f"### The Llama-3-sized job under Llama 3's cause mix, {days} days\n")
    sizes = [8, 64] if quick else [128, 4688]
    spare_sizes = [8, 16, 64] if quick else [128, 256, 512, 4688]
    runs = [(dp, 0) for dp in sizes]
    blocked = False
    for dp in spare_sizes:
        nodes = dp * REPLICA // ACCELERATORS_PER_NODE
        runs.append((dp, max(1, round(nodes * SPARES_PER_2048 / 2048))))
    rows = []
    for dp, spares in runs:
        if spares and blocked and dp != spare_sizes[-1]:
            continue  # a smaller size did not finish: skip to the largest
        doc = llama3(f"llama3-{dp * REPLICA}{f'-spares-{spares}' if spares else ''}", dp, days)
        doc["platform"]["spares"] = spares
        m = runner.run(doc)
        nodes = doc["platform"]["nodes"]
        head = [f"{dp * REPLICA:,}", f"{nodes:,}", f"{spares:,}"]
        why = failed(m)
        if why:
            blocked = blocked or bool(spares)
            rows.append(head + [why] + [""] * 10 + [f"{m.wall:.0f}", f"{m.rss / 2**30:.1f}"])
            continue
        s = m.result["summary"]
        c = s["collective"]
        t = {k: v / HOUR for k, v in c["time"].items()}
        rows.append(head + [f"{c['ettr']:.3f}", f"{c['failures']:,}", f"{c['restarts']:,}",
                            f"{c['spares']['swaps']:,}"]
                    + [f"{t[k]:,.1f}" for k in ("lost_work", "detection", "repair_wait",
                                                "restart", "checkpoint_load",
                                                "checkpoint_stall")]
                    + [f"{c['step']['nominal_seconds']:.2f}", f"{m.wall:.0f}",
                       f"{m.rss / 2**30:.1f}"])
    table(["accelerators", "nodes", "spares", "ETTR", "failures", "restarts", "swaps",
           "lost work h", "detection h", "repair wait h", "restart h", "load h",
           "checkpoint writes h", "step s", "wall s", "peak GiB"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("failsim")
    parser.add_argument("--part", choices=["1", "2"], help="only part 1 (Meta) or 2 (600k)")
    parser.add_argument("--quick", action="store_true", help="small sizes: a check of the script")
    parser.add_argument("--cap", type=float, default=1200.0, help="wall seconds a run may take")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=float, default=30, help="part 2's simulated days")
    a = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="frontier-reliability-") as tmp:
        runner = Runner(os.path.abspath(a.failsim), tmp, a.cap, a.seed)
        print(f"validate-frontier-reliability: {a.failsim}, seed {a.seed}, cap {a.cap:g} s"
              f"{', --quick' if a.quick else ''}, {time.strftime('%Y-%m-%d')}\n")
        if a.part in (None, "1"):
            part_mttf(runner, a.quick)
            part_ettr(runner, a.quick)
        if a.part in (None, "2"):
            part_llama3(runner, a.quick, 1 if a.quick else a.days)
    print(f"{time.perf_counter() - start:.0f} s of wall time "
          f"({runner.wall:.0f} s in failsim runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
