#!/usr/bin/env bash
# Builds failsim with AddressSanitizer and UndefinedBehaviorSanitizer in a directory of its own
# and runs the whole test suite under them; any sanitizer report fails the test that caused it.
#
#   bash scripts/sanitize.sh [BUILD_DIR] [ctest arguments...]     (default BUILD_DIR: build-sanitize)
#
# SimGrid runs every actor on a stack of its own and switches between them; ASan does not see
# the switch and reports a false stack-buffer-overflow in the first actor that touches its
# stack (ParameterServer::serve_workers). scripts/asan.supp suppresses exactly that report
# (docs/testing.md, "Sanitizers"). Slow: about an hour on a 2-core machine, see docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build-sanitize}
shift || true

# -O1 -g1: ASan's advice, and a build that compiles about twice as fast as -O2 -g with
# stack traces that still name file and line.
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DFAILSIM_BUILD_BENCHMARKS=OFF -DFAILSIM_TCMALLOC=OFF \
  "${launcher[@]}" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j "$(nproc)"

# abort_on_error/halt_on_error: a report ends the process with a failure status, so the test
# fails; exitcode makes the status unmistakable when a child's is forwarded. The sanitizers
# write to files of their own (log_path), not to the tested programs' stderr: ASan warns once
# per process about SimGrid's stack switches ("ignoring requested __asan_handle_no_return"),
# which would break the tests that check a quiet run's stderr is empty. Those files are read
# below: any error report in them fails the script and is printed.
logs=$(cd "$build" && pwd)/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="suppressions=$root/scripts/asan.supp:halt_on_error=1:abort_on_error=1:detect_leaks=0:exitcode=99:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
status=0
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 1800 "$@" || status=$?

mapfile -t reports < <(grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$logs"/* 2>/dev/null || true)
warned=$(grep -l '__asan_handle_no_return' "$logs"/* 2>/dev/null | wc -l)
echo "sanitizers: ${#reports[@]} error report(s); $warned process(es) with ASan's stack-switch warning (expected under SimGrid)"
for r in "${reports[@]}"; do
  echo "=== $r"
  cat "$r"
  status=1
done
exit "$status"
