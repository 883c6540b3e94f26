"""Result directories as pandas DataFrames: a run's (docs/result-format.md) and a sweep's
runs.csv (docs/sweeps.md#output-directory). Columns are read as the files have them, so a
parameter-server run and a collective run load alike.

The vocabulary of results (failure windows, the causes of lost time, the keys that differ
between identical runs) is analysis/failsim_results.py's, imported from the source tree beside
this package, not written again here.
"""

import json
import os
import pathlib
import sys

import pandas as pd

_ANALYSIS = pathlib.Path(__file__).resolve().parents[2] / "analysis"


def _failsim_results():
    """analysis/failsim_results.py, the tools' vocabulary of results."""
    if str(_ANALYSIS) not in sys.path:
        sys.path.append(str(_ANALYSIS))
    import failsim_results  # noqa: E402 (found through the path above)
    return failsim_results


class ResultError(ValueError):
    """A directory that is not a complete result: says which file and what was expected."""


def _read_json(path, expected_format):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ResultError(f"{path}: expected a file written by failsim, found none") from None
    except (OSError, ValueError) as e:
        raise ResultError(f"{path}: expected JSON written by failsim, found: {e}") from None
    if not isinstance(data, dict) or data.get("format") != expected_format:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ResultError(f"{path}: expected /format \"{expected_format}\", found "
                          f"{json.dumps(found)}")
    return data


def _read_csv(path):
    """A CSV file as written (None when absent): numbers as numbers, empty cells as NaN."""
    if not os.path.exists(path):
        return None
    try:
        # Exactly the doubles written (the shortest decimal of each): pandas' default parser
        # reads 0.30000000000000004 as 0.3.
        return pd.read_csv(path, float_precision="round_trip")
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


class Run:
    """One run's result directory (docs/result-format.md).

    result      the parsed result.json (a dict)
    summary     its "summary" (a dict; a collective run's figures are under "collective")
    scenario    its "scenario": the resolved scenario, every default filled in
    timeseries  timeseries.csv as a DataFrame (None when output.timeseries was false)
    events      result.json's events as a DataFrame: time, type, subject, and one column
                "details.<key>" per detail any event has
    intervals   intervals.csv as a DataFrame (None unless output.intervals was true)
    """

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        self.result = _read_json(self.directory / "result.json", "failsim-result")
        self.summary = self.result.get("summary", {})
        self.scenario = self.result.get("scenario", {})
        self.timeseries = _read_csv(self.directory / "timeseries.csv")
        self.intervals = _read_csv(self.directory / "intervals.csv")
        events = self.result.get("events", [])
        self.events = pd.json_normalize(events) if events else pd.DataFrame()
        first = [c for c in ("time", "type", "subject") if c in self.events or not events]
        self.events = self.events.reindex(
            columns=first + [c for c in self.events.columns if c not in first])

    @property
    def protocol(self):
        return self.scenario.get("protocol", "parameter-server")

    def failure_windows(self):
        """Every failure as a row begin, end, host, link: analysis/failsim_results.py's
        failure_windows (docs/tables.md#failures-and-failure-windows)."""
        fr = _failsim_results()
        windows = fr.failure_windows(self.result.get("events", []), self.summary["end_time"])
        return pd.DataFrame(windows, columns=fr.FailureWindow._fields)

    def __repr__(self):
        return f"failsim.Run({str(self.directory)!r}, {self.protocol}, " \
               f"status {self.summary.get('status')!r})"


def load_run(directory):
    """The run whose result directory is `directory`, as a Run."""
    return Run(directory)


def load_sweep(directory):
    """The runs.csv of the sweep written to `directory`: one row per run, its columns as
    docs/sweeps.md lists them (varied pointers, seed, status, the figures, directory)."""
    path = pathlib.Path(directory) / "runs.csv"
    runs = _read_csv(path)
    if runs is None:
        raise ResultError(f"{path}: expected the runs of a sweep (written by `failsim sweep`), "
                          f"found none")
    return runs


class Sweep:
    """A sweep's output directory (docs/sweeps.md#output-directory).

    runs   runs.csv as a DataFrame (load_sweep)
    plan   the parsed sweep.json: its points and runs
    """

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        self.plan = _read_json(self.directory / "sweep.json", "failsim-sweep-plan")
        self.runs = load_sweep(self.directory)

    def run(self, index):
        """The Run of runs.csv's row with this `index`."""
        rows = self.runs[self.runs["index"] == index]
        if rows.empty:
            raise ResultError(f"{self.directory / 'runs.csv'}: expected a run of index "
                              f"{index}, found none")
        return Run(self.directory / rows.iloc[0]["directory"])

    def __repr__(self):
        return f"failsim.Sweep({str(self.directory)!r}, {len(self.runs)} runs)"
