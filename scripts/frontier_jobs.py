"""Frontier-scale collective jobs as scenario documents, and a capped, measured failsim run.

Shared by bench/frontier-scale.py (what such runs cost) and
scripts/validate-frontier-reliability.py (what they give, beside published figures). A job is
scenarios/cluster/validation/llama3-405b.json (time only: H100 nodes of 8, a replica of
tp 8 x pp 16 = 128 accelerators, 16 micro-batches of one 8,192-token sequence, a blocking
checkpoint every 100 steps, NCCL's 10-min watchdog) with `dp` replicas, as a dict to change
and write where the caller likes (its relative paths made absolute).

Import it from a script in bench/ or scripts/ with this folder on sys.path.
"""
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLAMA3 = os.path.join(ROOT, "scenarios", "cluster", "validation", "llama3-405b.json")
SCHEMA = os.path.join(ROOT, "scenarios", "collective.schema.json")
NODE_PRESET = os.path.join(ROOT, "scenarios", "cluster", "nodes", "h100-8x.json")
DAY = 86400.0
# Meta's RSC-1 cluster (Kokolis et al., HPCA'25, arXiv 2410.21680): 6.50 failures per 1,000
# node-days, a node's mean lifetime 1,000 / 6.50 days.
RSC1_NODE_LIFETIME_DAYS = 1000.0 / 6.50
# A SIGTERMed run answers within a second (docs/cli.md, "Interruptions"); after this, SIGKILL.
KILL_AFTER_TERM_SECONDS = 30.0


def load(path):
    with open(path) as f:
        return json.load(f)


ACCELERATORS_PER_NODE = load(NODE_PRESET)["accelerators"]
# The accelerators of one replica of the shipped job (tp x pp).
REPLICA = load(LLAMA3)["layout"]["tp"] * load(LLAMA3)["layout"]["pp"]


def llama3(name, dp, days):
    """The shipped Llama-3-sized job with `dp` replicas (global batch and nodes to match) for
    `days` simulated days, its relative paths made absolute (the file is written elsewhere)."""
    doc = load(LLAMA3)
    doc["name"] = name
    doc["$schema"] = SCHEMA
    doc["failures"]["rates"]["file"] = os.path.normpath(
        os.path.join(os.path.dirname(LLAMA3), doc["failures"]["rates"]["file"]))
    layout, transformer = doc["layout"], doc["workload"]["transformer"]
    layout["dp"] = dp
    doc["platform"]["nodes"] = dp * layout["tp"] * layout["pp"] // ACCELERATORS_PER_NODE
    transformer["global_batch_tokens"] = dp * layout["micro_batches"] * transformer["sequence"]
    doc["stop"] = {"time": f"{days}d"}
    return doc


def node_failures(doc, lifetime_days, repair):
    """Every node fails with exponential lifetimes of mean `lifetime_days`, repaired after a
    `repair` duration (fixed), instead of the shipped file's rates by cause."""
    doc["failures"] = {
        "detection": doc["failures"]["detection"],
        "stochastic": [{"target": "node",
                        "lifetime": {"distribution": "exponential",
                                     "mean": f"{lifetime_days * DAY:.0f}s"},
                        "repair": {"distribution": "fixed", "value": repair}}]}
    return doc


def rsc1(name, dp, days):
    """The job at `dp` for `days`, every node failing at Meta's RSC-1 rate, back in 15 min
    (scenarios/cluster/validation/rsc1-131k.json is rsc1("rsc1", 1024, 54))."""
    return node_failures(llama3(f"{name}-{dp * REPLICA}", dp, days), RSC1_NODE_LIFETIME_DAYS,
                         "15min")


class Measured:
    """One process: its exit status, stderr, stdout, wall and CPU seconds, peak RSS (bytes),
    whether it was stopped at the cap, and the load average at its start."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def measure(argv, cap, env=None):
    """Runs argv to its end or to `cap` wall seconds (then SIGTERM, SIGKILL 30 s later)."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as err, tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        stopped, lock, exited = threading.Event(), threading.Lock(), [False]

        def stop(sig):  # never after the process is reaped (its pid may be another's then)
            with lock:
                if not exited[0]:
                    stopped.set()
                    os.kill(p.pid, sig)

        timers = [threading.Timer(cap, stop, [signal.SIGTERM]),
                  threading.Timer(cap + KILL_AFTER_TERM_SECONDS, stop, [signal.SIGKILL])]
        for t in timers:
            t.start()
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped yet
        wall = time.perf_counter() - start
        with lock:
            exited[0] = True
        for t in timers:
            t.cancel()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        return Measured(status=p.returncode, stderr=err.read().strip(), stdout=out.read(),
                        wall=wall, cpu=usage.ru_utime + usage.ru_stime,
                        rss=usage.ru_maxrss * 1024.0, capped=stopped.is_set(), load=load_before)


def interrupted_at(stderr):
    """What a SIGTERMed run's message says about how far it got."""
    t = re.search(r"at simulated time ([0-9.e+]+) s", stderr)
    if t:
        return f"at simulated day {float(t.group(1)) / DAY:.2f}"
    where = re.search(r"interrupted by SIGTERM (while [^;]*)", stderr)
    return where.group(1) if where else "nowhere said"
