#!/usr/bin/env bash
# Checks failsim against Daly's checkpoint formula (docs/validation.md) with one command: builds
# failsim if needed, runs the three sweeps of scenarios/validation/ (checkpoint interval x 50
# seeds each, every core busy: each run is one sequential simulation), then writes the comparison
# table into docs/validation.md and the figure docs/figures/validation-daly.{png,svg}.
#
#   bash scripts/validate-daly.sh [-j JOBS] [-o DIR]
#
# Defaults: JOBS = the number of cores, DIR = results/validation (one sweep directory per
# setting). The sweeps resume: a run whose result directory is complete is not run again, so an
# interrupted validation picks up where it stopped; remove DIR to redo everything.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
out=results/validation
usage() { echo "usage: bash scripts/validate-daly.sh [-j JOBS] [-o DIR]" >&2; }
while getopts "j:o:h" option; do
  case $option in
    j) jobs=$OPTARG ;;
    o) out=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "validate-daly: -j expects an integer >= 1, found '$jobs'" >&2
  exit 2
fi

build=${FAILSIM_BUILD_DIR:-build}
failsim=$build/cli/failsim
if [ ! -x "$failsim" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j "$jobs" --target failsim >/dev/null
# The analysis needs numpy and matplotlib: Debian's, as failsim plot uses (not a pyenv python).
python=${FAILSIM_PYTHON:-/usr/bin/python3}

settings=(daly-a daly-b daly-c)
# Runs complete before this invocation are not run again: count them, to say what was run.
complete() {
  if [ -d "$out" ]; then find "$out" -path '*/runs/*/seed-*/result.json' | wc -l; else echo 0; fi
}
before=$(complete)
start=$(date +%s)
for setting in "${settings[@]}"; do
  echo "validate-daly: $setting" >&2
  "$failsim" sweep "scenarios/validation/$setting.sweep.json" -j "$jobs" -q -o "$out/$setting"
done
seconds=$(( $(date +%s) - start ))
ran=$(( $(complete) - before ))
echo "validate-daly: $ran runs in $seconds s with $jobs jobs" >&2

dirs=()
for setting in "${settings[@]}"; do dirs+=("$out/$setting"); done
"$python" analysis/daly.py "${dirs[@]}" --doc docs/validation.md \
  --figure docs/figures/validation-daly --seconds "$seconds" --ran "$ran" \
  --command "bash scripts/validate-daly.sh -j $jobs"
