#!/usr/bin/env bash
# Installs what is missing, builds, checks formatting and runs the whole test suite.
# This is the README's test command; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build=${FAILSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)"
bash scripts/check-format.sh
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 300
