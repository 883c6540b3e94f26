#!/usr/bin/env bash
# End-to-end test of `failsim report` in a real browser (ctest report_in_browser): reports of a
# parameter-server run (with its timeline), a collective run, a comparison and a sweep are opened
# in headless chromium, which must render each without a console message, every figure decoded
# (the page's own check, read from the DOM), and no external resource; opened again as
# PAGE#selftest, the page moves the pointer over a point of every interactive figure, clicks its
# legend and drags across it, and must find each respond (its data-interactive-check). The same
# checks must fail on a page with a broken figure and on one whose figures do not answer the
# pointer, so a checker that passes everything is caught too.
#   usage: report_in_browser.sh FAILSIM_BINARY SOURCE_DIR
# Exit 77 (ctest: Skipped) when chromium is missing; scripts/setup.sh installs it.
set -euo pipefail
failsim=${1:?usage: report_in_browser.sh FAILSIM_BINARY SOURCE_DIR}
source_dir=${2:?usage: report_in_browser.sh FAILSIM_BINARY SOURCE_DIR}
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
  echo "skipped: no chromium on PATH (scripts/setup.sh installs Debian's chromium)"
  exit 77
fi
tmp=$(mktemp -d /tmp/failsim-report-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$source_dir"

# render URL ATTRIBUTE VALUE [CHROMIUM OPTION...]: opens URL in headless chromium, and fails
# unless it logs no console message and its rendered DOM holds ATTRIBUTE="VALUE".
render() {
  local url=$1 attribute=$2 value=$3 dom="$tmp/dom.html" log="$tmp/browser.log"
  shift 3
  if ! timeout 120 "$browser" --headless --disable-gpu --no-sandbox --enable-logging=stderr \
      --v=0 "$@" --dump-dom "$url" >"$dom" 2>"$log"; then
    echo "$url: chromium failed: $(tail -5 "$log")"
    return 1
  fi
  if grep -q 'CONSOLE' "$log"; then
    echo "$url: expected no console message, found: $(grep CONSOLE "$log" | head -5)"
    return 1
  fi
  if ! grep -q "$attribute=\"$value\"" "$dom"; then
    echo "$url: expected $attribute=\"$value\" in the rendered DOM, found $(grep -o "$attribute=\"[^\"]*\"" "$dom" || echo none)"
    return 1
  fi
}

# check PAGE FIGURES CHARTS: renders PAGE, expects FIGURES figures, all decoded, and no console
# message; then CHARTS interactive figures, each answering hover, legend and zoom (the page's
# self-test runs on timers: a virtual time budget lets them run before the DOM is dumped).
check() {
  local page=$1 figures=$2 charts=$3
  if grep -Eq '(src|href)="(https?:|//|file:)|<link |@import|url\(' "$page"; then
    echo "$page: expected no external resource, found: $(grep -Eo '(src|href)="[^"]{0,40}|<link [^>]{0,40}|@import|url\(' "$page" | head -3)"
    return 1
  fi
  render "file://$page" data-report-check "ok $figures" || return 1
  render "file://$page#selftest" data-interactive-check "ok $charts" \
    --virtual-time-budget=30000 || return 1
  echo "$page: rendered, $figures figures decoded, $charts interactive figures answer, no console message"
}

set -x
"$failsim" run scenarios/examples/server-kill-checkpoint.json -q --threads 1 \
  --set '/output={"intervals": true}' -o "$tmp/runs/ckpt"
"$failsim" run scenarios/examples/quickstart.json -q --threads 1 -o "$tmp/runs/quick"
"$failsim" run scenarios/cluster/zero3-stragglers.json -q --set /stop/time=3h -o "$tmp/coll"
"$failsim" report "$tmp/coll" -o "$tmp/coll.html"   # time, timeline
"$failsim" report "$tmp/runs/ckpt" -o "$tmp/run.html"   # accuracy, gradients, utilisation, timeline
"$failsim" report "$tmp/runs" --title "two configurations"  # default: DIR/report.html
cat >"$tmp/sweep.json" <<JSON
{"name": "tiny", "scenarios": ["$source_dir/scenarios/examples/quickstart.json"],
 "seeds": [1, 2], "vary": [{"path": "/cluster/workers/count", "label": "workers", "values": [1, 2]}]}
JSON
"$failsim" sweep "$tmp/sweep.json" -j 2 -q -o "$tmp/sweep"
"$failsim" report "$tmp/sweep" -o "$tmp/sweep.html"
set +x
check "$tmp/run.html" 4 1
check "$tmp/coll.html" 2 1
check "$tmp/runs/report.html" 3 1
check "$tmp/sweep.html" 2 1
grep -q '<title>two configurations</title>' "$tmp/runs/report.html"

# A broken figure (its data cut short) must fail the check.
python3 - "$tmp/run.html" "$tmp/broken.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
at = page.index("data:image/svg+xml;base64,") + len("data:image/svg+xml;base64,")
open(sys.argv[2], "w").write(page[:at] + "AAAA" + page[page.index('"', at):])
PY
if check "$tmp/broken.html" 4 1; then
  echo "expected the check to fail on a page with a broken figure, it passed"
  exit 1
fi
# Figures that do not answer the pointer (their hover handler gone) must fail the check.
sed 's/spec.options.onHover = function/spec.options.onNothing = function/' "$tmp/run.html" \
  >"$tmp/deaf.html"
if check "$tmp/deaf.html" 4 1; then
  echo "expected the check to fail on a page whose figures do not answer, it passed"
  exit 1
fi
echo "report_in_browser: ok"
