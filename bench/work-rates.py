#!/usr/bin/python3
# bench/work-rates.py FAILSIM: the rates behind the collective work limit (the constants
# COLLECTIVE_*_PER_WALL_SECOND of sim/scenario/collective/work.hpp, docs/scenario-format.md
# "Limits"). Runs five variants of scenarios/cluster/llama3-rates.json (16 ranks on 4 nodes, time
# only, steps of 4.07 s) on one thread, each made of one kind of event, and prints what the job
# simulated per wall second. Prints, never fails. Run it on an idle machine: it measures wall time.
import copy, json, os, subprocess, sys, tempfile, time

failsim = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="work-rates-", dir=os.environ.get("TMPDIR", "/tmp"))
with open(os.path.join(root, "scenarios", "cluster", "llama3-rates.json")) as f:
    base = json.load(f)
base["$schema"] = os.path.join(root, "scenarios", "collective.schema.json")
base["failures"] = {}
base["recovery"] = {"strategy": "checkpoint-restart", "checkpoint": {"every_steps": 0}}
base["output"] = {"timeseries": False, "events": True}
DAY = 86400.0


def variant(name, stop_days, failures=None, every_steps=0, mode="blocking"):
    s = copy.deepcopy(base)
    s["name"] = name
    s["stop"] = {"time": f"{stop_days}d"}
    s["failures"] = failures or {}
    s["recovery"]["checkpoint"] = {"every_steps": every_steps, "mode": mode} if every_steps else {
        "every_steps": 0}
    return s


def run(s):
    path = os.path.join(tmp, s["name"] + ".json")
    with open(path, "w") as f:
        json.dump(s, f)
    out = os.path.join(tmp, s["name"])
    start = time.perf_counter()
    p = subprocess.run([failsim, "run", path, "-q", "--threads", "1", "-o", out],
                       stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        print(f"{s['name']}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return wall, None
    with open(os.path.join(out, "result.json")) as f:
        return wall, json.load(f)["summary"]["collective"]


def exponential(mean):
    return {"distribution": "exponential", "mean": mean}


print("variant                         wall s   counted                          per wall s")
rows = [
    ("steps", variant("steps-30d", 30), lambda c: ("steps", c["steps"]["completed"])),
    ("failures", variant("failures-storm-1d", 1, {"stochastic": [
        {"target": "accelerator", "lifetime": exponential("10s"), "repair": exponential("1s")}]}),
     lambda c: ("failures+restarts", c["failures"] + c["restarts"])),
    ("failures", variant("node-failures-100d", 100, {"stochastic": [
        {"target": "node", "lifetime": exponential("4h"), "repair": exponential("10min")}]},
        every_steps=200), lambda c: ("failures+restarts", c["failures"] + c["restarts"])),
    # Spells of 1 min every 10 min on each of 16 accelerators: 16 x 30 d / 11 min expected.
    ("spells", variant("spells-30d", 30, {"stochastic_stragglers": [
        {"target": "accelerator", "every": exponential("10min"),
         "duration": {"distribution": "fixed", "value": "1min"}, "slowdown": 1.5}]}),
     lambda c: ("spells (expected)", 16 * 30 * DAY / 660.0)),
    ("checkpoints", variant("snapshot-every-step-2d", 2, every_steps=1, mode="snapshot"),
     lambda c: ("checkpoints", c["checkpoints"])),
    ("checkpoints", variant("blocking-every-step-2d", 2, every_steps=1),
     lambda c: ("checkpoints", c["checkpoints"])),
]
for kind, s, count in rows:
    wall, c = run(s)
    if c is None:
        continue
    what, n = count(c)
    print(f"{s['name']:<30} {wall:7.2f}   {n:>12,.0f} {what:<20} {n / wall:>10,.0f}  ({kind})")
