#!/usr/bin/env python3
"""Job mean time to failure against job size (docs/validation.md, "Job MTTF against job size").

From two per-node failure rates nobody here wrote, the job MTTF of a job on N nodes, when every
node's failure stops the job and failures are independent and memoryless: MTTF_job = MTBF_node / N
(what failsim's random failure processes give, one stream per component). Printed beside Meta's
published figures for its research clusters (Kokolis et al. 2024).

- InfiniteHBD: `failsim trace fit` of the shipped trace over its 400 servers (per-node MTBF).
- Llama 3: data/failure-rates/llama3-405b.json, its interruptions per node over the window.

Usage: python3 scripts/validate-job-mttf.py [FAILSIM]   (default build/cli/failsim)
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FAILSIM = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/cli/failsim")
GPUS_PER_NODE = 8
# Meta's research clusters: job MTTF at 8, 1,024 and 16,384 GPUs (failure-data.md).
META_HOURS = {8: 47 * 24.0, 1024: 7.9, 16384: 1.8}


def days(text):
    if not text.endswith("d"):
        raise SystemExit(f"expected a window in days such as \"54d\", found {text!r}")
    return float(text[:-1])


def main():
    fit = json.loads(subprocess.run(
        [FAILSIM, "trace", "fit", str(ROOT / "data/traces/infinitehbd/fault_trace.json"),
         "--nodes", "400", "--json"], check=True, capture_output=True, text=True).stdout)
    rates = json.loads((ROOT / "data/failure-rates/llama3-405b.json").read_text())
    interruptions = sum(c["count"] for c in rates["causes"])
    llama_node_hours = rates["population"]["node"] * days(rates["window"]) * 24.0 / interruptions
    sources = {"InfiniteHBD trace": fit["node_mtbf_hours"], "Llama 3 rates": llama_node_hours}
    print("per-node MTBF: " + ", ".join(f"{k} {v / 24:.0f} days" for k, v in sources.items()))
    print()
    print("| GPUs | nodes | " + " | ".join(sources) + " | Meta (published) | Meta's per-node MTBF implied |")
    print("| ---: | ---: |" + " ---: |" * (len(sources) + 2))
    for gpus, meta in META_HOURS.items():
        nodes = gpus // GPUS_PER_NODE
        cells = [fmt(h / nodes) for h in sources.values()]
        print(f"| {gpus:,} | {nodes:,} | " + " | ".join(cells) +
              f" | {fmt(meta)} | {meta * nodes / 24:.0f} days |")


def fmt(hours):
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} h"


if __name__ == "__main__":
    main()
