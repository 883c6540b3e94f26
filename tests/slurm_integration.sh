#!/usr/bin/env bash
# `failsim sweep --emit slurm` on a real Slurm cluster of one node (docs/sweeps.md#on-a-slurm-cluster):
#
#   1. installs slurmctld, slurmd, slurm-client and munge with apt-get if they are missing;
#   2. starts munged, slurmctld and slurmd on localhost, as root, with a private configuration,
#      key, sockets, ports, state and logs in a temporary directory;
#   3. emits tests/slurm-sweep.json (8 runs, 3 per array task) into a directory whose name holds a
#      space and a '%' (quoting in #SBATCH lines and in the scripts), submits it with submit.sh
#      from another working directory, with a second 2-run sweep whose run 1 fails alongside;
#   4. waits for the jobs, then checks: every array task and the collection completed, every run's
#      status, the logs, and runs.csv, table.md and sweep.json byte for byte against a local
#      `failsim sweep -j 2` of the same sweep; the failing sweep's collection ran anyway
#      (afterany), failed and named the run without a result;
#   5. submits the array again: nothing is redone (each result.json keeps its inode and mtime),
#      the aggregate is the same;
#   6. stops the daemons and removes everything, also on failure (trap).
#
# Usage: tests/slurm_integration.sh FAILSIM_BINARY SOURCE_DIR  (ctest runs it: `ctest -L slurm`)
# Exit status 0 when it passed, 77 when skipped (not root, or no apt-get: it cannot install and
# run Slurm, and says so), anything else when it failed.
set -euo pipefail

failsim=${1:?usage: slurm_integration.sh FAILSIM_BINARY SOURCE_DIR}
source_dir=${2:?usage: slurm_integration.sh FAILSIM_BINARY SOURCE_DIR}
failsim=$(realpath "$failsim")
source_dir=$(realpath "$source_dir")

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: not root: this test installs Slurm and munge with apt-get and runs their daemons as root"
  exit 77
fi
if ! command -v apt-get >/dev/null; then
  echo "SKIPPED: no apt-get: this test installs Debian's slurmctld, slurmd, slurm-client and munge"
  exit 77
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(now_ms)
seconds_since() { # "12.3": seconds since the time in ms $1
  local ms=$(($(now_ms) - $1))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}
step() { printf '[%6s s] %s\n' "$(seconds_since "$t0")" "$*"; }
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

work=""
created_policy=""
daemons=()  # PIDs in start order: munged, slurmctld, slurmd
cleanup() {
  local status=$?
  set +e
  trap - EXIT
  if [ "$status" -ne 0 ] && [ -n "$work" ]; then
    echo "--- diagnostics (exit status $status) ---" >&2
    for f in "$work"/log/*.log "$work"/log/*.out "$work"/*/slurm/logs/*; do
      [ -f "$f" ] && { echo "== $f" >&2; tail -n 25 "$f" >&2; }
    done
    [ -n "${SLURM_CONF:-}" ] && squeue >&2
  fi
  if [ ${#daemons[@]} -ge 2 ]; then
    # Cancel what is left (on failure), so no job step outlives the daemons.
    scancel --user=root >/dev/null 2>&1
    for _ in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  local stop_start
  stop_start=$(now_ms)
  # slurmd and slurmctld together, munged (their authentication) last.
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    if [ "$i" -ge 1 ]; then kill -TERM "${daemons[$i]}" 2>/dev/null; fi
  done
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    local pid=${daemons[$i]}
    [ "$i" -eq 0 ] && kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "daemon $pid did not stop within 10 s: killed" >&2
      kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
  done
  if [ ${#daemons[@]} -gt 0 ]; then
    echo "daemons stopped in $(seconds_since "$stop_start") s"
  fi
  [ -n "$work" ] && rm -rf "$work"
  [ -n "$created_policy" ] && rm -f /usr/sbin/policy-rc.d
  step "done, exit status $status"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 1. Packages. Debian's init scripts must not start the system's own daemons at install time:
#    a policy-rc.d that says no (101), if the image has none.
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    created_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt=(apt-get -o DPkg::Lock::Timeout=300 -y -qq --no-install-recommends)
  if ! "${apt[@]}" install "${missing[@]}" >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=300 update -qq
    "${apt[@]}" install "${missing[@]}" >/dev/null
  fi
  if [ -n "$created_policy" ]; then
    rm -f /usr/sbin/policy-rc.d
    created_policy=""
  fi
  step "installed"
else
  step "Slurm and munge are installed"
fi

# 2. A private one-node cluster. World-readable top directory: munged checks the directories of
#    its socket, and the jobs (root) write into the sweep directory below it.
work=$(mktemp -d /tmp/failsim-slurm-XXXXXX)
chmod 755 "$work"
mkdir -m 700 "$work/munge-etc" "$work/munge-lib" "$work/log"
mkdir -m 755 "$work/munge-run"
mkdir "$work/state" "$work/spool" "$work/elsewhere"
mungekey --create --keyfile="$work/munge-etc/munge.key"
chmod 600 "$work/munge-etc/munge.key"
socket=$work/munge-run/munge.socket
munged --foreground --socket="$socket" --key-file="$work/munge-etc/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munge-run/munged.pid" \
  --seed-file="$work/munge-lib/munged.seed" >"$work/log/munged.out" 2>&1 &
daemons+=($!)
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
[ -S "$socket" ] || fail "munged did not create its socket $socket"

# Two free ports on the loopback (not 6817/6818: another test's cluster may be running).
read -r ctld_port d_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
node=$(slurmd -C | head -n 1)  # NodeName=<host> CPUs=... RealMemory=...
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=failsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
CommunicationParameters=NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -c -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
scontrol ping | grep -q UP || fail "slurmctld did not answer within 10 s"
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 200); do [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && break; sleep 0.1; done
[ "$(sinfo -h -N -o %t)" = idle ] || fail "the node is not idle within 20 s: $(sinfo -h -N -o %t)"
step "Slurm is up: node $host idle, slurmctld on 127.0.0.1:$ctld_port"

# Waits until no job is left in the queue (at most $1 seconds).
wait_for_queue() {
  local limit=$1 start
  start=$(date +%s)
  while [ -n "$(squeue -h)" ]; do
    [ $(($(date +%s) - start)) -lt "$limit" ] || fail "jobs still queued after ${limit} s: $(squeue)"
    sleep 0.2
  done
}
# The fields of a finished job (kept by slurmctld for MinJobAge, 300 s): "STATE EXITCODE" of each
# of its jobs (one per array task), sorted.
job_states() {
  scontrol -o show job "$1" | sed -E 's/.*JobState=([A-Z_]+) .*ExitCode=([0-9:]+).*/\1 \2/' | sort | uniq -c |
    sed -E 's/^ +//'
}
# The column named $2 of CSV file $1 (no field of the test's runs.csv holds a quoted comma).
column() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}
# "inode mtime" of every run's result.json: unchanged if the run was not redone.
identities() {
  find "$1/runs" -name result.json -print0 | sort -z | xargs -0 stat -c '%n %i %y'
}

# 3. Emit and submit. The sweep is named by a relative path from the source tree (the scripts
#    must make it absolute) and submitted from another directory (a job's working directory).
out="$work/sweep out%1"
cd "$source_dir"
"$failsim" sweep tests/slurm-sweep.json --emit slurm -o "$out" --chunk 3 --time 5 \
  --partition test >"$work/emit.txt"
cat "$work/emit.txt"
grep -q "8 runs as a Slurm job array of 3 tasks (3 runs each)" "$work/emit.txt" ||
  fail "unexpected output of --emit slurm"
grep -q '^#SBATCH --array=0-2$' "$out/slurm/array.sbatch" || fail "array range is not 0-2"

cat >"$work/fails.json" <<EOF
{"name": "fails", "seeds": [1], "scenarios": ["$source_dir/scenarios/examples/quickstart.json",
 "$source_dir/tests/fixtures/truncated-data.json"]}
EOF
fails_out=$work/fails
"$failsim" sweep "$work/fails.json" --emit slurm -o "$fails_out" -q

cd "$work/elsewhere"
step "submitting"
bash "$out/slurm/submit.sh" | tee "$work/submit1.txt"
bash "$fails_out/slurm/submit.sh" >"$work/submit-fails.txt"
# "ARRAY COLLECT": the job IDs submit.sh printed in file $1.
job_ids() { sed -nE 's/.*array job ([0-9]+) .*collection job ([0-9]+)$/\1 \2/p' "$1"; }
read -r array collect < <(job_ids "$work/submit1.txt") || fail "submit.sh printed no job IDs"
read -r fails_array fails_collect < <(job_ids "$work/submit-fails.txt") ||
  fail "submit.sh printed no job IDs: $(cat "$work/submit-fails.txt")"
wait_for_queue 240
step "all jobs ended"

# 4. Checks.
[ "$(job_states "$array")" = "3 COMPLETED 0:0" ] || fail "array job $array: $(job_states "$array")"
[ "$(job_states "$collect")" = "1 COMPLETED 0:0" ] || fail "collection $collect: $(job_states "$collect")"
for task in 0 1 2; do
  log="$out/slurm/logs/array-$array-$task.out"
  [ -f "$log" ] || fail "no log $log"
done
grep -q "array task 2 of job $array on .*: runs 6 to 7" "$out/slurm/logs/array-$array-2.out" ||
  fail "task 2 did not run runs 6 to 7: $(cat "$out/slurm/logs/array-$array-2.out")"
grep -q "8 of 8 runs have results" "$out/slurm/logs/collect-$collect.out" ||
  fail "collection log: $(cat "$out/slurm/logs/collect-$collect.out")"
[ "$(column "$out/runs.csv" status | sort | uniq -c | sed -E 's/^ +//')" = "8 completed" ] ||
  fail "run statuses: $(column "$out/runs.csv" status | tr '\n' ' ')"
[ -z "$(find "$out" -name '.*')" ] || fail "temporaries left: $(find "$out" -name '.*')"

# The failing sweep: run 1's task failed, the collection ran anyway (afterany), exit 1, naming it.
[ "$(job_states "$fails_array")" = "$(printf '1 COMPLETED 0:0\n1 FAILED 1:0')" ] ||
  fail "failing array $fails_array: $(job_states "$fails_array")"
[ "$(job_states "$fails_collect")" = "1 FAILED 1:0" ] ||
  fail "failing sweep's collection $fails_collect: $(job_states "$fails_collect")"
grep -q "run 1 failed: exit status 2" "$fails_out/slurm/logs/array-$fails_array-1.out" ||
  fail "task 1's log does not report its failed run"
grep -q "no result for run 1 (failed, or not run yet)" "$fails_out/slurm/logs/collect-$fails_collect.out" ||
  fail "the failing sweep's collection does not name run 1: $(cat "$fails_out/slurm/logs/collect-$fails_collect.out")"
[ "$(column "$fails_out/runs.csv" status | tr '\n' ' ')" = "completed missing " ] ||
  fail "failing sweep's statuses: $(column "$fails_out/runs.csv" status | tr '\n' ' ')"

# The same sweep run here. runs.csv holds no wall-clock figure and table.md none either, so every
# byte must agree.
cd "$source_dir"
"$failsim" sweep tests/slurm-sweep.json -j 2 -q -o "$work/local"
for f in runs.csv table.md sweep.json; do
  cmp "$out/$f" "$work/local/$f" || fail "$f of the Slurm run differs from the local run's"
done
step "the Slurm aggregate equals the local run's (runs.csv, table.md, sweep.json)"

# 5. Submitted again: every run is skipped.
identities "$out" >"$work/before.txt"
cp "$out/runs.csv" "$work/runs-before.csv"
cd "$work/elsewhere"
bash "$out/slurm/submit.sh" >"$work/submit2.txt"
read -r array2 collect2 < <(job_ids "$work/submit2.txt") || fail "submit.sh printed no job IDs"
wait_for_queue 120
[ "$(job_states "$array2")" = "3 COMPLETED 0:0" ] || fail "resubmitted array: $(job_states "$array2")"
[ "$(job_states "$collect2")" = "1 COMPLETED 0:0" ] || fail "resubmitted collection: $(job_states "$collect2")"
[ "$(cat "$out"/slurm/logs/array-"$array2"-*.out | grep -c "is already done")" -eq 8 ] ||
  fail "the resubmitted tasks did not skip all 8 runs: $(cat "$out"/slurm/logs/array-"$array2"-*.out)"
identities "$out" | cmp - "$work/before.txt" || fail "a result.json was rewritten by the resubmission"
cmp "$out/runs.csv" "$work/runs-before.csv" || fail "runs.csv changed after the resubmission"
step "resubmitted: nothing redone"
echo "PASSED: failsim sweep --emit slurm on a one-node Slurm"
