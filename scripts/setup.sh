#!/usr/bin/env bash
# Installs every Debian package failsim needs that is missing. Idempotent; runs as root
# (or through sudo when available). Used by both README set-up commands and by CI.
#   bash scripts/setup.sh        everything: build, tests, benchmarks, figures, reports
#   bash scripts/setup.sh run    only what building and running the failsim command needs (the
#                                README's first command: a fresh machine's first result sooner)
set -euo pipefail

# Building and running `failsim run` (cmake -DFAILSIM_BUILD_TESTS=OFF
# -DFAILSIM_BUILD_BENCHMARKS=OFF --target failsim).
packages=(
  build-essential cmake pkg-config
  libsimgrid-dev libeigen3-dev nlohmann-json3-dev libfmt-dev libcli11-dev zlib1g-dev
  dataset-fashion-mnist
  fortunes  # the text data's default corpus (data kind "text", models/text_corpus.hpp)
)
case "${1:-all}" in
  run) ;;
  all)
    packages+=(
      clang-format catch2 libbenchmark-dev python3 python3-matplotlib python3-pandas chromium
      libjs-chart.js  # the report's interactive figures (Chart.js, inlined into the page)
      python3-torch  # tests: the transformer against PyTorch (tests/transformer_parity.py)
      strace  # tests: kills and I/O errors injected at a run's own system calls
    )
    ;;
  *)
    echo "setup.sh: expected no argument (everything) or \"run\" (the failsim command only), found \"$1\"" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
