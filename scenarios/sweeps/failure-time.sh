#!/usr/bin/env bash
# The sweep of failure-time.json written as a plain shell loop, the way a user's own batch
# script sweeps failure timings: each run is `failsim run` of a paper scenario with the kill
# moved by --set, named after its point so that `failsim table` groups the seeds of a point.
# It runs one after the other and redoes everything; `failsim sweep failure-time.json` runs
# the same 150 runs in parallel, resumably, and also writes runs.csv (docs/sweeps.md).
#
#   bash scenarios/sweeps/failure-time.sh [OUT]      # from the repository root
#
# OUT defaults to results/failure-time-sh; FAILSIM names the executable (build/cli/failsim).
set -euo pipefail
failsim=${FAILSIM:-build/cli/failsim}
out=${1:-results/failure-time-sh}

points=()
for strategy in checkpoint-async chain-async stateless; do
  for at in $(seq 10 20 190); do
    name=paper-$strategy-1kill_at-${at}s
    points+=("$out/$name")
    for seed in 1 2 3 4 5; do
      "$failsim" run "scenarios/paper/$strategy-1kill.json" --set "/failures/events/0/at=${at}s" \
        --set "/name=$name" --seed "$seed" -q -o "$out/$name/seed-$seed"
    done
  done
done
# The points in loop order (failsim table lists them by the first directory they are under).
"$failsim" table "${points[@]}" -o "$out/table.md"
