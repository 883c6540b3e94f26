#!/usr/bin/env python3
"""The comparison of docs/cluster.md ("The comparison"), from the sweep's results.

    failsim sweep scenarios/sweeps/cluster-comparison.json -j 2
    python3 scripts/comparison-table.py [SWEEP_DIR] [FAILSIM] [TARGET]

Reads the sweep's runs.csv (one row per run) and `failsim table`'s per-configuration means (time
to the target accuracy, cost), and prints one Markdown table per failure pattern: mean over the
seeds, with the half-width of the 95% confidence interval where it matters.
"""
import io
import pathlib
import subprocess
import sys

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parent.parent
SWEEP = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "results/sweeps/cluster-comparison")
FAILSIM = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "build/cli/failsim")
TARGET = float(sys.argv[3]) if len(sys.argv) > 3 else 0.83
CAUSES = ["checkpoint_stall", "lost_work", "detection", "repair_wait", "restart",
          "checkpoint_load", "quorum"]


def ci95(x):
    # Student's t for the seeds' count (5 seeds: 2.776).
    t = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776}.get(len(x), 1.96)
    return t * x.std(ddof=1) / len(x) ** 0.5 if len(x) > 1 else 0.0


def main():
    runs = pd.read_csv(SWEEP / "runs.csv")
    table = pd.read_csv(io.StringIO(subprocess.run(
        [FAILSIM, "table", str(SWEEP), "--format", "csv", "--target", str(TARGET),
         "--plan", "gpu-on-demand"],
        check=True, capture_output=True, text=True).stdout)).set_index("configuration")
    runs["configuration"] = runs["point"]
    runs["strategy"] = runs["point"].str.extract(r"strategy-(.+?)_spares")[0]
    runs["pattern"] = runs["point"].str.extract(r"failures-(.+)$")[0]
    # The transformer posed as takes 4,194,304 tokens a full step (base.json).
    runs["samples_kept_fraction"] = runs["goodput_tokens_per_s"] * runs["end_time_s"] / (
        3000 * 4194304)
    for pattern, rows in runs.groupby("pattern", sort=False):
        print(f"\n**{pattern}** (mean of {rows['seed'].nunique()} seeds; ± the 95% CI's half-width)\n")
        print("| strategy | spares | time to 3,000 steps (min) | ETTR | lost h: " +
              ", ".join(CAUSES) + f" | time to {TARGET:.2f} (min) | final accuracy | "
              "tokens kept / 3,000 full batches | cost on demand ($) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for (strategy, spares), g in rows.groupby(["strategy", "platform_spares"], sort=False):
            conf = g["configuration"].iloc[0]
            t = table.loc[conf]
            lost = ", ".join(f"{g[f'time_{c}_s'].mean() / 3600:.2f}" for c in CAUSES)
            print(f"| {strategy} | {spares} | {g['end_time_s'].mean() / 60:.0f} ± "
                  f"{ci95(g['end_time_s']) / 60:.0f} | {g['ettr'].mean():.3f} ± {ci95(g['ettr']):.3f}"
                  f" | {lost} | {t['time_to_target_s_mean'] / 60:.0f} | "
                  f"{g['final_accuracy'].mean():.4f} | {g['samples_kept_fraction'].mean():.3f} | "
                  f"{t['cost_usd_mean']:.0f} |")


if __name__ == "__main__":
    main()
