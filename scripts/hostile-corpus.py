#!/usr/bin/python3
"""Runs the hostile corpus of collective inputs (tests/hostile/cases.json) and classifies each case.

    /usr/bin/python3 scripts/hostile-corpus.py [FAILSIM] [-j N] [--timeout S] [--memory GIB]
                                               [--output-cap MIB] [--only SUBSTRING]... [--keep DIR]

Each case runs in a fresh directory of its own (its files copied there, its large inputs made
there), as a process group of its own, with RLIMIT_AS (--memory, default 6 GiB) and RLIMIT_FSIZE
set, for at most --timeout seconds (default 20). Classes (docs/testing.md, "The hostile corpus"):

  clean     exit 0; or exit 2 with a short message in UTF-8 that names what was expected and what
            was found (and no wrapped, negative count), no traceback, and nothing written (no
            output directory, nothing new in the working directory); or a status the case lists
            in `exits` (3: an output directory that cannot be written) with a message naming the path
  crash     killed by a signal (SIGSEGV, SIGABRT without an out-of-memory message, ...)
  hang      still running at the timeout (SIGTERM, then SIGKILL a second and a half later)
  blow-up   std::bad_alloc, "terminate called", the address-space limit reached, or more than
            --output-cap MiB (default 50) written (output directory, working directory, stdout
            and stderr together)
  unclear   any other non-zero exit, or an error message that is long, not UTF-8, holds a
            traceback or names no expectation and found value, or a half-written output directory

A case with "interrupt_after": S is sent SIGTERM S seconds after it starts, as `kill` would send
it (to the process, not its group): unless it ended before, it is clean only if it exits with
status 143 within INTERRUPT_ANSWER seconds (1) of the signal, with a short UTF-8 message that says
it was "interrupted by SIGTERM", and wrote nothing; later it is a hang, otherwise unclear.

Prints one line per case that is not clean, then the count per class; exits 1 unless every case
is clean. Standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(REPO, "tests", "hostile")
CLASSES = ["clean", "crash", "hang", "blow-up", "unclear"]
# Seconds within which a case's SIGTERM ("interrupt_after") must end it.
INTERRUPT_ANSWER = 1.0
MAX_MESSAGE_LINES = 6
MAX_MESSAGE_CHARS = 4000
# A count of things that is negative or zero in a message: a product that wrapped around.
WRAPPED_COUNT = re.compile(r"= -\d+ \w+|= 0 (ranks|nodes|accelerators)\b")
OOM_MARKERS = [b"std::bad_alloc", b"terminate called", b"std::length_error", b"out of memory",
               b"Cannot allocate memory", b"mmap failed", b"failed to allocate"]


# ---------------------------------------------------------------------------------------------
# Inputs made at run time.
def pointer_keys(pointer):
    return [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]


def at_pointer(doc, pointer):
    """The parent of the pointer's target and the last key (an int for a list)."""
    keys = pointer_keys(pointer)
    node = doc
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    return node, (int(last) if isinstance(node, list) else last)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def gen_random_bytes(path, spec):
    rng = random.Random(spec.get("seed", 0))
    with open(path, "wb") as f:
        f.write(bytes(rng.getrandbits(8) for _ in range(spec["bytes"])))


def gen_nest(path, spec):
    """Replaces the value at the pointer by arrays (or objects) nested depth deep."""
    doc = load(path)
    parent, key = at_pointer(doc, spec["pointer"])
    marker = "@@NEST@@"
    parent[key] = marker
    text = json.dumps(doc, ensure_ascii=False)
    depth = spec["depth"]
    if spec.get("object"):
        nested = '{"a":' * depth + "1" + "}" * depth
    else:
        nested = "[" * depth + "]" * depth
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(json.dumps(marker), nested, 1))


def gen_pad_string(path, spec):
    doc = load(path)
    parent, key = at_pointer(doc, spec["pointer"])
    parent[key] = "x" * spec["bytes"]
    save(path, doc)


def gen_long_key(path, spec):
    doc = load(path)
    parent, key = at_pointer(doc, spec["pointer"] + "/placeholder")
    parent["k" * spec["bytes"]] = 1
    save(path, doc)


def gen_repeat_list(path, spec):
    """The list at the pointer grown to count copies of its first item, step_field(s) stepped."""
    doc = load(path)
    parent, key = at_pointer(doc, spec["pointer"])
    items = parent[key]
    first = items[0]
    fields = spec.get("step_field")
    if isinstance(fields, str):
        fields = [fields]
    out = []
    for i in range(spec["count"]):
        item = dict(first) if isinstance(first, dict) else first
        for f in fields or []:
            item[f] = first[f] + i * spec.get("step", 0)
        out.append(item)
    parent[key] = out
    save(path, doc)


def gen_trace(path, spec):
    """A fault trace of `faults` faults over `nodes` nodes, `spacing_days` apart, each repaired."""
    events = []
    nodes = spec["nodes"]
    for i in range(spec["faults"]):
        t = 0.001 + i * spec["spacing_days"]
        ft = {"Level": "Hardware Failure", "Class": "GPU", "Desc": "generated"}
        events.append({"node_id": f"n{i % nodes}", "event_time": t, "event_type": "fault_start",
                       "fault_type": ft})
        if spec.get("repair_days") is not None:
            events.append({"node_id": f"n{i % nodes}", "event_time": t + spec["repair_days"],
                           "event_type": "fault_end", "fault_type": ft})
    events.sort(key=lambda e: e["event_time"])
    save(path, events)


def gen_copies(path, spec):
    d = os.path.join(os.path.dirname(path), spec["dir"])
    os.makedirs(d, exist_ok=True)
    for i in range(spec["count"]):
        shutil.copyfile(path, os.path.join(d, f"s{i:05d}.json"))


GENERATORS = {"random_bytes": gen_random_bytes, "nest": gen_nest, "pad_string": gen_pad_string,
              "long_key": gen_long_key, "repeat_list": gen_repeat_list, "trace": gen_trace,
              "copies": gen_copies}


# ---------------------------------------------------------------------------------------------
# One case.
def expand_argv(case, places, case_copy):
    out = []

    def subst(s):
        m = re.fullmatch(r"\{case_glob:(.+)\}", s)
        if m:
            import glob
            return sorted(glob.glob(os.path.join(case_copy, m.group(1))))
        for k, v in places.items():
            s = s.replace("{" + k + "}", v)
        return [s]

    for item in case["argv"]:
        if isinstance(item, dict) and "repeat" in item:
            for _ in range(item["repeat"]):
                for a in item["args"]:
                    out.extend(subst(a))
        elif isinstance(item, dict) and "nest" in item:
            out.append(item.get("prefix", "") + "[" * item["nest"] + "]" * item["nest"])
        else:
            out.extend(subst(item))
    # Lone surrogates stand for bytes that are not UTF-8: pass those bytes.
    return [os.fsencode(a) if isinstance(a, str) else a for a in out]


def tree_size(path):
    total = 0
    for root, dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def tree_files(path):
    found = []
    for root, dirs, files in os.walk(path):
        for name in files:
            found.append(os.path.relpath(os.path.join(root, name), path))
    return found


def descendants(pid):
    """Every live process below pid, from /proc (the sweep's runs may be in groups of their own)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        except (OSError, ValueError):
            pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(pid, sig):
    for p in descendants(pid) + [pid]:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass


def run_case(case, args, base_tmp):
    try:
        return run_one(case, args, base_tmp)
    except Exception as e:  # the harness's own failure: reported, never taken for clean
        return {"name": case["name"], "class": case["class"], "exit": None, "seconds": 0,
                "max_rss_mib": None, "written_bytes": 0, "verdict": "unclear",
                "why": f"the harness could not run it: {type(e).__name__}: {e}"[:300], "message": ""}


def run_one(case, args, base_tmp):
    root = tempfile.mkdtemp(prefix=case["name"][:40] + ".", dir=base_tmp)
    case_copy = os.path.join(root, "case")
    work = os.path.join(root, "w1", "w2", "work")  # so that ../../x in a case stays in root
    out_dir = os.path.join(root, "out")
    os.makedirs(work)
    src = os.path.join(CORPUS, "cases", case["name"])
    # A case of generated or device inputs only has an empty directory, which git does not keep.
    if os.path.isdir(src):
        shutil.copytree(src, case_copy)
    else:
        os.makedirs(case_copy)
    for dirpath, _, files in os.walk(case_copy):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as f:
                data = f.read()
            if b"@REPO@" in data:
                with open(p, "wb") as f:
                    f.write(data.replace(b"@REPO@", REPO.encode()))
    for spec in case.get("generate", []):
        GENERATORS[spec["kind"]](os.path.join(case_copy, spec["file"]), spec)
    places = {"failsim": args.failsim, "case": case_copy, "out": out_dir, "work": work, "repo": REPO}
    argv = expand_argv(case, places, case_copy)
    before = set(tree_files(root))
    inputs = tree_size(root)
    cap = args.output_cap * 1024 * 1024
    mem = int(args.memory * 1024 ** 3)

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap + 1024 * 1024, cap + 1024 * 1024))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    stdout_path = os.path.join(root, "stdout")
    stderr_path = os.path.join(root, "stderr")
    start = time.monotonic()
    with open(stdout_path, "wb") as so, open(stderr_path, "wb") as se:
        proc = subprocess.Popen(argv, cwd=work, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                preexec_fn=limits, start_new_session=True)
        timed_out = term_answered = output_blown = False
        status = rusage = None
        interrupt_after = case.get("interrupt_after")
        signalled_at = None  # when the case's own SIGTERM was sent
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.monotonic() - start
            if interrupt_after is not None and signalled_at is None and elapsed >= interrupt_after:
                os.kill(proc.pid, signal.SIGTERM)
                signalled_at = time.monotonic()
            if tree_size(root) - inputs > cap or elapsed > args.timeout:
                output_blown = elapsed <= args.timeout
                timed_out = not output_blown
                kill_tree(proc.pid, signal.SIGTERM)
                deadline = time.monotonic() + 1.5
                while time.monotonic() < deadline:
                    pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
                    if pid:
                        term_answered = True
                        break
                    time.sleep(0.05)
                if not pid:
                    kill_tree(proc.pid, signal.SIGKILL)
                    _, status, rusage = os.wait4(proc.pid, 0)
                break
            # Finely after the case's SIGTERM (its answer is timed), and before it is due.
            near_signal = interrupt_after is not None and (
                signalled_at is not None or interrupt_after - elapsed < 0.3)
            time.sleep(0.01 if near_signal else 0.1 if elapsed < 2 else 0.3)
        proc.returncode = 0  # reaped by wait4: keep Popen from waiting again
    ended = time.monotonic()
    seconds = ended - start
    answered_in = ended - signalled_at if signalled_at is not None and not timed_out else None
    # Children of a sweep left behind (their own groups): stop them too.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    code = os.waitstatus_to_exitcode(status)
    with open(stderr_path, "rb") as f:
        err = f.read(1 << 20)
    written = tree_size(root) - inputs
    after = set(tree_files(root))
    new_files = sorted(p for p in after - before
                       if p not in ("stdout", "stderr") and not p.startswith("case" + os.sep))
    result = {"name": case["name"], "class": case["class"], "exit": code, "seconds": round(seconds, 2),
              "max_rss_mib": round(rusage.ru_maxrss / 1024, 1) if rusage else None,
              "written_bytes": written}
    longest_arg = max((len(a) for a in argv), default=0)
    if signalled_at is not None:
        result["answered_in"] = round(answered_in, 3) if answered_in is not None else None
        verdict, why = classify_interrupted(code, timed_out, answered_in, err, written, cap,
                                            new_files, out_dir, longest_arg)
    else:
        verdict, why = classify(case, code, timed_out, term_answered, output_blown, err, written,
                                cap, new_files, out_dir, longest_arg)
    result["verdict"], result["why"] = verdict, why
    result["message"] = first_line(err)
    if args.keep:
        dest = os.path.join(args.keep, case["name"])
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns("case"))
    shutil.rmtree(root, ignore_errors=True)
    return result


def first_line(err):
    text = err.decode("utf-8", "backslashreplace").strip()
    line = text.splitlines()[0] if text else ""
    return line[:300]


def nothing_written(code, out_dir, new_files):
    """Clean unless the case left an output directory with files or new files elsewhere."""
    if os.path.exists(out_dir) and tree_files(out_dir):
        return "unclear", f"exit {code} and a half-written output directory"
    if new_files:
        return "unclear", f"exit {code} and files written: {', '.join(new_files[:3])}"
    return "clean", ""


def classify(case, code, timed_out, term_answered, output_blown, err, written, cap, new_files, out_dir,
             longest_arg=0):
    if timed_out:
        return "hang", ("timeout; SIGTERM answered" if term_answered
                        else "timeout; SIGTERM ignored for 1.5 s, killed")
    if output_blown or written > cap or code == -signal.SIGXFSZ:
        return "blow-up", f"output over {cap // (1024 * 1024)} MiB ({written / 1048576:.0f} MiB written)"
    for marker in OOM_MARKERS:
        if marker in err:
            return "blow-up", marker.decode()
    if code < 0:
        return "crash", signal.Signals(-code).name
    try:
        text = err.decode("utf-8")
    except UnicodeDecodeError as e:
        return "unclear", f"exit {code}; stderr not UTF-8 (byte {e.start})"
    if "Traceback" in text:
        return "unclear", f"exit {code}; a traceback"
    if code == 0:
        return "clean", ""
    if code != 2 and code not in case.get("exits", []):
        return "unclear", f"unexpected exit status {code}"
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        return "unclear", f"exit {code} with no message"
    if len(lines) > MAX_MESSAGE_LINES or len(text) > MAX_MESSAGE_CHARS + longest_arg:
        return "unclear", f"exit {code}; a message of {len(lines)} lines, {len(text)} characters"
    if any(ord(ch) < 32 and ch not in "\n\t" for ch in text):
        return "unclear", f"exit {code}; control characters in the message"
    low = text.lower()
    if code == 2 and ("expected" not in low or "found" not in low):
        return "unclear", f"exit {code}; the message names no expectation and found value"
    if code != 2 and "/" not in text:  # an output failure (status 3) names the path
        return "unclear", f"exit {code}; the message names no path"
    wrapped = WRAPPED_COUNT.search(text)
    if wrapped:
        return "unclear", f"exit {code}; the message prints an overflowed count ({wrapped.group(0)!r})"
    return nothing_written(code, out_dir, new_files)


def classify_interrupted(code, timed_out, answered_in, err, written, cap, new_files, out_dir,
                         longest_arg=0):
    """A case that was sent its SIGTERM ("interrupt_after") before it ended."""
    if timed_out or answered_in is None:
        return "hang", "its SIGTERM not answered before the timeout"
    if answered_in > INTERRUPT_ANSWER:
        return "hang", f"its SIGTERM answered in {answered_in:.2f} s (over {INTERRUPT_ANSWER:g} s)"
    if written > cap:
        return "blow-up", f"output over {cap // (1024 * 1024)} MiB ({written / 1048576:.0f} MiB written)"
    for marker in OOM_MARKERS:
        if marker in err:
            return "blow-up", marker.decode()
    if code == -signal.SIGTERM:
        return "unclear", "ended by its SIGTERM without a message (the signal was not caught)"
    if code < 0:
        return "crash", signal.Signals(-code).name
    if code != 128 + signal.SIGTERM:
        return "unclear", f"exit {code} after its SIGTERM (expected 143)"
    try:
        text = err.decode("utf-8")
    except UnicodeDecodeError as e:
        return "unclear", f"exit {code}; stderr not UTF-8 (byte {e.start})"
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines or len(lines) > MAX_MESSAGE_LINES or len(text) > MAX_MESSAGE_CHARS + longest_arg:
        return "unclear", f"exit {code}; a message of {len(lines)} lines, {len(text)} characters"
    if "interrupted by SIGTERM" not in text:
        return "unclear", f"exit {code}; the message does not say it was interrupted by SIGTERM"
    return nothing_written(code, out_dir, new_files)


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("failsim", nargs="?", default=os.path.join(REPO, "build", "cli", "failsim"))
    ap.add_argument("-j", type=int, default=1, help="cases at a time (default 1)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case (default 20)")
    ap.add_argument("--memory", type=float, default=6.0, help="address space per case, GiB (default 6)")
    ap.add_argument("--output-cap", type=int, default=50, help="MiB a case may write (default 50)")
    ap.add_argument("--only", action="append", default=[], help="run the cases whose name has this")
    ap.add_argument("--keep", help="copy each case's directory (stdout, stderr, outputs) here")
    ap.add_argument("--json", help="write every case's result to this file")
    args = ap.parse_args()
    args.failsim = os.path.abspath(args.failsim)
    if not os.access(args.failsim, os.X_OK):
        print(f"hostile-corpus: {args.failsim}: expected an executable failsim, found none", file=sys.stderr)
        return 2
    with open(os.path.join(CORPUS, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    if args.only:
        cases = [c for c in cases if any(s in c["name"] for s in args.only)]
    base_tmp = tempfile.mkdtemp(prefix="failsim-hostile.")
    results = []
    lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
            futures = [pool.submit(run_case, c, args, base_tmp) for c in cases]
            for fut in concurrent.futures.as_completed(futures):
                r = fut.result()
                with lock:
                    results.append(r)
                    if r["verdict"] != "clean":
                        print(f"{r['verdict']:8} {r['name']}: {r['why']} [{r['seconds']} s]  "
                              f"{r['message'][:160]}", flush=True)
    finally:
        shutil.rmtree(base_tmp, ignore_errors=True)
    results.sort(key=lambda r: r["name"])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    counts = {k: sum(1 for r in results if r["verdict"] == k) for k in CLASSES}
    print(f"{len(results)} cases: " + ", ".join(f"{counts[k]} {k}" for k in CLASSES))
    return 0 if counts["clean"] == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
