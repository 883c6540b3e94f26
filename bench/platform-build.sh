#!/usr/bin/env bash
# The collective platform's construction: CPU seconds of build_cluster_platform from 512 to
# 16,384 nodes of 8 accelerators, beside the platform failsim built before (a SimGrid fat-tree of
# per-node zones, quadratic in the nodes) up to OLD_MAX_NODES (default 4,096; it takes about a
# minute there on an idle machine, and four times more for each doubling beyond). Runs
# bench_platform (bench/bench_platform.cpp: each construction in a child process, its CPU time
# alone) and prints a table with the load average before. Prints, never fails.
# Usage: bench/platform-build.sh [BUILD_DIR] [OLD_MAX_NODES]   (defaults: build, 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:-build}/bench/bench_platform
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "platform-build: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
FAILSIM_BENCH_OLD_MAX_NODES=${2:-4096} "$bench" --benchmark_format=json --benchmark_out="$out" \
  --benchmark_out_format=json >/dev/null
/usr/bin/python3 - "$out" <<'PY'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    kind, nodes = b["name"].split("/")[1:3]
    rows.setdefault(int(nodes), {})[kind] = b
print("| nodes | accelerators | old CPU s | new CPU s | old / new | new CPU µs per node | new peak RSS MiB |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for nodes in sorted(rows):
    old, new = rows[nodes].get("old"), rows[nodes]["new"]
    seconds = lambda b: b["real_time"] / 1e3  # manual time: the child's CPU time, in ms
    print(f"| {nodes:,} | {8 * nodes:,} | {f'{seconds(old):.2f}' if old else '-'} | "
          f"{seconds(new):.2f} | {f'{seconds(old) / seconds(new):.0f}x' if old else '-'} | "
          f"{new['cpu_us_per_node']:.0f} | {new['max_rss_MiB']:.0f} |")
PY
