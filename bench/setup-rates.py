#!/usr/bin/python3
# bench/setup-rates.py FAILSIM [--quick]: the rates behind the collective set-up limit (the
# constants SETUP_SECONDS_PER_RANK, PLATFORM_SECONDS_PER_*, SETUP_SECONDS_PER_STREAM,
# FIRST_STEP_SECONDS_PER_FLOW and SETUP_BYTES_PER_* of sim/scenario/collective/work.hpp,
# docs/scenario-format.md "Limits"). A collective run builds its plan, its platform, its step
# network and its schedules before its first simulated event, then simulates its first step flow
# by flow. This takes
#   - the plan: the CPU time (user + system) of `failsim run --dry-run` for 1, 2 and 4 million
#     ranks, less a 16-rank one's, fitted to a rate per rank;
#   - the rest: result.json's wall_clock.setup_seconds (the platform, the step network, the
#     schedules) of `failsim run` with a stop of 1 us on variants of up to 32,768 ranks, times the
#     run's CPU time over its wall time (the machine may be shared: the process's share of a core
#     is taken to be the same throughout), fitted by least squares (numpy, Debian's python3-numpy)
#       seconds = ranks x r + accelerators x a + accelerators x nodes x an + nodes x n
#                 + nodes^2 x nn + streams x s;
#     the platform is linear since the fabric zone (an and nn fit to noise), and the two
#     quadratic terms stay in the fit to show it;
#   - the first step: CPU time less setup_seconds of data-parallel jobs of 16 to 64 accelerators
#     a node stopped after one update (none with --quick; --first-step: only these), per rank (a
#     flow each), fitted by least squares, and their peak memory per rank.
# Spares add accelerators and nodes to the platform but no ranks; random processes on the
# accelerators add streams. Prints, never fails. Refit after a change of the platform's
# construction or of how flows start.
import json, os, resource, subprocess, sys, tempfile, time

import numpy as np

failsim = sys.argv[1]
quick = "--quick" in sys.argv
first_step_only = "--first-step" in sys.argv
tmp = tempfile.mkdtemp(prefix="setup-rates-", dir=os.environ.get("TMPDIR", "/tmp"))


def scenario(nodes, per_node, spares=0, processes=False):
    """A time-only job of nodes x per_node ranks, data parallel only, with `spares` spare nodes
    and, with `processes`, a failure and a straggler process on every accelerator that never
    fire before the stop."""
    ranks = nodes * per_node
    never = {"distribution": "fixed", "value": "1000d"}
    # Node 0 fails at 0 s for good: the job starts no step, so the run is its set-up (a first
    # step's flows cost as many SimGrid activities as ranks, which is simulation, not set-up).
    failures = {"events": [{"target": "node", "index": 0, "at": "0s"}]}
    if processes:
        failures["stochastic"] = [{"target": "accelerator", "lifetime": never, "repair": never}]
        failures["stochastic_stragglers"] = [{"target": "accelerator", "every": never,
                                              "duration": never, "slowdown": 2}]
    return {
        "protocol": "collective", "name": f"setup-{nodes}x{per_node}-s{spares}-p{int(processes)}",
        "seed": 1,
        "platform": {
            "node": {"accelerators": per_node, "accelerator_speed": "312Tf",
                     "device_memory": "80GB", "host_memory": "1TiB",
                     "intra_bandwidth": "300GBps", "intra_latency": "1us", "nics": 4,
                     "nic_bandwidth": "200Gbps", "nic_latency": "2us"},
            "nodes": nodes, "spares": spares,
            "topology": {"kind": "fat-tree", "nodes_per_leaf": 16, "spines": 4},
            "file_system": {"write_bandwidth": "20GBps", "read_bandwidth": "40GBps"},
        },
        "layout": {"dp": ranks, "tp": 1, "pp": 1, "zero_stage": 1, "micro_batches": 1},
        "workload": {"transformer": {"parameters": 1e9, "layers": 8, "hidden": 1024,
                                     "sequence": 1, "global_batch_tokens": ranks},
                     "achieved_fraction": 0.4, "math": "none"},
        "stop": {"time": "1us"},
        "failures": failures,
        "recovery": {"strategy": "checkpoint-restart", "checkpoint": {"every_steps": 0}},
        "output": {"timeseries": False, "events": False},
    }


def measure(args):
    """CPU time (user + system), wall time and peak resident memory (bytes) of one failsim
    process, its exit status and its stderr."""
    start = time.perf_counter()
    p = subprocess.Popen([failsim] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    return (usage.ru_utime + usage.ru_stime, wall, p.returncode, err.strip(),
            usage.ru_maxrss * 1024.0)


def write(doc):
    path = os.path.join(tmp, doc["name"] + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def run_for_setup(doc, nodes, per_node):
    """Runs `doc` on one thread: its CPU time, wall time, peak memory and set-up (result.json's
    setup_seconds scaled to CPU time), or None (said) when it failed."""
    out = os.path.join(tmp, "out-" + doc["name"])
    cpu, wall, status, err, rss = measure(["run", write(doc), "-q", "--threads", "1", "-o", out])
    if status != 0:
        print(f"{nodes} x {per_node}: exit {status}: {err[:300]}")
        return None
    with open(os.path.join(out, "result.json")) as f:
        setup = json.load(f)["wall_clock"]["setup_seconds"] * cpu / wall
    return cpu, wall, rss, setup


# (nodes, accelerators a node, spares, processes): ranks, accelerators, nodes and streams apart.
VARIANTS = [(64, 1, 0, False), (512, 1, 0, False), (1024, 1, 0, False), (2048, 1, 0, False),
            (4096, 1, 0, False), (4, 8192, 0, False), (2, 16384, 0, False), (64, 256, 0, False),
            (128, 256, 0, False), (256, 64, 0, False), (512, 32, 0, False), (1024, 16, 0, False),
            (2048, 8, 0, False), (256, 64, 256, False), (1024, 1, 1024, False),
            (2, 16384, 0, True), (256, 64, 0, True)]
PLAN_NODES = [250, 500, 1000]  # of 4,000 accelerators: 1, 2 and 4 million ranks
if quick:
    VARIANTS = [v for v in VARIANTS if v[0] * v[1] <= 16384 and v[0] + v[2] <= 1024]
    PLAN_NODES = [25, 50, 100]
if first_step_only:
    VARIANTS, PLAN_NODES = [], []

base_dry, _, _, _, base_rss = measure(["run", write(scenario(4, 4)), "-q", "--dry-run", "-o",
                             os.path.join(tmp, "base")])
plan_ranks, plan_seconds, plan_bytes = [], [], []
print("plan (--dry-run):      ranks   cpu s  peak MiB more")
for nodes in PLAN_NODES:
    doc = scenario(nodes, 4000)
    cpu, _, status, err, rss = measure(["run", write(doc), "-q", "--dry-run", "-o",
                                        os.path.join(tmp, "dry-" + doc["name"])])
    if status != 0:
        print(f"{nodes} x 4000: exit {status}: {err[:300]}")
        continue
    plan_ranks.append(nodes * 4000)
    plan_seconds.append(cpu - base_dry)
    plan_bytes.append(rss - base_rss)
    print(f"{'':15} {nodes * 4000:11,} {cpu - base_dry:7.2f} {(rss - base_rss) / 2**20:8.0f}")
if plan_ranks:
    plan_rate = float(np.dot(plan_ranks, plan_seconds) / np.dot(plan_ranks, plan_ranks))
    plan_rank_bytes = float(np.dot(plan_ranks, plan_bytes) / np.dot(plan_ranks, plan_ranks))
    print(f"plan: {plan_rate:.3g} s and {plan_rank_bytes:.0f} bytes a rank")

rows, seconds, peak_bytes = [], [], []
print("\nnodes  per node  spares streams      ranks   set-up s (cpu)  run cpu s / wall s  peak MiB")
for nodes, per_node, spares, processes in VARIANTS:
    measured = run_for_setup(scenario(nodes, per_node, spares, processes), nodes, per_node)
    if measured is None:
        continue
    cpu, wall, rss, setup = measured
    ranks = nodes * per_node
    accelerators = (nodes + spares) * per_node
    platform_nodes = nodes + spares
    # A failure process over the platform's accelerators, a straggler process over the job's.
    streams = (accelerators + ranks) if processes else 0
    print(f"{nodes:5} {per_node:9} {spares:7} {streams:7,} {ranks:10,} {setup:15.2f}"
          f"  {cpu:8.2f} / {wall:.2f}  {rss / 2**20:8.0f}")
    rows.append([ranks, accelerators, accelerators * platform_nodes, platform_nodes,
                 platform_nodes ** 2, streams])
    seconds.append(setup)
    peak_bytes.append(rss - base_rss)

if rows:
    NAMES = ["a rank", "an accelerator", "an accelerator x node", "a node", "a node pair",
             "a stream"]
    A = np.array(rows, dtype=float)
    fit, *_ = np.linalg.lstsq(A, np.array(seconds), rcond=None)
    print("\nfit of the rest: " + ", ".join(f"{c:.3g} s {n}" for c, n in zip(fit, NAMES)))
    print(f"a rank in all (the plan's and the rest's): {plan_rate + fit[0]:.3g} s")
    for r, s in zip(rows, seconds):
        print(f"  {int(r[3]):5} nodes, {int(r[1]):9,} accelerators, {int(r[0]):9,} ranks, "
              f"{int(r[5]):9,} streams: measured {s:7.2f} s, model {float(np.dot(fit, r)):7.2f} s")
    # The peak memory of the run (its first step's flows included) over the 16-rank dry run's.
    mem, *_ = np.linalg.lstsq(A[:, [0, 1, 3, 5]], np.array(peak_bytes), rcond=None)
    print("\nmemory: " + ", ".join(f"{c:.0f} bytes {n}"
                                    for c, n in zip(mem, ["a rank", "an accelerator", "a node",
                                                          "a stream"])))
    for r, b in zip(rows, peak_bytes):
        model = float(np.dot(mem, [r[0], r[1], r[3], r[5]]))
        print(f"  {int(r[3]):5} nodes, {int(r[1]):9,} accelerators, {int(r[0]):9,} ranks, "
              f"{int(r[5]):9,} streams: measured {b / 2**20:7.0f} MiB, model {model / 2**20:7.0f} MiB")

# The first step, simulated flow by flow: CPU time less the set-up, per rank (one flow each in
# the step's one set: a ring all-reduce over every rank).
FIRST_STEP = [] if quick else [(512, 16), (1024, 16), (2048, 16), (2048, 32), (2048, 64),
                               (4096, 64)]
if FIRST_STEP:
    print("\nfirst step:      ranks   cpu s  set-up s  step s  s a rank  peak MiB  bytes a rank")
step_ranks, step_seconds = [], []
for nodes, per_node in FIRST_STEP:
    doc = scenario(nodes, per_node)
    doc["failures"] = {}
    doc["stop"] = {"time": None, "updates": 1}
    doc["name"] += "-first-step"
    measured = run_for_setup(doc, nodes, per_node)
    if measured is None:
        continue
    cpu, wall, rss, setup = measured
    ranks = nodes * per_node
    step_ranks.append(ranks)
    step_seconds.append(cpu - setup)
    print(f"{'':11} {ranks:10,} {cpu:7.2f} {setup:9.2f} {cpu - setup:7.2f} "
          f"{(cpu - setup) / ranks:9.2g} {rss / 2**20:9.0f} {rss / ranks:13.0f}")
if step_ranks:
    rate = float(np.dot(step_ranks, step_seconds) / np.dot(step_ranks, step_ranks))
    print(f"first step: {rate:.3g} s a flow (least squares through 0)")
