#!/usr/bin/env bash
# Lists the functions of the production code (every library and the CLI; tests and benchmarks
# excluded) longer than a limit, as "lines file:line name", longest first, and exits 1 if there is
# one. A function that needs more than a screen or two to read usually does more than one thing;
# issue 31 set the limit at 80 lines. Lengths come from Universal Ctags (its end field: from the
# line of the name to the closing brace), so a helper that is only a lambda counts with its
# enclosing function.
#   usage: scripts/long-functions.sh [LIMIT]    (default 80)
set -euo pipefail
limit=${1:-80}
case "$limit" in
  '' | *[!0-9]*) echo "usage: scripts/long-functions.sh [LIMIT] (a whole number of lines)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "long-functions.sh: needs Universal Ctags (Debian: apt-get install universal-ctags)" >&2
  exit 2
fi

long=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
  --_xformat="%{input}:%{line}:%{end} %{name}" \
  sim models analysis cli input result_format sweep |
  awk -v limit="$limit" '{
    split($1, at, ":")
    lines = at[3] - at[2] + 1
    if (at[3] != "" && lines > limit) print lines, at[1] ":" at[2], $2
  }' | sort -k1,1nr -k2,2)

if [ -n "$long" ]; then
  echo "$long"
  echo "long-functions.sh: $(wc -l <<<"$long") function(s) longer than $limit lines" >&2
  exit 1
fi
echo "long-functions.sh: no function longer than $limit lines" >&2
