"""failsim from Python (docs/python.md): run a scenario or a sweep with the failsim command and
get its result as pandas DataFrames, or load result directories written before.

    import failsim
    run = failsim.run("scenarios/examples/quickstart.json", stop__time="5s")
    run.timeseries.plot(x="time", y="test_accuracy")
    sweep = failsim.sweep("scenarios/sweeps/quickstart.json", jobs=2)
    sweep.runs.groupby("point")["final_accuracy"].mean()

Pure Python (the standard library and pandas); the simulation is the failsim executable's.
"""

from .overrides import pointer
from .results import Run, Sweep, ResultError, load_run, load_sweep
from .runner import FailsimError, find_binary, run, sweep

__all__ = ["run", "sweep", "load_run", "load_sweep", "Run", "Sweep", "FailsimError",
           "ResultError", "find_binary", "pointer"]
