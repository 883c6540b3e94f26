#!/usr/bin/env bash
# Simulation benchmarks of issue 3 (they print, never fail):
#   overhead: a CNN run's wall time against the wall time of its math alone, on one thread
#             (--threads 1): math_seconds is summed over the threads, so with several it can
#             exceed the wall time and the share would mean nothing (docs/performance.md);
#   scale: 1 server + 1,000 async workers, softmax, 100,000 updates: updates per wall second and
#          peak memory.
# Usage: bench/run_simulation_benchmarks.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
failsim=${1:-build}/cli/failsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

report() {  # result dir, label, overhead: whether to print the simulator overhead
  /usr/bin/python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
w, s = r["wall_clock"], r["summary"]
run = w["total_seconds"] - w["setup_seconds"]
line = (f"{sys.argv[2]}: {s['updates']} updates, {s['gradients']['computed']} gradients in "
        f"{s['end_time']:.1f} simulated s; wall {w['total_seconds']:.2f} s "
        f"(setup {w['setup_seconds']:.2f} s, math {w['math_seconds']:.2f} thread-s); ")
if sys.argv[3]:
    # One thread: math thread-seconds are wall seconds of the simulation thread.
    line += (f"simulator overhead {100 * (run - w['math_seconds']) / run:.1f}% of the run after "
             f"setup (one thread: wall time not spent in math); ")
print(line + f"{s['updates'] / run:,.0f} updates per wall second")
PY
}

sed 's/"time": "100s"/"time": "30s"/' scenarios/examples/cnn-4-async.json > "$out/cnn.json"
"$failsim" run "$out/cnn.json" -q --threads 1 -o "$out/cnn"
report "$out/cnn" "overhead (CNN, 4 async workers, 30 simulated s, --threads 1)" overhead

/usr/bin/time -f "%M" -o "$out/rss" "$failsim" run bench/scale-1000-workers.json -q -o "$out/scale"
report "$out/scale" "scale (1,000 async workers, softmax)"
echo "scale: peak memory $(( $(cat "$out/rss") / 1024 )) MiB"
