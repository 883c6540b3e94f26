#!/usr/bin/env bash
# Reproduces the reference study (docs/reproducing-the-paper.md) with one command: installs what
# is missing, builds failsim, runs every scenario of scenarios/paper over SEEDS seeds as parallel
# processes (one per core, each computing on nproc / JOBS threads: runs side by side use the
# cores better than threads inside one run, docs/performance.md), then writes the tables
# (Markdown, CSV, LaTeX) and the figures (PNG, SVG) next to the runs.
#
#   bash scripts/reproduce-paper.sh [-j JOBS] [-s SEEDS] [-o DIR]
#
# Defaults: JOBS = the number of cores, SEEDS = 5 (seeds 1..SEEDS), DIR = results/paper.
# Every run is redone: results are deterministic, and a stale result of an edited scenario must
# not slip into the table.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
seeds=5
out=results/paper
usage() { echo "usage: bash scripts/reproduce-paper.sh [-j JOBS] [-s SEEDS] [-o DIR]" >&2; }
while getopts "j:s:o:h" option; do
  case $option in
    j) jobs=$OPTARG ;;
    s) seeds=$OPTARG ;;
    o) out=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
for value in "$jobs" "$seeds"; do
  if ! [[ $value =~ ^[1-9][0-9]*$ ]]; then
    echo "reproduce-paper: -j and -s expect an integer >= 1, found '$value'" >&2
    exit 2
  fi
done

bash scripts/setup.sh
build=${FAILSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs" --target failsim >/dev/null
failsim=$build/cli/failsim

# The table's row order: the baseline, then each failure pattern strategy by strategy.
configs=(baseline)
for kills in 1kill 2kill; do
  configs+=("checkpoint-sync-$kills" "checkpoint-async-$kills" "chain-sync-$kills"
            "chain-async-$kills" "stateless-$kills")
done
for config in "${configs[@]}"; do
  [ -f "scenarios/paper/$config.json" ] || { echo "reproduce-paper: scenarios/paper/$config.json is missing" >&2; exit 2; }
done

runs=$(( ${#configs[@]} * seeds ))
echo "reproduce-paper: ${#configs[@]} configurations x $seeds seeds = $runs runs, $jobs at a time" >&2
start=$(date +%s)
job_list=$(mktemp)
trap 'rm -f "$job_list"' EXIT
# One line per job: seed, then scenario and result directory of each member of a family that
# runs as one simulation (failsim run --branch, docs/cli.md): a 1-kill run and its 2-kill sibling
# share everything up to the second kill at 80 s, and with one worker a sync run and its async
# sibling never act differently, so checkpointing and the chain are one simulation per seed
# until the second kill. The longest jobs first; xargs keeps JOBS of them busy (a family is
# several processes after it splits).
for seed in $(seq 1 "$seeds"); do
  for strategy in checkpoint chain; do
    line="$seed"
    for kills in 1kill 2kill; do
      for mode in sync async; do
        line+=" scenarios/paper/$strategy-$mode-$kills.json $out/$strategy-$mode-$kills/seed-$seed"
      done
    done
    echo "$line"
  done
  echo "$seed scenarios/paper/stateless-1kill.json $out/stateless-1kill/seed-$seed scenarios/paper/stateless-2kill.json $out/stateless-2kill/seed-$seed"
done > "$job_list"
for seed in $(seq 1 "$seeds"); do
  echo "$seed scenarios/paper/baseline.json $out/baseline/seed-$seed"
done >> "$job_list"
threads=$(( $(nproc) / jobs ))
[ "$threads" -ge 1 ] || threads=1
export threads
xargs -P "$jobs" -L 1 sh -c '
  failsim=$0 seed=$1 scenario=$2 dir=$3
  shift 3
  branches=""
  while [ $# -ge 2 ]; do branches="$branches --branch $1=$2"; shift 2; done
  "$failsim" run -q --threads "$threads" --seed "$seed" -o "$dir" $branches "$scenario" || { echo "reproduce-paper: failed: $scenario seed $seed" >&2; exit 255; }
  echo "  done: $dir$branches" >&2' "$failsim" < "$job_list"
echo "reproduce-paper: $runs runs in $(( $(date +%s) - start )) s" >&2

dirs=()
for config in "${configs[@]}"; do dirs+=("$out/$config"); done
for format in md csv latex; do
  extension=$format
  [ "$format" = latex ] && extension=tex
  "$failsim" table "${dirs[@]}" --format "$format" -o "$out/table.$extension"
done
# At 0.70 every configuration is there before the first kill (docs/reproducing-the-paper.md).
"$failsim" table "${dirs[@]}" --target 0.80 -o "$out/table-target-0.80.md"
# One set of figures per failure pattern, each with the baseline. The sync variants are left
# out: with one worker they are the async runs to the byte (docs/reproducing-the-paper.md), so
# their curves would hide under the async ones.
for kills in 1kill 2kill; do
  when="at 30 s"
  [ "$kills" = 2kill ] && when="at 30 s and 80 s"
  plot_configs=(baseline "checkpoint-async-$kills" "chain-async-$kills" "stateless-$kills")
  plot_dirs=()
  names=()
  for config in "${plot_configs[@]}"; do
    plot_dirs+=("$out/$config")
    names+=("paper-$config")
  done
  "$failsim" plot "${plot_dirs[@]}" --configs "$(IFS=,; echo "${names[*]}")" \
    --title "The study's CNN, server killed $when for 20 s ($seeds seeds; sync = async)" \
    -o "$out/figures/$kills"
done
echo "reproduce-paper: done in $(( $(date +%s) - start )) s: $out/table.md, $out/figures/" >&2
cat "$out/table.md"
