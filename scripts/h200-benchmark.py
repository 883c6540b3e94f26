#!/usr/bin/env python3
"""The vendor's 64-H200 benchmark's shape (docs/cluster.md, "Against the 64-H200 benchmark").

    python3 scripts/h200-benchmark.py sweep              # writes scenarios/sweeps/h200-benchmark.json
    failsim sweep scenarios/sweeps/h200-benchmark.json -j 2
    python3 scripts/h200-benchmark.py table [SWEEP_DIR]  # the table of docs/cluster.md

The benchmark injected a failure every 2,700-4,500 s; failsim's failure processes are per
component, so the sweep writes the job's failures out as failures.events instead: SCHEDULES
schedules (one a seed of Python's random), each failure a uniform draw of 2,700-4,500 s after the
one before, on a node drawn among those the job uses then (every platform node but the one in the
pool: the spare at first, then the node that failed last, back after REPAIR and never failing
again before the next failure, which is at least 2,700 s away). The designs see the same failures.
"""
import json
import pathlib
import random
import sys

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parent.parent
SWEEP_FILE = ROOT / "scenarios/sweeps/h200-benchmark.json"
SCHEDULES = 5
NODES = 9  # 8 job nodes and 1 spare
HORIZON = 86400.0  # the base scenario's stop.time: 1 d
REPAIR = "10min"
RESTART = {"scheduler_delay": "60s", "process_start": "30s", "init_base": "5s",
           "init_per_rank": "5ms"}
CHECKPOINT = {"every_steps": 100, "mode": "blocking"}


def schedule(seed):
    draw = random.Random(seed)
    events, at, pool = [], 0.0, NODES - 1
    while True:
        at += round(draw.uniform(2700.0, 4500.0), 1)
        if at >= HORIZON:
            return events
        node = draw.choice([n for n in range(NODES) if n != pool])
        events.append({"target": "node", "index": node, "at": at, "down_for": REPAIR})
        pool = node


def write_sweep():
    sweep = {
        "name": "h200-benchmark",
        "description": "The vendor's 64-H200 benchmark's shape (docs/cluster.md, 'Against the 64-H200 benchmark'; written by scripts/h200-benchmark.py): checkpoint-restart (a checkpoint every 100 steps) and live migration to a warm standby on scenarios/cluster/comparison/h200-benchmark.json, each with one spare node, under 5 schedules of a failure every 2,700-4,500 s (uniform), detected by NCCL's watchdog after 5 min or by missed heartbeats (every 5 s, 2 missed): 20 runs, time only, time to 3,000 steps.",
        "scenarios": ["../cluster/comparison/h200-benchmark.json"],
        "seeds": [1],
        "vary": [
            {"path": "/recovery", "label": "strategy",
             "names": ["checkpoint-restart", "live-migration"],
             "values": [{"strategy": s, "checkpoint": CHECKPOINT, "restart": RESTART}
                        for s in ("checkpoint-restart", "live-migration")]},
            {"path": "/failures/detection", "label": "detection",
             "names": ["watchdog-5min", "heartbeat-5s"],
             "values": [{"kind": "watchdog", "timeout": "5min"},
                        {"kind": "heartbeat", "interval": "5s", "misses": 2}]},
            {"path": "/failures/events", "label": "schedule",
             "names": [str(k) for k in range(1, SCHEDULES + 1)],
             "values": [schedule(k) for k in range(1, SCHEDULES + 1)]},
        ],
    }
    SWEEP_FILE.write_text(json.dumps(sweep, indent=2) + "\n")


def table(sweep_dir):
    runs = pd.read_csv(sweep_dir / "runs.csv")
    runs["strategy"] = runs["point"].str.extract(r"strategy-(.+?)_detection")[0]
    runs["detection"] = runs["point"].str.extract(r"detection-(.+?)_schedule")[0]
    runs["minutes"] = runs["end_time_s"] / 60.0
    causes = ["lost_work", "detection", "restart", "checkpoint_load"]
    print("| strategy | detection | time to 3,000 steps (min): mean (range) | failures | ETTR | "
          "lost min per failure: " + ", ".join(causes) + " |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (strategy, detection), g in runs.groupby(["strategy", "detection"], sort=False):
        per_failure = ", ".join(f"{(g[f'time_{c}_s'] / g['failures']).mean() / 60:.2f}"
                                for c in causes)
        print(f"| {strategy} | {detection} | {g['minutes'].mean():.0f} "
              f"({g['minutes'].min():.0f}-{g['minutes'].max():.0f}) | "
              f"{g['failures'].mean():.1f} | {g['ettr'].mean():.3f} | {per_failure} |")


def main():
    if sys.argv[1:2] == ["sweep"]:
        write_sweep()
    elif sys.argv[1:2] == ["table"]:
        table(pathlib.Path(sys.argv[2]) if len(sys.argv) > 2
              else ROOT / "results/sweeps/h200-benchmark")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
