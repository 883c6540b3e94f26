#!/usr/bin/env bash
# Byte-identity check for a change that must not change results (a refactoring): runs every
# shipped example with two failsim binaries and compares events.csv, timeseries.csv and
# result.json (without the keys that are not a function of the scenario and seed, provenance and
# wall_clock: failsim_results.NOT_REPRODUCED_KEYS; with the output root normalised).
#   usage: scripts/compare-results.sh BASE_FAILSIM NEW_FAILSIM [OUT_DIR]
# Prints one line per example and exits 1 if any differs. Examples run JOBS (default 2) at a
# time; EXAMPLES="a.json b.json" runs only those of scenarios/examples/; SCENARIOS="path..."
# runs those scenario files instead (e.g. SCENARIOS="scenarios/cluster/*.json"). FRONTIER_QUICK=1
# also runs every row of `bench/frontier-scale.py --quick` with each binary (one after the other,
# their results kept as out-ROW), FRONTIER_QUICK=only those rows alone.
set -euo pipefail
base=$(realpath "${1:?usage: compare-results.sh BASE_FAILSIM NEW_FAILSIM [OUT_DIR]}")
new=$(realpath "${2:?usage: compare-results.sh BASE_FAILSIM NEW_FAILSIM [OUT_DIR]}")
out=${3:-$(mktemp -d /tmp/failsim-compare-XXXXXX)}
jobs=${JOBS:-2}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/base" "$out/new"

run_one() {  # BINARY ROOT SCENARIO
  local name
  name=$(basename "$3" .json)
  "$1" run "$3" -q --threads 1 -o "$2/$name" >/dev/null 2>"$2/$name.err" || echo "exit $?" >>"$2/$name.err"
}
export -f run_one
examples=()
if [ "${FRONTIER_QUICK:-}" = only ]; then
  :
elif [ -n "${SCENARIOS:-}" ]; then
  for path in $SCENARIOS; do examples+=("$(realpath "$path")"); done
elif [ -n "${EXAMPLES:-}" ]; then
  for name in $EXAMPLES; do examples+=("$source_dir/scenarios/examples/$name"); done
else
  examples=("$source_dir"/scenarios/examples/*.json)
fi
for f in "${examples[@]}"; do
  printf '%s\0%s\0%s\0' "$base" "$out/base" "$f"
  printf '%s\0%s\0%s\0' "$new" "$out/new" "$f"
done | xargs -0 -r -n 3 -P "$jobs" bash -c 'run_one "$@"' _
if [ -n "${FRONTIER_QUICK:-}" ]; then
  for side in base new; do
    binary=$base
    [ "$side" = new ] && binary=$new
    /usr/bin/python3 "$source_dir/bench/frontier-scale.py" "$binary" --quick --keep "$out/$side" \
      >"$out/$side-frontier.log"
  done
fi

python3 - "$out" "$source_dir" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(pathlib.Path(sys.argv[2]) / "analysis"))
import failsim_results
def result(path, root):
    text = path.read_text().replace(str(root), "ROOT")
    return failsim_results.reproducible_part(json.loads(text))
bad = 0
for b in sorted((out / "base").iterdir()):
    if not b.is_dir():
        continue
    n = out / "new" / b.name
    diffs = []
    for f in ("events.csv", "timeseries.csv"):
        if (b / f).exists() != (n / f).exists() or ((b / f).exists() and (b / f).read_bytes() != (n / f).read_bytes()):
            diffs.append(f)
    if not (n / "result.json").exists():
        diffs.append("result.json")
    else:
        rb, rn = result(b / "result.json", out / "base"), result(n / "result.json", out / "new")
        # A base binary older than scenario_sha256 does not write it: compare the rest.
        if "scenario_sha256" not in rb:
            rn.pop("scenario_sha256", None)
        if rb != rn:
            diffs.append("result.json")
    bad += bool(diffs)
    print(f"{b.name}: {'differs in ' + ', '.join(diffs) if diffs else 'identical'}")
for e in sorted((out / "base").glob("*.err")) + sorted((out / "new").glob("*.err")):
    if e.read_text().strip():
        print(f"{e}: {e.read_text().strip()}")
        bad += 1
sys.exit(1 if bad else 0)
PY
