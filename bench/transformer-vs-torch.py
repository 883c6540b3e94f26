#!/usr/bin/env python3
"""failsim's transformer against PyTorch, one thread each, side by side (issue 35).

For each shipped size (models/transformer_sizes.hpp), runs bench_models' transformer benchmarks
(a training step, forward and backward, and an evaluation's forward pass to the logits of every
position, at batch 8) and then the same model in PyTorch (tests/transformer_parity.py's, which
the parity test checks against failsim) on the same shapes; prints a table of the medians over
the repetitions and PyTorch's time over failsim's (above 1: failsim is faster). The sizes and the
batch are read from the benchmark's own output, so they are defined once. One more row per size
gives failsim's training step on 2 threads (the batch in 2 parts, sim/engine/gradient_parts.hpp)
against PyTorch's on one, by wall time: the speed a run with model.gradient_parts 2 gets.

PyTorch's speed is its BLAS's: Debian's python3-torch calls libblas.so.3, by default the reference
BLAS (libblas3, unblocked loops, ~7 GFLOP/s here). The line above the table names the library that
was loaded; with OpenBLAS (apt-get install libopenblas0-pthread, or LD_LIBRARY_PATH pointing at
its openblas-pthread directory) PyTorch's matrix products run 15x faster.

Times are CPU time of the computing thread (as bench_models reports them); wall time is printed
too, since a busy machine inflates it. The load average is printed before each size. Prints,
never fails on timing. Exits 0 with a message when torch is not installed (Debian: apt-get install
python3-torch; run with /usr/bin/python3 if another python3 comes first on the PATH).

    /usr/bin/python3 bench/transformer-vs-torch.py [--build build] [--repetitions 5]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# One thread on both sides, whatever library PyTorch's BLAS is; set before torch is imported.
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = "1"

ROOT = Path(__file__).resolve().parent.parent
SPLIT = "train step, failsim on 2 threads"  # compared by wall time: the work is on two threads
KINDS = {"BM_transformer_train_step": "train step", "BM_transformer_forward": "forward",
         "BM_transformer_split_step": SPLIT}
MIN_TIME = 0.5  # seconds of CPU per repetition (Google Benchmark's default), at least one call


def failsim_medians(bench, index, repetitions):
    """{kind: (label, counters, median CPU ms, median wall ms)} of size `index`."""
    out = subprocess.run(
        [bench, f"--benchmark_filter=BM_transformer_(train_step|forward)/{index}$|"
         f"BM_transformer_split_step/{index}/2/real_time$", "--benchmark_format=json",
         f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"],
        check=True, capture_output=True, text=True).stdout
    result = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        assert b["time_unit"] == "ms", b["time_unit"]
        result[KINDS[b["run_name"].split("/")[0]]] = (b["label"], b, b["cpu_time"], b["real_time"])
    return result


def torch_median(call, repetitions):
    """Median over repetitions of the mean CPU and wall ms per call (each repetition runs the
    call until MIN_TIME seconds of CPU have passed, as Google Benchmark does)."""
    call()  # warm-up: allocator caches
    cpu, wall = [], []
    for _ in range(repetitions):
        calls, start, start_cpu = 0, time.perf_counter(), time.thread_time()
        while calls == 0 or time.thread_time() - start_cpu < MIN_TIME:
            call()
            calls += 1
        cpu.append((time.thread_time() - start_cpu) * 1e3 / calls)
        wall.append((time.perf_counter() - start) * 1e3 / calls)
    return statistics.median(cpu), statistics.median(wall)


def torch_times(gpt_class, counters, repetitions):
    import torch

    c = {k: int(counters[k]) for k in ("vocab", "sequence", "layers", "hidden", "heads", "batch")}
    torch.manual_seed(0)
    model = gpt_class(c["vocab"], c["sequence"], c["layers"], c["hidden"], c["heads"],
                      bool(counters["tied"]))
    windows = torch.randint(0, c["vocab"], (c["batch"], c["sequence"] + 1))

    def train_step():
        model.zero_grad(set_to_none=True)
        model.loss(windows).backward()

    def forward():
        with torch.no_grad():
            model.logits(windows[:, :-1])

    return {"train step": torch_median(train_step, repetitions),
            "forward": torch_median(forward, repetitions)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="the build directory (default: build)")
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    if args.repetitions < 1:
        parser.error(f"--repetitions: expected a whole number >= 1, got {args.repetitions}")
    bench = Path(args.build, "bench", "bench_models")
    if not bench.is_file():
        print(f"transformer-vs-torch: {bench} not found; build the target bench_models",
              file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print(f"transformer-vs-torch: torch not installed ({e}), skipping")
        return 0
    torch.set_num_threads(1)
    sys.path.insert(0, str(ROOT / "tests"))
    from transformer_parity import Gpt

    torch.ones(2, 2) @ torch.ones(2, 2)  # loads the BLAS
    blas = sorted({line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines()
                   if "blas" in line.split()[-1]})
    print(f"torch {torch.__version__}, 1 thread each (but the row so named), medians of "
          f"{args.repetitions} repetitions; "
          f"PyTorch's BLAS: {', '.join(blas) or 'none found in /proc/self/maps'}")
    listed = subprocess.run([bench, "--benchmark_list_tests=true",
                             "--benchmark_filter=BM_transformer_train_step"],
                            check=True, capture_output=True, text=True).stdout.split()
    rows = []
    for index in range(len(listed)):
        load = Path("/proc/loadavg").read_text().split()[0]
        ours = failsim_medians(bench, index, args.repetitions)
        label, counters, _, _ = ours["train step"]
        theirs = torch_times(Gpt, counters, args.repetitions)
        print(f"{label}: load average {load} before", flush=True)
        for kind in ("train step", SPLIT, "forward"):
            _, _, cpu, wall = ours[kind]
            t_cpu, t_wall = theirs["train step" if kind == SPLIT else kind]
            rows.append((label, int(counters["parameters"]), int(counters["batch"]), kind, cpu,
                         t_cpu, wall, t_wall))

    print("| size | parameters | batch | pass | failsim CPU ms | PyTorch CPU ms | PyTorch / failsim "
          "| failsim wall ms | PyTorch wall ms |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for label, params, batch, kind, cpu, t_cpu, wall, t_wall in rows:
        if kind == SPLIT:  # one thread's CPU time is half the work: the ratio is of wall times
            print(f"| {label} | {params:,} | {batch} | {kind} | | {t_cpu:.2f} | "
                  f"{t_wall / wall:.2f}x (wall) | {wall:.2f} | {t_wall:.2f} |")
            continue
        print(f"| {label} | {params:,} | {batch} | {kind} | {cpu:.2f} | {t_cpu:.2f} | "
              f"{t_cpu / cpu:.2f}x | {wall:.2f} | {t_wall:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
