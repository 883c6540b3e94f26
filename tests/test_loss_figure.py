"""A language model's loss as a result, end to end (issue 35; docs/plots.md, docs/tables.md):
a tiny sweep of two collective designs with a target loss and the `loss` figure, and a tiny
parameter-server run plotted with `failsim plot --figures loss`. Checks that the figures are
written, that the curves drawn are the runs' timeseries.csv (loss against its tokens and its
time) with a cross at each failure of events.csv, read back from matplotlib's Agg figure, and
that runs.csv's time and tokens to the target loss are the first evaluation at or below it.

Usage: /usr/bin/python3 tests/test_loss_figure.py FAILSIM_BINARY SOURCE_DIR (ctest runs it).
Exit 77 (skipped, saying why) only without Debian's fortunes, the corpus.
"""

import csv
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile

SOURCE = pathlib.Path(sys.argv[2]).resolve()
sys.path.insert(0, str(SOURCE / "analysis"))
import plot  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
TARGET = 4.0  # nat: the tiny model passes it within its first 60 steps
FORTUNES = "/usr/share/games/fortunes"

# The tiny model of tests/test_language_model.cpp, its failure moved to 100 ms.
TINY = {"layers": 1, "hidden": 32, "heads": 2, "sequence": 16, "kind": "transformer"}


def failsim(*args, cwd):
    done = subprocess.run([BINARY, *args], cwd=cwd, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def first_at_or_below(series, target):
    """(time, tokens) of the first row of timeseries.csv with a loss <= target, or None."""
    for row in series:
        loss = float(row["test_loss"])
        if math.isfinite(loss) and loss <= target:
            return float(row["time"]), float(row["tokens"])
    return None


def check_drawn(directory, failures):
    """The loss figure of the runs under `directory` (one seed each), read back: each
    configuration's two curves are its timeseries.csv's (tokens, loss) and (time, loss), and its
    failure crosses are at its failure times. `failures` (configuration -> count) says how many
    each must have."""
    configs = plot.load_configurations([str(directory)], ["loss"], None)
    figure = plot.figure_loss(configs, None)
    by_gid = {}
    for ax in figure.axes:
        for artist in ax.get_children():
            if artist.get_gid():
                by_gid[artist.get_gid()] = artist
    assert set(configs) == set(failures), (sorted(configs), sorted(failures))
    for name, runs in configs.items():
        assert len(runs) == 1, name
        series = rows(os.path.join(runs[0].directory, "timeseries.csv"))
        tokens = [float(r["tokens"]) for r in series]
        times = [float(r["time"]) for r in series]
        losses = [float(r["test_loss"]) for r in series]
        by_tokens = by_gid[f"loss-tokens-{name}"]
        by_time = by_gid[f"loss-time-{name}"]
        assert list(by_tokens.get_xdata()) == tokens, (name, list(by_tokens.get_xdata()), tokens)
        assert list(by_tokens.get_ydata()) == losses, name
        assert list(by_time.get_xdata()) == times, name
        assert list(by_time.get_ydata()) == losses, name
        with open(os.path.join(runs[0].directory, "events.csv"), newline="") as f:
            struck = sorted({float(e["time"]) for e in csv.DictReader(f) if e["type"] == "failure"})
        assert len(struck) == failures[name], (name, struck)
        if struck:
            crosses = by_gid[f"failed-time-{name}"].get_offsets()
            assert [float(x) for x, _ in crosses] == struck, (name, crosses, struck)
            # On the tokens panel, at the tokens of the last evaluation before the failure.
            before = max(i for i, t in enumerate(times) if t <= struck[0])
            at = by_gid[f"failed-tokens-{name}"].get_offsets()[0]
            assert (float(at[0]), float(at[1])) == (tokens[before], losses[before]), (name, at)
        else:
            assert f"failed-time-{name}" not in by_gid, name
    print(f"{directory}: the loss figure draws {len(configs)} configuration(s) as their files")


def check_files(out):
    for ext in ("png", "svg"):
        path = os.path.join(out, f"loss.{ext}")
        assert os.path.getsize(path) > 1000, path
    assert "validation loss (nat)" in pathlib.Path(out, "loss.svg").read_text()


def sweep_of_two_designs(tmp):
    sweep = {
        "name": "tiny-lm",
        "scenarios": [str(SOURCE / "scenarios/cluster/lm/checkpoint-restart.json"),
                      str(SOURCE / "scenarios/cluster/lm/quorum.json")],
        "seeds": [1],
        "target_loss": TARGET,
        "figures": ["loss"],
        "vary": [
            {"path": "/model", "names": ["tiny"], "values": [TINY]},
            {"path": "/data/test_limit", "values": [128]},
            {"path": "/evaluation/interval", "values": ["100ms"]},
            {"path": "/stop", "names": ["160"], "values": [{"version": 160}]},
            {"path": "/failures/events", "names": ["node-1-at-100ms"],
             "values": [[{"target": "node", "index": 1, "at": "100ms", "down_for": "5s"}]]},
        ],
    }
    file = os.path.join(tmp, "tiny-lm.json")
    with open(file, "w") as f:
        json.dump(sweep, f)
    out = os.path.join(tmp, "sweep")
    status, stdout, stderr = failsim("sweep", file, "-j", "2", "-q", "-o", out, cwd=tmp)
    assert status == 0, stderr
    check_files(os.path.join(out, "figures"))
    assert "loss.svg" in stdout, stdout  # the figures' files, as failsim plot prints them

    # runs.csv: the first evaluation at or below the target, by hand from each run's file.
    runs = rows(os.path.join(out, "runs.csv"))
    assert len(runs) == 2
    for run in runs:
        series = rows(os.path.join(out, run["directory"], "timeseries.csv"))
        reached = first_at_or_below(series, TARGET)
        assert reached is not None, run["point"]
        assert float(run["time_to_target_loss_s"]) == reached[0], (run, reached)
        assert float(run["tokens_to_target_loss"]) == reached[1], (run, reached)
        assert float(run["final_test_loss"]) < TARGET
    table = pathlib.Path(out, "table.md").read_text()
    assert f"time to loss {TARGET:g} (s)" in table and "target validation loss" in table, table
    check_drawn(os.path.join(out, "runs"),
                {r["point"]: 1 for r in runs})

    # A target never reached: empty fields, not a made-up time.
    sweep["target_loss"] = 0.5
    with open(file, "w") as f:
        json.dump(sweep, f)
    status, _, stderr = failsim("sweep", file, "-q", "-o", out, "--collect", cwd=tmp)
    assert status == 0, stderr
    for run in rows(os.path.join(out, "runs.csv")):
        assert run["time_to_target_loss_s"] == "" and run["tokens_to_target_loss"] == "", run


def parameter_server_run(tmp):
    out = os.path.join(tmp, "ps")
    status, _, stderr = failsim(
        "run", str(SOURCE / "scenarios/examples/lm-ps.json"), "-q", "-o", out,
        "--set", "/model=" + json.dumps(TINY), "--set", "/data/test_limit=128",
        "--set", "/evaluation/interval=500ms", "--set", "/stop/time=3s",
        "--set", "/failures/events/0/at=1s", cwd=tmp)
    assert status == 0, stderr
    status, stdout, stderr = failsim("plot", out, "--figures", "loss", cwd=tmp)
    assert status == 0, stderr
    check_files(os.path.join(out, "figures"))
    check_drawn(out, {"lm-ps": 1})

    # A classifier has no tokens: one message, exit 2, no figure.
    quick = os.path.join(tmp, "quick")
    status, _, stderr = failsim("run", str(SOURCE / "scenarios/examples/quickstart.json"), "-q",
                                "-o", quick, cwd=tmp)
    assert status == 0, stderr
    status, _, stderr = failsim("plot", quick, "--figures", "loss", cwd=tmp)
    assert status == 2, (status, stderr)
    assert "expected a number in column tokens (the loss figure is of language models" in stderr, \
        stderr
    assert not os.path.exists(os.path.join(quick, "figures")), stderr


def main():
    if not os.path.isdir(FORTUNES):
        print(f"skipped: {FORTUNES} (Debian's fortunes, the corpus) is not installed")
        return 77
    import matplotlib
    matplotlib.use("Agg")
    with tempfile.TemporaryDirectory() as tmp:
        sweep_of_two_designs(tmp)
        parameter_server_run(tmp)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
