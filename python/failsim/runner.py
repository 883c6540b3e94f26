"""failsim.run and failsim.sweep: the failsim command run as a subprocess, its result loaded.

The scenario or sweep is checked by the command itself, so a mistake gets the command's own
message (file, JSON Pointer, what was expected, what was found) as a FailsimError.
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile

from . import overrides as _overrides
from .results import Run, Sweep

ENV_BINARY = "FAILSIM_BIN"


class FailsimError(RuntimeError):
    """The failsim command refused or failed: `status` is its exit status (docs/cli.md), and
    the message is what it printed on stderr."""

    def __init__(self, command, status, stderr):
        self.command, self.status, self.stderr = command, status, stderr
        super().__init__(f"failsim exited with status {status}: {stderr.strip()}")


def find_binary(binary=None):
    """The failsim executable: `binary` if given, else $FAILSIM_BIN, else `failsim` on PATH."""
    if binary is not None:
        where = f"binary={str(binary)!r}"
    elif os.environ.get(ENV_BINARY):
        binary, where = os.environ[ENV_BINARY], f"${ENV_BINARY}={os.environ[ENV_BINARY]!r}"
    else:
        found = shutil.which("failsim")
        if found is None:
            raise FileNotFoundError(
                "failsim: expected the failsim executable as binary=PATH, in $FAILSIM_BIN or "
                "on PATH, found none of them (build it with `cmake --build build --target "
                "failsim`: it is build/cli/failsim)")
        return found
    path = pathlib.Path(binary)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise FileNotFoundError(f"failsim: expected an executable file as {where}, found "
                                f"{'no such file' if not path.exists() else 'no executable'}")
    return str(path.resolve())


def _call(command):
    """Runs `command`; a KeyboardInterrupt (Ctrl-C in a terminal, a notebook's interrupt, which
    reaches this process alone) is passed on to it as SIGTERM and waited for, so that it stops
    as the command stops on Ctrl-C (docs/cli.md#interruptions) instead of being killed; the
    KeyboardInterrupt then carries its message. SIGTERM,
    not SIGINT: a process started in the background ignores SIGINT, and so would the command."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        try:
            _, stderr = process.communicate()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate()
            # What the command said: where it stopped, what it wrote.
            raise KeyboardInterrupt(stderr.strip()) from None
    if process.returncode != 0:
        raise FailsimError(command, process.returncode, stderr)


def _output(directory, prefix):
    """The output directory: the given one, or a new temporary one (kept: the result stays
    there for `failsim report` and the like)."""
    if directory is not None:
        return pathlib.Path(directory)
    return pathlib.Path(tempfile.mkdtemp(prefix=prefix)) / "result"


def _dict_file(document, what, scratch):
    """A dict written as the JSON file the command reads, in the temporary `scratch`."""
    if not isinstance(document, dict):
        raise TypeError(f"failsim: expected the {what} as a dict or a path, found "
                        f"{type(document).__name__}")
    path = pathlib.Path(scratch) / f"{what}.json"
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return str(path)


def run(scenario, *, directory=None, binary=None, threads=None, **overrides):
    """Runs one scenario with `failsim run` and returns its Run.

    scenario   a path to a scenario file, or the scenario as a dict (written to a temporary
               file: paths inside it are then best absolute)
    directory  the result directory (default: a new temporary directory)
    binary     the failsim executable (default: $FAILSIM_BIN, else `failsim` on PATH)
    threads    `failsim run --threads` (default: the command's own)
    overrides  fields of the scenario to set, as `failsim run --set` does: stop__time="1h",
               or **{"/failures/events/0/at": "40s", "recovery.checkpoint.every_steps": 50}
    """
    command = [find_binary(binary), "run"]
    out = _output(directory, "failsim-run-")
    with tempfile.TemporaryDirectory(prefix="failsim-scenario-") as scratch:
        if isinstance(scenario, (str, os.PathLike)):
            command.append(os.fspath(scenario))
        else:
            command.append(_dict_file(scenario, "scenario", scratch))
        command += _overrides.set_arguments(overrides)
        if threads is not None:
            command += ["--threads", str(threads)]
        command += ["-q", "-o", str(out)]
        _call(command)
    return Run(out)


def sweep(sweep_file, *, directory=None, binary=None, jobs=None, **overrides):
    """Runs a sweep with `failsim sweep` and returns its Sweep (runs.csv as `.runs`).

    sweep_file  a path to a sweep file, or the sweep as a dict; relative paths of its
                "scenarios" are relative to the sweep file's directory, or for a dict to the
                current directory
    directory   the sweep's output directory (default: a new temporary directory); a
                directory holding part of the same sweep is resumed, as the command does
    jobs        runs at a time (`-j`; default: one per core)
    overrides   fields of the sweep file to set, in the forms run() takes: seeds=[1, 2]
    """
    if isinstance(sweep_file, (str, os.PathLike)):
        base = pathlib.Path(sweep_file).resolve().parent
        if not overrides:
            document = None
        else:
            with open(sweep_file, encoding="utf-8") as f:
                document = json.load(f)
    else:
        base, document = pathlib.Path.cwd(), sweep_file
    command = [find_binary(binary), "sweep"]
    out = _output(directory, "failsim-sweep-")
    with tempfile.TemporaryDirectory(prefix="failsim-sweep-file-") as scratch:
        if document is None:
            command.append(os.fspath(sweep_file))
        else:
            document = _overrides.apply(document, overrides)
            if isinstance(document.get("scenarios"), list):
                document["scenarios"] = [
                    str(base / s) if isinstance(s, str) else s for s in document["scenarios"]]
            command.append(_dict_file(document, "sweep", scratch))
        if jobs is not None:
            command += ["-j", str(jobs)]
        command += ["-q", "-o", str(out)]
        _call(command)
    return Sweep(out)
