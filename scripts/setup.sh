#!/usr/bin/env bash
# Installs every Debian package failsim needs that is missing. Idempotent; runs as root
# (or through sudo when available). Used by both README set-up commands and by CI.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang-format
  libsimgrid-dev libeigen3-dev nlohmann-json3-dev catch2 libfmt-dev libcli11-dev zlib1g-dev
  libbenchmark-dev dataset-fashion-mnist python3 python3-matplotlib python3-pandas chromium
  libjs-chart.js  # the report's interactive figures (Chart.js, inlined into the page)
  strace  # tests: kills and I/O errors injected at a run's own system calls
)

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
