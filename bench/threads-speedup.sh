#!/usr/bin/env bash
# What threads inside a run buy (issue 8), on wall time, each case run with --threads 1 and then
# --threads 2 (or the sweep with -j 1 against -j 2):
#   1. four async CNN workers (scenarios/examples/cnn-4-async.json, 30 simulated seconds): the
#      gradients of different workers compute on different cores;
#   2. one CNN worker evaluated every simulated second (the study's baseline, 60 s): evaluations
#      overlap training;
#   3. a sweep of 8 one-worker CNN runs (bench/threads-sweep.json): -j 1 with 2 threads per run
#      against -j 2 with 1 thread per run (the sweep's default share of the cores);
#   4. the language model (issue 35): scenarios/cluster/lm/checkpoint-restart.json (dp 4) and
#      scenarios/examples/lm-ps.json (2 workers) as shipped, and the same collective job on one
#      replica of 32 windows (one gradient a step) with model.gradient_parts 1 and 2.
# Other load skews it: the load average before each measurement is printed. Prints, never fails.
# Usage: bench/threads-speedup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
failsim=${1:-build}/cli/failsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs "$@" and prints its wall time in seconds (and the load average before it) on stderr;
# echoes the nanoseconds.
timed() {
  local label=$1
  shift
  local load start ns
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s%N)
  "$@" >/dev/null
  ns=$(( $(date +%s%N) - start ))
  awk -v l="$label" -v ns="$ns" -v load="$load" \
    'BEGIN { printf "threads-speedup: %-44s %7.1f s wall (load average before: %s)\n", l, ns / 1e9, load }' >&2
  echo "$ns"
}
ratio() {
  awk -v what="$1" -v a="$2" -v b="$3" 'BEGIN { printf "threads-speedup: %s: %.2fx as fast\n", what, a / b }' >&2
}

cnn4=(run -q scenarios/examples/cnn-4-async.json --set /stop/time=30s)
a=$(timed "4 async CNN workers, --threads 1" "$failsim" "${cnn4[@]}" --threads 1 -o "$out/c1")
b=$(timed "4 async CNN workers, --threads 2" "$failsim" "${cnn4[@]}" --threads 2 -o "$out/c2")
ratio "4 async CNN workers, 2 threads against 1" "$a" "$b"

one=(run -q scenarios/paper/baseline.json --set /stop/time=60s --set /evaluation/interval=1s)
a=$(timed "1 CNN worker, evaluated every 1 s, --threads 1" "$failsim" "${one[@]}" --threads 1 -o "$out/o1")
b=$(timed "1 CNN worker, evaluated every 1 s, --threads 2" "$failsim" "${one[@]}" --threads 2 -o "$out/o2")
ratio "1 CNN worker with frequent evaluation, 2 threads against 1" "$a" "$b"

a=$(timed "sweep of 8 CNN runs, -j 1 (2 threads each)" "$failsim" sweep bench/threads-sweep.json -q -j 1 -o "$out/s1")
b=$(timed "sweep of 8 CNN runs, -j 2 (1 thread each)" "$failsim" sweep bench/threads-sweep.json -q -j 2 -o "$out/s2")
ratio "sweep, runs side by side against threads inside runs" "$a" "$b"

for lm in scenarios/cluster/lm/checkpoint-restart.json scenarios/examples/lm-ps.json; do
  name=$(basename "$lm" .json)
  a=$(timed "LM $name, --threads 1" "$failsim" run -q "$lm" --threads 1 -o "$out/$name-1")
  b=$(timed "LM $name, --threads 2" "$failsim" run -q "$lm" --threads 2 -o "$out/$name-2")
  ratio "LM $name, 2 threads against 1" "$a" "$b"
done
one=(run -q scenarios/cluster/lm/checkpoint-restart.json --set /layout/dp=1 --set /platform/nodes=1
  --set /platform/node/accelerators=1 --set /optimizer/batch_size=32 --set /failures/events/0/index=0)
for parts in 1 2; do
  a=$(timed "LM one replica, $parts part(s), --threads 1" "$failsim" "${one[@]}" --set /model/gradient_parts=$parts --threads 1 -o "$out/r$parts-1")
  b=$(timed "LM one replica, $parts part(s), --threads 2" "$failsim" "${one[@]}" --set /model/gradient_parts=$parts --threads 2 -o "$out/r$parts-2")
  ratio "LM one replica, $parts part(s), 2 threads against 1" "$a" "$b"
done
