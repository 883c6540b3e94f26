#!/usr/bin/env python3
# bench/collective-scale.py FAILSIM: the collective protocol's cost (docs/performance.md,
# "Collective protocol"). Prints, never fails:
#  1. a 64-rank data-parallel job with real softmax math (scenarios/cluster/dp64-7b.json without
#     its failure), 3,000 steps on one thread: wall seconds;
#  2. hybrid jobs of 64, 256, 1,024 and 4,096 ranks (tp 8 x pp 4 x dp, a 70B pose, time only),
#     200 steps with every step's flows simulated (--simulate-every-step) and with the idle
#     step's times reused (the default): flows per step and wall milliseconds per step.
# Run it on an idle machine: it measures wall time.
import json, os, subprocess, sys, tempfile, time

failsim = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="collective-scale-", dir=os.environ.get("TMPDIR", "/tmp"))


def run(scenario, extra=()):
    path = os.path.join(tmp, scenario["name"] + ".json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(tmp, scenario["name"])
    start = time.perf_counter()
    p = subprocess.run([failsim, "run", path, "-q", "-o", out, *extra],
                       stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        print(f"  {scenario['name']}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return wall, None
    with open(os.path.join(out, "result.json")) as f:
        return wall, json.load(f)


# 1. The 64-rank data-parallel job with real math.
with open(os.path.join(root, "scenarios", "cluster", "dp64-7b.json")) as f:
    dp64 = json.load(f)
dp64["name"] = "dp64-3000"
dp64["$schema"] = os.path.join(root, "scenarios", "collective.schema.json")
dp64["platform"]["node"] = "h100-8x"
dp64.pop("failures", None)
dp64["stop"] = {"updates": 3000}
dp64["evaluation"] = {"interval": "10min", "test_subset": 2000}
wall, result = run(dp64, ["--threads", "1"])
if result:
    c = result["summary"]["collective"]
    print(f"dp64 real softmax: {c['steps']['completed']} steps, {wall:.2f} s wall on 1 thread "
          f"({result['wall_clock']['math_seconds']:.2f} s of it math), "
          f"{c['step']['flows']} flows per simulated step")

# 2. Hybrid jobs, time only.
print("ranks  nodes  flows/step  every step: ms/step  reused: ms/step")
for nodes in (8, 32, 128, 512):
    ranks = nodes * 8
    dp = ranks // 32
    scenario = {
        "protocol": "collective", "name": f"hybrid-{ranks}", "seed": 1,
        "platform": {"node": "h100-8x", "nodes": nodes,
                     "topology": {"nodes_per_leaf": 16, "spines": 8},
                     "file_system": {"write_bandwidth": "200GBps", "read_bandwidth": "400GBps"}},
        "layout": {"dp": dp, "tp": 8, "pp": 4, "zero_stage": 1, "micro_batches": 16,
                   "dp_algorithm": "hierarchical"},
        "workload": {"transformer": {"parameters": 70e9, "layers": 80, "hidden": 8192,
                                     "sequence": 4096, "global_batch_tokens": 4096 * 16 * dp},
                     "achieved_fraction": 0.4, "math": "none"},
        "stop": {"updates": 200},
    }
    row = []
    for extra in (["--simulate-every-step"], []):
        wall, result = run(scenario, extra)
        row.append((wall, result))
    flows = row[0][1]["summary"]["collective"]["step"]["flows"] if row[0][1] else "?"
    per_step = [f"{1000 * w / 200:.2f}" if r else "failed" for w, r in row]
    print(f"{ranks:5}  {nodes:5}  {flows:>10}  {per_step[0]:>19}  {per_step[1]:>15}")
