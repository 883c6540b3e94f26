#!/usr/bin/env bash
# Installs what is missing, builds, checks formatting and runs the whole test suite.
# This is the README's test command; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build=${FAILSIM_BUILD_DIR:-build}
# Tests and benchmarks on, whatever a build directory of the README's first command says. A
# unity build by default (half the time of a build from scratch, docs/performance.md "From a fresh
# machine to the first result", and CI keeps it compiling); FAILSIM_UNITY_BUILD=OFF for a
# developer's incremental builds.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFAILSIM_BUILD_TESTS=ON \
  -DFAILSIM_BUILD_BENCHMARKS=ON -DCMAKE_UNITY_BUILD="${FAILSIM_UNITY_BUILD:-ON}" >/dev/null
cmake --build "$build" -j "$(nproc)"
bash scripts/check-format.sh
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 300
