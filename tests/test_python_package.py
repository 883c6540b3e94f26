"""The Python package python/failsim (docs/python.md) used as a notebook would: a scenario of
each protocol run from a path and from a dict, with overrides in each form, a sweep from a dict
and one from a path, and every DataFrame checked against the files failsim wrote, read here with
the csv and json modules alone. Mistakes come back as the command's one message.

Usage: /usr/bin/python3 tests/test_python_package.py FAILSIM_BINARY (ctest runs it).
"""

import csv
import json
import math
import os
import pathlib
import signal
import sys
import tempfile
import time
import unittest

SOURCE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SOURCE / "python"))
import failsim  # noqa: E402

BINARY = None  # set from the command line


def csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def same_cell(text, value):
    """A CSV cell as written against the DataFrame's value read from it."""
    if text == "":
        return value is None or (isinstance(value, float) and math.isnan(value))
    try:
        return math.isclose(float(text), float(value), rel_tol=0, abs_tol=0)
    except (TypeError, ValueError):
        return text == str(value)


class Files(unittest.TestCase):
    def check_csv(self, frame, path):
        """`frame` holds the CSV file at `path` exactly: its columns, rows and cells."""
        rows = csv_rows(path)
        with open(path, encoding="utf-8") as f:
            header = next(csv.reader(f))
        self.assertEqual(list(frame.columns), header, path)
        self.assertEqual(len(frame), len(rows), path)
        for i, row in enumerate(rows):
            for column in header:
                self.assertTrue(same_cell(row[column], frame.iloc[i][column]),
                                f"{path} row {i} column {column}: {row[column]!r} against "
                                f"{frame.iloc[i][column]!r}")

    def check_run(self, run):
        """A Run against its directory's files."""
        result = json.loads((run.directory / "result.json").read_text())
        self.assertEqual(run.summary, result["summary"])
        self.assertEqual(run.scenario, result["scenario"])
        self.check_csv(run.timeseries, run.directory / "timeseries.csv")
        # The events: result.json's list, its details as columns; events.csv has the same rows.
        events = result["events"]
        self.assertEqual(len(run.events), len(events))
        self.assertEqual(len(run.events), len(csv_rows(run.directory / "events.csv")))
        self.assertEqual(list(run.events.columns[:3]), ["time", "type", "subject"])
        for i, event in enumerate(events):
            self.assertEqual(run.events.iloc[i]["time"], event["time"])
            self.assertEqual(run.events.iloc[i]["type"], event["type"])
            self.assertEqual(run.events.iloc[i]["subject"], event["subject"])
            for key, value in event.get("details", {}).items():
                if not isinstance(value, (dict, list)):
                    self.assertEqual(run.events.iloc[i][f"details.{key}"], value)
        self.assertEqual(failsim.load_run(run.directory).summary, run.summary)


class RunTest(Files):
    def test_parameter_server_from_a_path_with_overrides(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "quick"
            run = failsim.run(SOURCE / "scenarios/examples/quickstart.json", directory=out,
                              binary=BINARY, stop__time="1s", seed=3,
                              **{"optimizer.learning_rate": 0.02})
            self.assertEqual(run.directory, out)
            self.assertEqual(run.protocol, "parameter-server")
            self.assertEqual(run.scenario["stop"]["time"], 1.0)
            self.assertEqual(run.scenario["seed"], 3)
            self.assertEqual(run.scenario["optimizer"]["learning_rate"], 0.02)
            self.assertEqual(run.summary["end_time"], 1.0)
            self.assertLessEqual(run.timeseries["time"].max(), 1.0)
            self.assertIn("test_accuracy", run.timeseries.columns)
            self.check_run(run)
            self.assertTrue(run.failure_windows().empty)

    def test_collective_from_a_dict_in_a_temporary_directory(self):
        scenario = json.loads((SOURCE / "scenarios/cluster/dp64-7b.json").read_text())
        scenario["stop"]["time"] = "2h"
        # The binary from $FAILSIM_BIN, the result in a new temporary directory.
        os.environ[failsim.runner.ENV_BINARY] = BINARY
        try:
            run = failsim.run(scenario, **{"/failures/events/0/at": "30min"})
        finally:
            del os.environ[failsim.runner.ENV_BINARY]
        self.assertTrue(run.directory.is_dir())
        self.assertEqual(run.protocol, "collective")
        self.assertEqual(run.summary["end_time"], 7200.0)
        self.assertGreater(run.summary["collective"]["ettr"], 0.0)
        self.check_run(run)
        # The one node failure, at 30 min, for 30 min: failsim_results' window of it.
        windows = run.failure_windows()
        self.assertEqual(len(windows), 1)
        self.assertEqual((windows["begin"][0], windows["end"][0]), (1800.0, 3600.0))
        self.assertIn("failure", set(run.events["type"]))

    def test_a_mistake_is_the_command_s_message(self):
        with self.assertRaises(failsim.FailsimError) as caught:
            failsim.run(SOURCE / "scenarios/examples/quickstart.json", binary=BINARY,
                        stop__time="soon")
        self.assertEqual(caught.exception.status, 2)
        self.assertIn("/stop/time", str(caught.exception))
        with self.assertRaises(ValueError) as bad:
            failsim.run(SOURCE / "scenarios/examples/quickstart.json", binary=BINARY,
                        **{"stop..time": "1s"})
        self.assertIn("empty", str(bad.exception))

    def test_keyboard_interrupt_stops_the_command_which_writes_nothing(self):
        def interrupt(signum, frame):
            raise KeyboardInterrupt()

        previous = signal.signal(signal.SIGALRM, interrupt)
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "long"
            start = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, 1.0)
            try:
                with self.assertRaises(KeyboardInterrupt) as caught:
                    failsim.run(SOURCE / "scenarios/examples/quickstart.json", directory=out,
                                binary=BINARY, threads=1, stop__time="10000s")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            # The command answered (a whole run takes minutes), said so and wrote nothing.
            self.assertLess(time.monotonic() - start, 30.0)
            self.assertRegex(str(caught.exception),
                             r"^failsim run: interrupted by SIGTERM at simulated time [0-9.]+ s; "
                             r"nothing was written to " + str(out) + "$")
            self.assertFalse(out.exists())


class BinaryTest(unittest.TestCase):
    def test_found_by_argument_variable_or_path_and_said_when_missing(self):
        self.assertEqual(failsim.find_binary(BINARY), str(pathlib.Path(BINARY).resolve()))
        saved = {k: os.environ.get(k) for k in ("PATH", failsim.runner.ENV_BINARY)}
        try:
            os.environ.pop(failsim.runner.ENV_BINARY, None)
            with tempfile.TemporaryDirectory() as tmp:
                os.symlink(BINARY, pathlib.Path(tmp) / "failsim")
                os.environ["PATH"] = tmp
                self.assertEqual(failsim.find_binary(), str(pathlib.Path(tmp) / "failsim"))
            os.environ["PATH"] = "/nonexistent"
            with self.assertRaises(FileNotFoundError) as none:
                failsim.find_binary()
            self.assertIn("FAILSIM_BIN", str(none.exception))
            os.environ[failsim.runner.ENV_BINARY] = "/nonexistent/failsim"
            with self.assertRaises(FileNotFoundError) as wrong:
                failsim.find_binary()
            self.assertIn("$FAILSIM_BIN='/nonexistent/failsim'", str(wrong.exception))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_override_keys(self):
        self.assertEqual(failsim.pointer("/stop/time"), "/stop/time")
        self.assertEqual(failsim.pointer("stop.time"), "/stop/time")
        self.assertEqual(failsim.pointer("stop__time"), "/stop/time")
        self.assertEqual(failsim.pointer("failures.events.0.at"), "/failures/events/0/at")
        self.assertEqual(failsim.pointer("a~b"), "/a~0b")


class SweepTest(Files):
    def check_sweep(self, sweep):
        self.check_csv(sweep.runs, sweep.directory / "runs.csv")
        self.check_csv(failsim.load_sweep(sweep.directory), sweep.directory / "runs.csv")
        plan = json.loads((sweep.directory / "sweep.json").read_text())
        self.assertEqual(len(sweep.runs), len(plan["runs"]))
        self.assertEqual(set(sweep.runs["status"]), {"completed"})
        for index in sweep.runs["index"]:
            run = sweep.run(index)
            self.check_run(run)
            row = sweep.runs[sweep.runs["index"] == index].iloc[0]
            self.assertEqual(row["end_time_s"], run.summary["end_time"])

    def test_parameter_server_sweep_from_a_dict(self):
        # Relative scenario paths of a dict are relative to the current directory.
        os.chdir(SOURCE)
        spec = {"name": "tiny", "scenarios": ["scenarios/examples/quickstart.json"],
                "seeds": [1, 2],
                "vary": [{"path": "/optimizer/learning_rate", "values": [0.01, 0.05]}]}
        with tempfile.TemporaryDirectory() as tmp:
            sweep = failsim.sweep(spec, directory=pathlib.Path(tmp) / "s", binary=BINARY,
                                  jobs=2, **{"vary.0.values": [0.01, 0.1]})
            self.assertEqual(len(sweep.runs), 4)
            self.assertEqual(sorted(set(sweep.runs["optimizer_learning_rate"])), [0.01, 0.1])
            self.check_sweep(sweep)

    def test_collective_sweep_from_a_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            sweep = failsim.sweep(SOURCE / "scenarios/sweeps/collective-checkpoint.json",
                                  directory=pathlib.Path(tmp) / "c", binary=BINARY, jobs=2,
                                  seeds=[1])
            self.assertEqual(len(sweep.runs), 3)
            self.assertEqual(list(sweep.runs["seed"]), [1, 1, 1])
            self.assertEqual(sweep.plan["format"], "failsim-sweep-plan")
            for _, row in sweep.runs.iterrows():
                self.assertEqual(row["ettr"],
                                 sweep.run(row["index"]).summary["collective"]["ettr"])
            self.check_sweep(sweep)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_python_package.py FAILSIM_BINARY")
    BINARY = str(pathlib.Path(sys.argv.pop(1)).resolve())
    unittest.main(verbosity=2)
