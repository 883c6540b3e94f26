#!/usr/bin/env python3
"""The figure of docs/cluster.md "The comparison": ETTR against the job's failure rate, one line
per recovery design, from the sweep scenarios/sweeps/cluster-ettr-vs-rate.json.

    failsim sweep scenarios/sweeps/cluster-ettr-vs-rate.json -j 2
    python3 scripts/ettr-vs-rate-figure.py [SWEEP_DIR] [OUTPUT.png]
"""
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SWEEP = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "results/sweeps/cluster-ettr-vs-rate")
OUT = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ROOT / "docs/figures/cluster-ettr-vs-rate.png")
NODES = 8  # scenarios/cluster/comparison/base.json


def main():
    runs = pd.read_csv(SWEEP / "runs.csv")
    runs["strategy"] = runs["point"].str.extract(r"strategy-(.+?)_node-mtbf")[0]
    hours = runs["point"].str.extract(r"node-mtbf-(\d+)h")[0].astype(float)
    runs["job_failures_per_hour"] = NODES / hours
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for strategy, rows in runs.groupby("strategy", sort=False):
        mean = rows.groupby("job_failures_per_hour")["ettr"].mean()
        ax.plot(mean.index, mean.values, marker="o", label=strategy)
        ax.scatter(rows["job_failures_per_hour"], rows["ettr"], s=6, alpha=0.4)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("job failures per hour (8 nodes, each with an exponential lifetime)")
    ax.set_ylabel("ETTR (productive share of the run)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"ETTR against the failure rate, 1,000 steps, mean of "
                 f"{runs['seed'].nunique()} seeds (dots: each run)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.savefig(OUT, dpi=120)
    print(OUT)


if __name__ == "__main__":
    main()
