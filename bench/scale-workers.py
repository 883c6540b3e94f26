#!/usr/bin/env python3
# bench/scale-workers.py FAILSIM N STOP [failsim run options]: runs N asynchronous softmax workers for
# STOP simulated seconds and prints wall seconds, peak RSS (VmHWM) and peak address space (VmPeak),
# polled from /proc, and the gradients computed (docs/performance.md, "Scale"). Never fails.
import json, subprocess, sys, time, tempfile, os
bin_, n, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
extra = sys.argv[4:]
d = tempfile.mkdtemp(prefix=f"scale{n}-", dir=os.environ.get("TMPDIR", "/tmp"))
sc = {"name": f"scale-{n}", "data": {"kind": "synthetic", "train_size": 64 * n, "test_size": 200},
      "model": {"kind": "softmax"}, "optimizer": {"batch_size": 32},
      "cluster": {"workers": {"count": n, "speed": "1Gf"}, "servers": {"speed": "1Gf"}},
      "consistency": {"mode": "async"}, "evaluation": {"interval": 0}, "stop": {"time": stop}}
json.dump(sc, open(f"{d}/s.json", "w"))
t0 = time.time()
p = subprocess.Popen([bin_, "run", f"{d}/s.json", "-q", "-o", f"{d}/out"] + extra,
                     stderr=subprocess.PIPE)
peak = hwm = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("VmPeak:"): peak = max(peak, int(line.split()[1]))
            if line.startswith("VmHWM:"): hwm = max(hwm, int(line.split()[1]))
    except OSError: pass
    time.sleep(0.05)
wall = time.time() - t0
err = p.stderr.read().decode()[:300]
g = "?"
try:
    r = json.load(open(f"{d}/out/result.json"))
    g = r["summary"]["gradients"]["computed"]
except Exception: pass
print(f"workers={n} stop={stop} rc={p.returncode} wall={wall:.1f}s rss={hwm/1024:.0f}MiB vm={peak/1024/1024:.2f}GiB gradients={g} {err}")
