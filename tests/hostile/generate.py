#!/usr/bin/python3
"""Writes the hostile corpus of collective inputs: tests/hostile/cases/NAME/ and cases.json.

The corpus is what a fuzzer and a careless user feed `failsim` in the collective world (issue 32):
broken JSON, wrong types, huge and tiny values, products of fields that overflow int, stops that
bound no work, storms of failures and slow spells, output and set-up of no bound, every recovery
design with bad settings, fault traces, rate tables, `trace fit`, sweeps, `--set`, `validate`,
`--dry-run` and the command line. Each case is a directory of small files; inputs too large to
commit are made at run time by scripts/hostile-corpus.py from the case's `generate` entries.

Run it again after editing (`/usr/bin/python3 tests/hostile/generate.py`): it rewrites
tests/hostile/cases/ and tests/hostile/cases.json from this file alone (deterministic).

cases.json holds a list of cases, each:
  name       the case's directory under tests/hostile/cases/
  class      what kind of hostile input it is (syntax, overflow, unbounded-work, ...)
  argv       the command line; placeholders {failsim} (the binary), {case} (a fresh copy of the
             case's directory), {out} (a fresh output directory that does not exist yet),
             {work} (the working directory of the run), {repo} (the repository's root);
             an item {"repeat": N, "args": [...]} stands for N copies of its args
  generate   (optional) files made at run time in the copy of the case, before the run
  exits      (optional) exit statuses besides 0 and 2 that are clean for this case (3 for an
             output directory that cannot be written, as docs/cli.md says)
  interrupt_after
             (optional) seconds after which the case is sent SIGTERM: unless it ended before, it
             must exit 143 within a second with its "interrupted by SIGTERM" message, writing
             nothing (a set-up of millions of ranks must answer a signal as a simulation does)
  note       what the case does
Files of a case may hold @REPO@, replaced by the repository's root in the copy.
"""

import copy
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")

DEL = object()  # a value that removes the key


def FIX(v):
    return {"distribution": "fixed", "value": v}


def EXP(v):
    return {"distribution": "exponential", "mean": v}

NODE_A100_HALF = {
    "description": "Half an 8 x A100 node: 4 GPUs, 4 NICs (the a100-8x preset written out).",
    "sources": ["scenarios/cluster/nodes/a100-8x.json, halved"],
    "accelerators": 4,
    "accelerator_speed": "312Tf",
    "device_memory": "80GB",
    "host_memory": "1TiB",
    "intra_bandwidth": "300GBps",
    "intra_latency": "1us",
    "nics": 4,
    "nic_bandwidth": "200Gbps",
    "nic_latency": "2us",
}

# Time only, 16 accelerators, a few hundred steps in two hours: the start of most cases.
BASE_TIME = {
    "protocol": "collective",
    "name": "hostile",
    "description": "A small time-only collective job, the base of the hostile corpus.",
    "seed": 7,
    "platform": {
        "node": NODE_A100_HALF,
        "nodes": 4,
        "topology": {"kind": "fat-tree", "nodes_per_leaf": 2, "spines": 1, "uplinks": 2,
                     "uplink_bandwidth": "50GBps", "switch_latency": "1us"},
        "file_system": {"write_bandwidth": "20GBps", "read_bandwidth": "40GBps", "latency": "100us"},
        "domains": {"nodes_per_rack": 2, "racks_per_power": 1},
    },
    "layout": {"dp": 2, "tp": 2, "pp": 4, "zero_stage": 3, "micro_batches": 8,
               "tp_across_nodes": False, "dp_algorithm": "ring", "overlap": False},
    "workload": {
        "transformer": {"parameters": 1.3e9, "layers": 24, "hidden": 2048, "heads": 16,
                        "sequence": 2048, "global_batch_tokens": 524288},
        "achieved_fraction": 0.45,
        "precision_bytes": 2,
        "checkpoint_bytes_per_parameter": 14,
        "memory_bytes_per_parameter": 16,
        "recompute": "full",
        "math": "none",
    },
    "stop": {"time": "2h"},
    "failures": {
        "detection": {"kind": "heartbeat", "interval": "5s", "misses": 2},
        "events": [{"target": "node", "index": 1, "at": "30min", "down_for": "20min"}],
    },
    "recovery": {
        "strategy": "checkpoint-restart",
        "checkpoint": {"every_steps": 200, "mode": "blocking"},
        "restart": {"scheduler_delay": "60s", "process_start": "30s", "init_base": "5s",
                    "init_per_rank": "5ms"},
    },
    "output": {"timeseries": True, "events": True},
}

# Real math (softmax on synthetic data) timed as a small transformer: 8 accelerators, dp 8.
BASE_REAL = {
    "protocol": "collective",
    "name": "hostile-real",
    "description": "A small collective job with real math, the base of the corpus's math cases.",
    "seed": 3,
    "data": {"kind": "synthetic", "num_classes": 4, "dim": 8, "train_size": 2000, "test_size": 400},
    "model": {"kind": "softmax"},
    "optimizer": {"learning_rate": 0.05, "batch_size": 16},
    "platform": {
        "node": NODE_A100_HALF,
        "nodes": 2,
        "topology": {"kind": "fat-tree", "nodes_per_leaf": 2, "spines": 1},
        "file_system": {"write_bandwidth": "20GBps", "read_bandwidth": "40GBps"},
        "domains": {"nodes_per_rack": 1, "racks_per_power": 2},
    },
    "layout": {"dp": 8, "tp": 1, "pp": 1, "zero_stage": 0, "micro_batches": 2,
               "dp_algorithm": "ring", "overlap": True},
    "workload": {
        "transformer": {"parameters": 1e8, "layers": 8, "hidden": 1024, "sequence": 1024,
                        "global_batch_tokens": 262144},
        "achieved_fraction": 0.4,
    },
    "evaluation": {"interval": "2min", "test_subset": 200},
    "stop": {"time": "30min"},
    "failures": {
        "detection": {"kind": "watchdog", "timeout": "2min"},
        "events": [{"target": "node", "index": 1, "at": "10min", "down_for": "5min"}],
    },
    "recovery": {"strategy": "checkpoint-restart", "checkpoint": {"every_steps": 50, "mode": "blocking"}},
}

SMALL_TRACE = [
    {"node_id": "a", "event_time": 0.01, "event_type": "fault_start",
     "fault_type": {"Level": "Hardware Failure", "Class": "GPU", "Desc": "GPU Lost"}},
    {"node_id": "b", "event_time": 0.02, "event_type": "fault_start",
     "fault_type": {"Level": "Hardware Failure", "Class": "Power Supply", "Desc": "PSU Lost"}},
    {"node_id": "a", "event_time": 0.03, "event_type": "fault_end",
     "fault_type": {"Level": "Hardware Failure", "Class": "GPU", "Desc": "GPU Lost"}},
    {"node_id": "b", "event_time": 0.05, "event_type": "fault_end"},
]

RATES = {
    "name": "hostile-rates",
    "source": "made up for the hostile corpus",
    "window": "54d",
    "population": {"accelerator": 16384, "node": 2048, "nic": 2048},
    "causes": [
        {"cause": "faulty GPU", "count": 148, "target": "accelerator", "host_memory_lost": False},
        {"cause": "software bug", "count": 54, "target": "node", "host_memory_lost": False},
        {"cause": "cable", "count": 35, "target": "nic", "host_memory_lost": False},
    ],
}

RUN = ["{failsim}", "run", "{case}/scenario.json", "-o", "{out}"]
DRY = ["{failsim}", "run", "{case}/scenario.json", "-o", "{out}", "--dry-run"]
VALIDATE = ["{failsim}", "validate", "{case}/scenario.json"]

cases = []
files_of = {}


def set_pointer(doc, pointer, value):
    """Sets (or with DEL removes) the field at a JSON Pointer, creating objects on the way."""
    keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]
    node = doc
    for k in keys[:-1]:
        if isinstance(node, list):
            node = node[int(k)]
        else:
            node = node.setdefault(k, {})
    last = keys[-1]
    if isinstance(node, list):
        if value is DEL:
            del node[int(last)]
        elif last == "-":
            node.append(value)
        else:
            node[int(last)] = value
    elif value is DEL:
        node.pop(last, None)
    else:
        node[last] = value


def scenario(base, changes):
    doc = copy.deepcopy(base)
    for pointer, value in changes.items():
        set_pointer(doc, pointer, value)
    return doc


def add(name, cls, note, files=None, argv=None, generate=None, exits=None, interrupt_after=None):
    assert name not in files_of, name
    entry = {"name": name, "class": cls, "argv": argv or RUN, "note": note}
    if generate:
        entry["generate"] = generate
    if exits:
        entry["exits"] = exits
    if interrupt_after is not None:
        entry["interrupt_after"] = interrupt_after
    cases.append(entry)
    files_of[name] = files or {}


def scen(name, cls, note, base, changes, argv=None, extra=None, generate=None, dry=False,
         exits=None, interrupt_after=None):
    """A case whose scenario.json is base with changes; with dry=True also NAME-dry (--dry-run).
    interrupt_after is the run's (the dry run's SIGTERM, if any, is a case of its own)."""
    files = {"scenario.json": scenario(base, changes)}
    files.update(extra or {})
    add(name, cls, note, files, argv or RUN, generate, exits, interrupt_after)
    if dry:
        add(name + "-dry", "dry-run", note + " (--dry-run)", copy.deepcopy(files), DRY,
            copy.deepcopy(generate), exits)


def dump(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------------
# The starting points: must run clean (they tell a broken harness from a broken simulator).
scen("base-time", "baseline", "the corpus's time-only base scenario, as is", BASE_TIME, {}, dry=True)
scen("base-real", "baseline", "the corpus's real-math base scenario, as is", BASE_REAL, {}, dry=True)
add("shipped-examples-validate", "baseline", "failsim validate of every shipped cluster example",
    {}, ["{failsim}", "validate", "{repo}/scenarios/cluster/dp64-7b.json",
         "{repo}/scenarios/cluster/zero3-stragglers.json", "{repo}/scenarios/cluster/diloco.json",
         "{repo}/scenarios/cluster/quorum.json", "{repo}/scenarios/cluster/universal.json",
         "{repo}/scenarios/cluster/in-memory.json", "{repo}/scenarios/cluster/multi-level.json",
         "{repo}/scenarios/cluster/spares.json", "{repo}/scenarios/cluster/trace-replay.json",
         "{repo}/scenarios/cluster/llama3-rates.json", "{repo}/scenarios/cluster/hybrid-1024.json"])

# --------------------------------------------------------------------------------------------
# Syntax and encoding: files that are not the JSON they claim to be.
good = dump(BASE_TIME).encode()
raw = {
    "syntax-empty-file": b"",
    "syntax-whitespace-only": b"   \n\t\n",
    "syntax-truncated-half": good[: len(good) // 2],
    "syntax-truncated-one-byte": b"{",
    "syntax-truncated-in-string": good[: good.index(b"hostile") + 3],
    "syntax-truncated-in-number": good[: good.index(b"524288") + 3],
    "syntax-trailing-comma": good.replace(b'"seed": 7,', b'"seed": 7,,', 1),
    "syntax-trailing-comma-end": good.rstrip()[:-1] + b",}\n",
    "syntax-comments": b"// a collective run\n" + good,
    "syntax-nan-literal": good.replace(b'"achieved_fraction": 0.45', b'"achieved_fraction": NaN'),
    "syntax-infinity-literal": good.replace(b'"time": "2h"', b'"time": Infinity'),
    "syntax-single-quotes": good.replace(b'"protocol": "collective"', b"'protocol': 'collective'"),
    "syntax-bom": b"\xef\xbb\xbf" + good,
    "syntax-utf16": good.decode().encode("utf-16"),
    "syntax-nul-byte": good.replace(b'"seed": 7', b'"seed": 7\x00'),
    "syntax-nul-in-string": good.replace(b'"name": "hostile"', b'"name": "host\\u0000ile"'),
    "syntax-non-utf8-in-name": good.replace(b'"name": "hostile"', b'"name": "caf\xff"'),
    "syntax-non-utf8-in-key": good.replace(b'"seed": 7', b'"se\xfe\xffed": 7'),
    "syntax-non-utf8-outside-string": good.replace(b'"seed": 7,', b'"seed": 7,\xff\xfe'),
    "syntax-non-utf8-latin1-description": good.replace(b"A small time-only", b"Un job \xe9t\xe9 small"),
    "syntax-overlong-utf8": good.replace(b'"name": "hostile"', b'"name": "\xc0\xaf"'),
    "syntax-lone-surrogate": good.replace(b'"name": "hostile"', b'"name": "\\ud800x"'),
    "syntax-control-char-in-string": good.replace(b'"name": "hostile"', b'"name": "a\x1b[2Jb"'),
    "syntax-two-documents": good + good,
    "syntax-top-level-array": b"[" + good + b"]",
    "syntax-top-level-number": b"42\n",
    "syntax-top-level-string": b'"collective"\n',
    "syntax-top-level-null": b"null\n",
    "syntax-number-1e400": good.replace(b'"achieved_fraction": 0.45', b'"achieved_fraction": 1e400'),
    "syntax-number-long-digits": good.replace(b'"seed": 7', b'"seed": ' + b"9" * 5000),
    "syntax-number-leading-zeros": good.replace(b'"seed": 7', b'"seed": 007'),
    "syntax-number-hex": good.replace(b'"seed": 7', b'"seed": 0x7'),
    "syntax-bare-word": good.replace(b'"seed": 7', b'"seed": seven'),
}
for name, data in raw.items():
    assert data != good, name
    add(name, "syntax", "a scenario file that is not valid JSON or not valid UTF-8", {"scenario.json": data})
add("syntax-non-utf8-validate", "syntax", "failsim validate of a file with bytes that are not UTF-8",
    {"scenario.json": raw["syntax-non-utf8-outside-string"]}, VALIDATE)
add("syntax-garbage-bytes", "syntax", "64 KiB of random bytes as the scenario", {},
    RUN, [{"file": "scenario.json", "kind": "random_bytes", "bytes": 65536, "seed": 1}])
add("syntax-garbage-bytes-validate", "syntax", "failsim validate of random bytes", {},
    VALIDATE, [{"file": "scenario.json", "kind": "random_bytes", "bytes": 4096, "seed": 2}])
add("syntax-deep-nesting", "syntax", "a description nested 100,000 arrays deep", {"scenario.json": BASE_TIME},
    RUN, [{"file": "scenario.json", "kind": "nest", "pointer": "/description", "depth": 100000}])
add("syntax-deep-nesting-objects", "syntax", "an unknown key nested 50,000 objects deep",
    {"scenario.json": BASE_TIME}, RUN,
    [{"file": "scenario.json", "kind": "nest", "pointer": "/workload/extra", "depth": 50000, "object": True}])
add("syntax-huge-description", "input-size", "a 60 MB description string", {"scenario.json": BASE_TIME},
    RUN, [{"file": "scenario.json", "kind": "pad_string", "pointer": "/description", "bytes": 60000000}])
add("syntax-huge-key", "input-size", "an unknown key of 2 MB", {"scenario.json": BASE_TIME},
    RUN, [{"file": "scenario.json", "kind": "long_key", "pointer": "/platform", "bytes": 2000000}])
add("syntax-duplicate-key", "syntax", "the key seed twice",
    {"scenario.json": good.replace(b'"seed": 7,', b'"seed": 7, "seed": 8,')})
add("syntax-duplicate-key-nested", "syntax", "the key dp twice in layout",
    {"scenario.json": good.replace(b'"dp": 2,', b'"dp": 2, "dp": 4,')})
add("file-missing", "cli", "a scenario path that does not exist", {},
    ["{failsim}", "run", "{case}/nope.json", "-o", "{out}"])
add("file-is-directory", "cli", "a directory as the scenario", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}", "-o", "{out}"])
add("file-dev-null", "cli", "/dev/null as the scenario", {}, ["{failsim}", "run", "/dev/null", "-o", "{out}"])
add("file-dev-zero", "input-size", "/dev/zero as the scenario (an endless file of NUL bytes)", {},
    ["{failsim}", "run", "/dev/zero", "-o", "{out}"])
add("file-dev-urandom-validate", "input-size", "failsim validate /dev/urandom (endless random bytes)", {},
    ["{failsim}", "validate", "/dev/urandom"])

# --------------------------------------------------------------------------------------------
# Types, unknown keys and missing sections.
scen("type-nodes-string", "schema", "platform.nodes as a string", BASE_TIME, {"/platform/nodes": "4"})
scen("type-nodes-float", "schema", "platform.nodes 4.5", BASE_TIME, {"/platform/nodes": 4.5})
scen("type-nodes-bool", "schema", "platform.nodes true", BASE_TIME, {"/platform/nodes": True})
scen("type-nodes-null", "schema", "platform.nodes null", BASE_TIME, {"/platform/nodes": None})
scen("type-layout-array", "schema", "layout as an array", BASE_TIME, {"/layout": [2, 2, 4]})
scen("type-events-object", "schema", "failures.events an object", BASE_TIME,
     {"/failures/events": {"target": "node", "index": 1, "at": "30min"}})
scen("type-stop-string", "schema", "stop as a string", BASE_TIME, {"/stop": "2h"})
scen("missing-platform", "schema", "no platform section", BASE_TIME, {"/platform": DEL})
scen("missing-layout", "schema", "no layout section", BASE_TIME, {"/layout": DEL})
scen("missing-workload", "schema", "no workload section", BASE_TIME, {"/workload": DEL})
scen("missing-stop", "schema", "no stop section", BASE_TIME, {"/stop": DEL})
scen("missing-protocol", "schema", "collective sections without protocol", BASE_TIME, {"/protocol": DEL})
scen("protocol-typo", "schema", "protocol \"Collective\"", BASE_TIME, {"/protocol": "Collective"})
scen("unknown-key-typo", "schema", "layout.dp_algoritm (a typo)", BASE_TIME,
     {"/layout/dp_algoritm": "ring"})
scen("unknown-node-preset", "schema", "a preset that does not exist", BASE_TIME, {"/platform/node": "h200-8x"})
scen("node-preset-path-traversal", "schema", "a preset named ../../../etc/passwd", BASE_TIME,
     {"/platform/node": "../../../../etc/passwd"})
scen("node-preset-empty", "schema", "a preset named \"\"", BASE_TIME, {"/platform/node": ""})
scen("node-preset-nul", "schema", "a preset name with a NUL", BASE_TIME, {"/platform/node": "h100\u00008x"})
scen("seed-2pow64", "schema", "seed 2^64 (one past the largest)", BASE_TIME, {"/seed": 2 ** 64})
scen("seed-max", "huge-value", "seed 2^64 - 1", BASE_TIME, {"/seed": 2 ** 64 - 1})
scen("seed-negative", "schema", "seed -1", BASE_TIME, {"/seed": -1})
scen("seed-float", "schema", "seed 1.5", BASE_TIME, {"/seed": 1.5})
scen("name-empty", "schema", "name \"\"", BASE_TIME, {"/name": ""})
scen("name-slashes", "schema", "a name with ../ and slashes, no output directory", BASE_TIME,
     {"/name": "../../x/y"}, argv=["{failsim}", "run", "{case}/scenario.json"])
scen("name-very-long", "huge-value", "a name of 100,000 characters, no -o", BASE_TIME, {},
     argv=["{failsim}", "run", "{case}/scenario.json"],
     generate=[{"file": "scenario.json", "kind": "pad_string", "pointer": "/name", "bytes": 100000}])
scen("output-intervals", "schema", "output.intervals true (refused in the collective world)", BASE_TIME,
     {"/output/intervals": True})
scen("output-dir-in-scenario-escape", "schema", "output.directory ../../../x and no -o", BASE_TIME,
     {"/output/directory": "../escape/here"}, argv=["{failsim}", "run", "{case}/scenario.json"])
scen("real-math-keys-in-time-only", "schema", "data and model given with math none", BASE_TIME,
     {"/data": {"kind": "synthetic"}, "/model": {"kind": "softmax"}})
scen("time-only-without-transformer", "schema", "math none and no transformer", BASE_TIME,
     {"/workload/transformer": DEL})

# --------------------------------------------------------------------------------------------
# Products of fields that overflow int, and the sizes of a platform or a job.
def wrap_layout(target, tp_max, pp_max):
    """dp, tp, pp within the schema's caps whose product is target modulo 2^32 (not target)."""
    M = 2 ** 32
    for k in range(1, 4000):
        P = target + k * M
        for pp in ([1] if pp_max == 1 else range(2, pp_max + 1)):
            if P % pp:
                continue
            Q = P // pp
            lo = max(1, -(-Q // 10 ** 7))
            for tp in range(lo, min(tp_max, 10 ** 7) + 1):
                if Q % tp == 0 and Q // tp <= 10 ** 7:
                    return Q // tp, tp, pp
    raise RuntimeError("no wrap layout")


dp, tp, pp = wrap_layout(16, 10 ** 7, 1)
scen("overflow-ranks-wrap-to-16-tp", "overflow", f"dp {dp} x tp {tp} x pp 1 = 16 mod 2^32 on 16 accelerators",
     BASE_TIME, {"/layout/dp": dp, "/layout/tp": tp, "/layout/pp": 1, "/layout/tp_across_nodes": True,
                 "/layout/zero_stage": 0, "/layout/micro_batches": 1,
                 "/workload/transformer/heads": tp, "/workload/transformer/hidden": tp,
                 "/workload/transformer/sequence": 1,
                 "/workload/transformer/global_batch_tokens": dp, "/workload/transformer/parameters": 1e6},
     dry=True)
scen("overflow-ranks-wrap-to-zero", "overflow", "dp x tp x pp = 2^32 (wraps to 0)", BASE_TIME,
     {"/layout/dp": 8388608, "/layout/tp": 512, "/layout/pp": 1, "/layout/tp_across_nodes": True,
      "/workload/transformer/heads": 512, "/workload/transformer/hidden": 512 * 128})
scen("overflow-ranks-negative", "overflow", "dp 65536 x tp 32768 = 2^31 (INT_MIN)", BASE_TIME,
     {"/layout/dp": 65536, "/layout/tp": 32768, "/layout/pp": 1, "/layout/tp_across_nodes": True,
      "/workload/transformer/heads": 32768, "/workload/transformer/hidden": 32768})
scen("overflow-ranks-max", "overflow", "dp, tp and pp all 10,000,000", BASE_TIME,
     {"/layout/dp": 10000000, "/layout/tp": 10000000, "/layout/pp": 10000000}, dry=True)
scen("overflow-ranks-negative-message", "overflow", "dp 4 x tp 4 x pp 10^7 = a wrapped count in the message",
     BASE_TIME, {"/layout/dp": 10000000, "/layout/tp": 10000, "/layout/pp": 7})
scen("overflow-rack-power-zero", "overflow",
     "nodes_per_rack 65536 x racks_per_power 65536 = 2^32 and a power failure", BASE_TIME,
     {"/platform/domains": {"nodes_per_rack": 65536, "racks_per_power": 65536},
      "/failures/events/0": {"target": "power", "index": 0, "at": "30min", "down_for": "20min"}}, dry=True)
scen("overflow-rack-power-negative", "overflow",
     "nodes_per_rack 65536 x racks_per_power 32768 = 2^31 and a power failure", BASE_TIME,
     {"/platform/domains": {"nodes_per_rack": 65536, "racks_per_power": 32768},
      "/failures/events/0": {"target": "power", "index": 0, "at": "30min", "down_for": "20min"}})
scen("overflow-rack-power-stochastic", "overflow",
     "power domains of 2^32 nodes failing at random", BASE_TIME,
     {"/platform/domains": {"nodes_per_rack": 65536, "racks_per_power": 65536},
      "/failures/stochastic": [{"target": "power", "lifetime": {"distribution": "exponential", "mean": "1h"},
                                "repair": {"distribution": "fixed", "value": "10min"}}]})
scen("overflow-rack-index", "overflow", "a rack failure of index 2^31 - 1", BASE_TIME,
     {"/failures/events/0": {"target": "rack", "index": 2147483647, "at": "30min", "down_for": "20min"}})
scen("overflow-switch-index", "overflow", "a switch failure of index 2^40", BASE_TIME,
     {"/failures/events/0": {"target": "switch", "index": 2 ** 40, "at": "30min", "down_for": "20min"}})
scen("overflow-accelerator-index", "overflow", "an accelerator failure of index 2^63", BASE_TIME,
     {"/failures/events/0": {"target": "accelerator", "index": 2 ** 63, "at": "30min", "down_for": "20min"}})
scen("overflow-node-index-negative", "schema", "a node failure of index -1", BASE_TIME,
     {"/failures/events/0/index": -1})
scen("overflow-switch-leaf-wrap", "overflow", "nodes_per_leaf 65536 and a switch failure of index 40000",
     BASE_TIME, {"/platform/topology/nodes_per_leaf": 65536,
                 "/failures/events/0": {"target": "switch", "index": 40000, "at": "30min", "down_for": "1min"}})
scen("overflow-spines-uplinks", "overflow", "spines 65536 x uplinks 65536", BASE_TIME,
     {"/platform/topology/spines": 65536, "/platform/topology/uplinks": 65536}, dry=True)
scen("overflow-spines-uplinks-nonblocking", "overflow", "spines x uplinks 2^32 with a non-blocking uplink",
     BASE_TIME, {"/platform/topology": {"kind": "fat-tree", "nodes_per_leaf": 2, "spines": 65536,
                                         "uplinks": 65536}})
scen("setup-spines-65536", "setup-size", "65,536 spines on a 4-node job", BASE_TIME,
     {"/platform/topology/spines": 65536, "/platform/topology/uplinks": 1}, dry=True)
scen("setup-leaf-padding", "setup-size", "nodes_per_leaf 65536 on 4 nodes (a leaf padded to 65,536 slots)",
     BASE_TIME, {"/platform/topology/nodes_per_leaf": 65536}, dry=True)
scen("overflow-nodes-times-accelerators", "overflow", "4096 nodes x 65536 accelerators, dp matching",
     BASE_TIME, {"/platform/nodes": 4096, "/platform/node/accelerators": 65536,
                 "/layout/dp": 4194304, "/layout/tp": 64, "/layout/pp": 1, "/layout/zero_stage": 0,
                 "/layout/micro_batches": 1, "/workload/transformer/heads": 64,
                 "/workload/transformer/sequence": 1,
                 "/workload/transformer/global_batch_tokens": 4194304}, dry=True)
scen("setup-ten-million-ranks", "setup-size", "10,000,000 ranks: 2,500 nodes of 4,000 accelerators, dp 10^7",
     BASE_TIME, {"/platform/nodes": 2500, "/platform/node/accelerators": 4000, "/platform/node/nics": 8,
                 "/platform/topology/nodes_per_leaf": 50,
                 "/layout/dp": 10000000, "/layout/tp": 1, "/layout/pp": 1, "/layout/zero_stage": 1,
                 "/layout/micro_batches": 1, "/workload/transformer/sequence": 1,
                 "/workload/transformer/global_batch_tokens": 10000000,
                 "/workload/transformer/parameters": 1e9}, dry=True)
# Set-ups within the limit that take minutes: SIGTERM while they are built must end them within
# a second, with where they were (the run's, the dry run's and validate's).
scen("setup-million-ranks-hierarchical", "setup-size",
     "1,048,576 ranks (4,096 nodes of 256) with a hierarchical all-reduce, SIGTERM at 5 s", BASE_TIME,
     {"/platform/nodes": 4096, "/platform/node/accelerators": 256,
      "/platform/topology/nodes_per_leaf": 64, "/platform/topology/spines": 64,
      "/layout/dp": 65536, "/layout/tp": 16, "/layout/pp": 1, "/layout/zero_stage": 1,
      "/layout/micro_batches": 1, "/layout/dp_algorithm": "hierarchical",
      "/workload/transformer/sequence": 16, "/workload/transformer/global_batch_tokens": 1048576},
     dry=True, interrupt_after=5)
scen("setup-4096-nodes", "setup-size", "4,096 nodes of 4 accelerators, SIGTERM at 5 s",
     BASE_TIME, {"/platform/nodes": 4096, "/layout/dp": 4096, "/layout/tp": 2, "/layout/pp": 2,
                 "/workload/transformer/global_batch_tokens": 4096 * 8 * 2048},
     dry=True, interrupt_after=5)
TWO_MILLION = {"/platform/nodes": 32, "/platform/node/accelerators": 65536,
               "/platform/topology/nodes_per_leaf": 16, "/layout/dp": 2097152, "/layout/tp": 1,
               "/layout/pp": 1, "/layout/zero_stage": 1, "/layout/micro_batches": 1,
               "/workload/transformer/sequence": 1,
               "/workload/transformer/global_batch_tokens": 2097152,
               "/workload/transformer/parameters": 1e9}
scen("setup-two-million-ranks", "setup-size",
     "2,097,152 ranks (32 nodes of 65,536), SIGTERM at 2 s", BASE_TIME, TWO_MILLION,
     interrupt_after=2)
# Ten million ranks on 160 nodes: refused by the set-up's estimate (their first step's flows
# alone would take days); a signal that comes first must still be answered.
TEN_MILLION = dict(TWO_MILLION, **{"/platform/nodes": 160, "/platform/node/accelerators": 62500,
                                   "/layout/dp": 10000000,
                                   "/workload/transformer/global_batch_tokens": 10000000})
add("setup-ten-million-ranks-160-nodes-dry", "dry-run",
    "10,000,000 ranks (160 nodes of 62,500), --dry-run: refused by the set-up's estimate, or "
    "SIGTERM at 1 s",
    {"scenario.json": scenario(BASE_TIME, TEN_MILLION)}, DRY, interrupt_after=1)
add("setup-ten-million-ranks-160-nodes-validate", "validate",
    "10,000,000 ranks (160 nodes of 62,500), validate: refused by the set-up's estimate, or "
    "SIGTERM at 1 s",
    {"scenario.json": scenario(BASE_TIME, TEN_MILLION)}, VALIDATE, interrupt_after=1)
scen("setup-failure-streams", "setup-size",
     "1,048,576 accelerators, each with a random failure and a straggler process (2 million "
     "streams), SIGTERM at 5 s", BASE_TIME,
     dict(TWO_MILLION, **{"/platform/nodes": 16, "/layout/dp": 1048576,
                          "/workload/transformer/global_batch_tokens": 1048576,
                          "/failures/stochastic": [{"target": "accelerator",
                                                    "lifetime": EXP("1000d"), "repair": FIX("1h")}],
                          "/failures/stochastic_stragglers": [{"target": "accelerator",
                                                               "every": EXP("1000d"),
                                                               "duration": FIX("1h"),
                                                               "slowdown": 2}]}),
     interrupt_after=5)
# About the largest job within the set-up's limits (15.6 GiB and 2 minutes estimated, most of both
# for its first step's flows): its plan and platform are built, and a signal stops them.
scen("setup-largest-accepted-job", "setup-size",
     "655,360 ranks (10 nodes of 65,536), within the set-up's limits, SIGTERM at 3 s", BASE_TIME,
     dict(TWO_MILLION, **{"/platform/nodes": 10, "/layout/dp": 655360,
                          "/workload/transformer/global_batch_tokens": 655360}),
     interrupt_after=3)
# 131,072 ranks on 2 nodes: the first step's flows end at one instant that SimGrid takes seconds
# to finish (the whole run 33 s since issue 33's endpoint stacks, a minute before), with no
# return to failsim's looks; the answer guard ends it.
scen("first-step-long-instant", "setup-size",
     "131,072 ranks (2 nodes of 65,536), SIGTERM at 6 s inside the first step's one instant",
     BASE_TIME, dict(TWO_MILLION, **{"/platform/nodes": 2, "/layout/dp": 131072,
                                     "/workload/transformer/global_batch_tokens": 131072}),
     interrupt_after=6)
scen("setup-nodes-4097", "setup-size", "4,097 nodes (one over the cap before issue 33): runs", BASE_TIME,
     {"/platform/nodes": 4097})
scen("setup-spares-million", "setup-size", "1,000,000 spares", BASE_TIME, {"/platform/spares": 1000000})
scen("setup-spares-negative", "schema", "spares -1", BASE_TIME, {"/platform/spares": -1})
scen("setup-nodes-2pow31", "overflow", "platform.nodes 2^31", BASE_TIME, {"/platform/nodes": 2 ** 31})
scen("setup-nodes-2pow64", "overflow", "platform.nodes 2^64", BASE_TIME, {"/platform/nodes": 2 ** 64})
scen("setup-nodes-1e300", "overflow", "platform.nodes 1e300", BASE_TIME, {"/platform/nodes": 1e300})
scen("setup-nodes-zero", "schema", "platform.nodes 0", BASE_TIME, {"/platform/nodes": 0})
scen("setup-accelerators-zero", "schema", "node.accelerators 0", BASE_TIME, {"/platform/node/accelerators": 0})
scen("setup-nics-65536", "huge-value", "65,536 NICs a node", BASE_TIME, {"/platform/node/nics": 65536})
scen("setup-layers-million", "setup-size", "a transformer of 1,000,000 layers and pp 1,000,000 x ... ",
     BASE_TIME, {"/workload/transformer/layers": 1000000, "/workload/transformer/parameters": 1e15})
scen("setup-micro-batches-million", "setup-size", "1,000,000 micro-batches a step (pp 4: 1F1B slots)",
     BASE_TIME, {"/layout/micro_batches": 1000000, "/workload/transformer/sequence": 1,
                 "/workload/transformer/global_batch_tokens": 2000000}, dry=True)
scen("setup-micro-batches-tp-allreduces", "setup-size",
     "1,000 layers x 100,000 micro-batches: 10^8 tensor-parallel all-reduces a step", BASE_TIME,
     {"/layout/micro_batches": 100000, "/workload/transformer/layers": 1000,
      "/layout/pp": 1, "/layout/dp": 8,
      "/workload/transformer/sequence": 1, "/workload/transformer/global_batch_tokens": 800000,
      "/workload/transformer/hidden": 64, "/workload/transformer/heads": 16})
scen("huge-parameters", "huge-value", "1e15 parameters", BASE_TIME, {"/workload/transformer/parameters": 1e15})
scen("huge-parameters-over", "schema", "1e16 parameters (over the schema's cap)", BASE_TIME,
     {"/workload/transformer/parameters": 1e16})
scen("tiny-parameters", "tiny-value", "1e-300 parameters", BASE_TIME, {"/workload/transformer/parameters": 1e-300})
scen("huge-batch-tokens", "huge-value", "global_batch_tokens 1e15", BASE_TIME,
     {"/workload/transformer/global_batch_tokens": 2048 * 2 * 8 * 61035156250})
scen("tiny-batch-tokens", "tiny-value", "global_batch_tokens 1e-300", BASE_TIME,
     {"/workload/transformer/global_batch_tokens": 1e-300})
scen("huge-sequence-hidden", "huge-value", "sequence and hidden 10^9 (activations of 10^27 bytes)", BASE_TIME,
     {"/workload/transformer/sequence": 1000000000, "/workload/transformer/hidden": 1000000000,
      "/workload/transformer/global_batch_tokens": 1000000000 * 2 * 8})
scen("heads-zero-hidden-small", "tiny-value", "heads 0 (h / 128) with hidden 64: 0 heads", BASE_TIME,
     {"/workload/transformer/heads": 0, "/workload/transformer/hidden": 64})
scen("achieved-fraction-tiny", "tiny-value", "achieved_fraction 1e-300: steps of 1e300 s", BASE_TIME,
     {"/workload/achieved_fraction": 1e-300})
scen("achieved-fraction-zero", "schema", "achieved_fraction 0", BASE_TIME, {"/workload/achieved_fraction": 0})
scen("checkpoint-bytes-huge", "huge-value", "1024 checkpoint bytes a parameter of 1e15", BASE_TIME,
     {"/workload/checkpoint_bytes_per_parameter": 1024, "/workload/transformer/parameters": 1e15})
scen("precision-bytes-17", "schema", "precision_bytes 17", BASE_TIME, {"/workload/precision_bytes": 17})

# --------------------------------------------------------------------------------------------
# Units: strings a careless user writes.
units = {
    "unit-parsecs": ("/stop/time", "10 parsecs"),
    "unit-negative": ("/stop/time", "-5min"),
    "unit-nan": ("/stop/time", "nan s"),
    "unit-inf": ("/stop/time", "inf s"),
    "unit-empty": ("/stop/time", ""),
    "unit-only-unit": ("/stop/time", "s"),
    "unit-hex": ("/stop/time", "0x10s"),
    "unit-1e999": ("/stop/time", "1e999s"),
    "unit-upper": ("/stop/time", "2H"),
    "unit-greek-mu": ("/platform/node/intra_latency", "1\u03bcs"),
    "unit-bandwidth-zero": ("/platform/file_system/write_bandwidth", "0GBps"),
    "unit-bandwidth-tiny": ("/platform/file_system/write_bandwidth", "1e-300Bps"),
    "unit-bandwidth-huge": ("/platform/node/nic_bandwidth", "1e300GBps"),
    "unit-bandwidth-as-time": ("/platform/node/nic_bandwidth", "5s"),
    "unit-speed-tiny": ("/platform/node/accelerator_speed", "1e-300f"),
    "unit-speed-zero": ("/platform/node/accelerator_speed", "0f"),
    "unit-speed-no-unit": ("/platform/node/accelerator_speed", 312),
    "unit-memory-zero": ("/platform/node/device_memory", "0B"),
    "unit-memory-huge": ("/platform/node/device_memory", "1e300GB"),
    "unit-host-memory-tiny": ("/platform/node/host_memory", "1B"),
    "unit-latency-huge": ("/platform/node/nic_latency", "1e300s"),
    "unit-latency-1e20": ("/platform/node/intra_latency", "1e20s"),
    "unit-fs-latency-days": ("/platform/file_system/latency", "1e10d"),
    "unit-switch-latency-negative": ("/platform/topology/switch_latency", -1),
    "unit-time-number-huge": ("/stop/time", 1e308),
}
for name, (pointer, value) in units.items():
    scen(name, "units", f"{pointer} = {value!r}", BASE_TIME, {pointer: value})

# --------------------------------------------------------------------------------------------
# Stops that bound no work, huge stops, tiny steps.
FAST_NODE = {"/platform/node/accelerator_speed": "1e30Tf", "/platform/node/intra_latency": "1ps",
             "/platform/node/nic_latency": "1ps", "/platform/topology/switch_latency": "1ps",
             "/platform/node/intra_bandwidth": "1e30GBps", "/platform/node/nic_bandwidth": "1e30GBps",
             "/platform/topology/uplink_bandwidth": "1e30GBps"}
scen("stop-time-100000d", "unbounded-work", "time only, stop 100,000 days", BASE_TIME,
     {"/stop/time": "100000d"}, dry=True)
scen("stop-time-1e300", "unbounded-work", "time only, stop 1e300 s", BASE_TIME, {"/stop/time": "1e300s"}, dry=True)
scen("stop-time-1e300-no-failures", "unbounded-work", "stop 1e300 s, no failures, no checkpoints", BASE_TIME,
     {"/stop/time": "1e300s", "/failures": {}, "/recovery/checkpoint/every_steps": 0})
scen("stop-time-1e20-quiet", "unbounded-work", "stop 1e20 s: a step shorter than the clock's resolution",
     BASE_TIME, {"/stop/time": "1e20s", "/failures": {}, "/recovery/checkpoint/every_steps": 0})
scen("stop-updates-huge", "unbounded-work", "stop.updates 2^62", BASE_TIME,
     {"/stop": {"updates": 2 ** 62}}, dry=True)
scen("stop-updates-2pow64", "overflow", "stop.updates 2^64", BASE_TIME, {"/stop": {"updates": 2 ** 64}})
scen("stop-version-huge", "unbounded-work", "stop.version 2^62", BASE_TIME,
     {"/stop": {"version": 2 ** 62}}, dry=True)
scen("stop-version-long-steps", "unbounded-work", "stop.version 1000 with steps of 1e300 s", BASE_TIME,
     {"/stop": {"version": 1000}, "/workload/achieved_fraction": 1e-300})
scen("stop-updates-long-steps-failures", "unbounded-work",
     "stop.updates 100, steps of ~1e12 s, node failures every hour: no step ever ends", BASE_TIME,
     {"/stop": {"updates": 100}, "/workload/achieved_fraction": 1e-12,
      "/failures/stochastic": [{"target": "node", "lifetime": {"distribution": "exponential", "mean": "1h"},
                                "repair": {"distribution": "fixed", "value": "1min"}}]}, dry=True)
scen("stop-version-never-restarts", "unbounded-work",
     "stop.version 1000; every node fails a second after it is back: the job never restarts", BASE_TIME,
     {"/stop": {"version": 1000},
      "/failures/stochastic": [{"target": "node", "lifetime": {"distribution": "fixed", "value": "1s"},
                                "repair": {"distribution": "fixed", "value": "1s"}}]}, dry=True)
scen("stop-updates-never-restarts", "unbounded-work",
     "stop.updates 1000; node lifetimes of 1 s exponential", BASE_TIME,
     {"/stop": {"updates": 1000},
      "/failures/stochastic": [{"target": "node", "lifetime": {"distribution": "exponential", "mean": "1s"},
                                "repair": {"distribution": "exponential", "mean": "1s"}}]})
scen("stop-version-forever-down", "unbounded-work", "stop.version only; a node down forever", BASE_TIME,
     {"/stop": {"version": 100000}, "/failures/events/0/down_for": "forever"})
scen("stop-version-restart-1e20", "unbounded-work",
     "stop.version 1000; a restart of 1e20 s (later steps shorter than the clock's resolution)", BASE_TIME,
     {"/stop": {"version": 1000}, "/recovery/restart/scheduler_delay": "1e20s"})
scen("stop-target-only-time-only", "unbounded-work", "target accuracy only, time only (no accuracy)",
     BASE_TIME, {"/stop": {"target_accuracy": 0.9}})
scen("stop-target-only-unreachable", "unbounded-work", "target accuracy 1.0 only, real math", BASE_REAL,
     {"/stop": {"target_accuracy": 1.0}}, dry=True)
scen("stop-target-only-no-evaluation", "unbounded-work",
     "target accuracy only and no scheduled evaluation", BASE_REAL,
     {"/stop": {"target_accuracy": 0.99}, "/evaluation": {"interval": 0, "every_updates": 0}})
scen("stop-target-and-version-huge", "unbounded-work", "target 0.999 or version 2^40", BASE_REAL,
     {"/stop": {"target_accuracy": 0.999, "version": 2 ** 40}})
scen("stop-all-null", "schema", "every stop criterion null", BASE_TIME,
     {"/stop": {"time": None, "updates": None, "version": None, "target_accuracy": None}})
scen("stop-empty", "schema", "stop {}", BASE_TIME, {"/stop": {}})
scen("stop-time-zero", "tiny-value", "stop.time 0", BASE_TIME, {"/stop/time": 0})
scen("stop-time-1ps", "tiny-value", "stop.time 1 ps", BASE_TIME, {"/stop/time": "1ps"})
scen("stop-target-zero", "schema", "target accuracy 0", BASE_REAL, {"/stop": {"target_accuracy": 0}})
scen("tiny-steps-stop-1h", "unbounded-work", "steps of picoseconds for an hour", BASE_TIME,
     dict(FAST_NODE, **{"/stop/time": "1h"}), dry=True)
scen("tiny-steps-checkpoint-every-step", "output-size",
     "steps of microseconds for an hour, a checkpoint after every step", BASE_TIME,
     dict({"/platform/node/accelerator_speed": "1e24f", "/stop/time": "1h", "/failures": {},
           "/recovery/checkpoint/every_steps": 1}), dry=True)
# Within the work limit (a million checkpoints at 3,000 a wall second: about 5 minutes, each
# simulated flow by flow while the next steps run; issue 33), so bounded but slow: SIGTERM at 5 s.
scen("tiny-steps-snapshot-every-step", "output-size",
     "a million steps of 1 ms, a snapshot checkpoint after every one, SIGTERM at 5 s", BASE_TIME,
     {"/platform/node/accelerator_speed": "1e20f", "/stop": {"updates": 1000000}, "/failures": {},
      "/recovery/checkpoint": {"every_steps": 1, "mode": "snapshot"}}, interrupt_after=5)
scen("tiny-steps-in-memory-every-step", "output-size", "tiny steps, in-memory checkpoints every step",
     BASE_TIME, {"/platform/node/accelerator_speed": "1e24f", "/stop/time": "1h", "/failures": {},
                 "/recovery": {"strategy": "in-memory", "in_memory": {"every_steps": 1, "file_system_every": 1}}})
scen("tiny-steps-multi-level-every-step", "output-size", "tiny steps, multi-level checkpoints every step",
     BASE_TIME, {"/platform/node/accelerator_speed": "1e24f", "/stop/time": "1h", "/failures": {},
                 "/recovery": {"strategy": "multi-level", "multi_level": {"every_steps": 1}}})
MICRO = {"/workload/transformer": {"parameters": 1e4, "layers": 24, "hidden": 64, "heads": 16, "sequence": 16,
                                    "global_batch_tokens": 256},
         "/platform/node/accelerator_speed": "1e20f", "/platform/file_system/latency": "1ns",
         "/platform/file_system/write_bandwidth": "1e20Bps", "/platform/file_system/read_bandwidth": "1e20Bps",
         "/failures": {}}
scen("micro-steps-checkpoint-every-step-updates", "output-size",
     "5,000,000 steps of a model of 10^4 parameters, a checkpoint after every step", BASE_TIME,
     dict(MICRO, **{"/stop": {"updates": 5000000}, "/recovery/checkpoint/every_steps": 1}), dry=True)
scen("micro-steps-checkpoint-every-step-time", "output-size",
     "an hour of nanosecond steps of 10^4 parameters, a checkpoint after every step", BASE_TIME,
     dict(MICRO, **{"/stop": {"time": "1h"}, "/recovery/checkpoint/every_steps": 1}), dry=True)
scen("micro-steps-snapshot-every-step", "output-size",
     "2,000,000 tiny steps, a snapshot checkpoint after every step", BASE_TIME,
     dict(MICRO, **{"/stop": {"updates": 2000000},
                    "/recovery/checkpoint": {"every_steps": 1, "mode": "snapshot"}}))
scen("micro-steps-in-memory-every-step", "output-size", "2,000,000 tiny steps, in-memory checkpoints every step",
     BASE_TIME, dict(MICRO, **{"/stop": {"updates": 2000000},
                               "/recovery": {"strategy": "in-memory",
                                             "in_memory": {"every_steps": 1, "file_system_every": 1}}}))
scen("micro-steps-failures-every-second", "output-size",
     "an hour of tiny steps with node failures every few seconds and a checkpoint every step", BASE_TIME,
     dict(MICRO, **{"/stop": {"time": "1h"}, "/recovery/checkpoint/every_steps": 1,
                    "/failures": {"detection": {"kind": "watchdog", "timeout": "1ms"},
                                  "stochastic": [{"target": "node", "lifetime": EXP("5s"),
                                                  "repair": FIX("1ms")}]},
                    "/recovery/restart": {"scheduler_delay": 0, "process_start": 0, "init_base": 0,
                                          "init_per_rank": 0}}))
scen("tiny-steps-real-math", "unbounded-work", "real math, steps of picoseconds for 30 min", BASE_REAL,
     dict(FAST_NODE, **{}), dry=True)
scen("eval-every-update", "unbounded-work", "evaluation at every update, 10^7 updates", BASE_REAL,
     {"/evaluation": {"interval": 0, "every_updates": 1, "test_subset": 0}, "/stop": {"updates": 10000000}},
     dry=True)
scen("eval-every-update-tiny-steps", "unbounded-work", "evaluation at every update of picosecond steps",
     BASE_REAL, dict(FAST_NODE, **{"/evaluation": {"interval": 0, "every_updates": 1}}))
scen("eval-interval-1ps", "unbounded-work", "evaluation every picosecond for 30 min", BASE_REAL,
     {"/evaluation/interval": "1ps"}, dry=True)
scen("eval-interval-1ns-updates-stop", "unbounded-work", "evaluation every nanosecond, stop by updates",
     BASE_REAL, {"/evaluation/interval": "1ns", "/stop": {"updates": 200}})
scen("eval-interval-1ns-version-stop", "unbounded-work", "evaluation every nanosecond, stop by version",
     BASE_REAL, {"/evaluation/interval": "1ns", "/stop": {"version": 200}})
scen("eval-every-updates-2pow63", "huge-value", "evaluation.every_updates 2^63", BASE_REAL,
     {"/evaluation/every_updates": 2 ** 63})
scen("eval-test-subset-huge", "huge-value", "test_subset 2^62", BASE_REAL, {"/evaluation/test_subset": 2 ** 62})
scen("real-batch-huge", "huge-value", "batch_size 2^40", BASE_REAL, {"/optimizer/batch_size": 2 ** 40})
scen("real-synthetic-huge", "setup-size", "a synthetic set of 10^10 samples of dim 10^6", BASE_REAL,
     {"/data": {"kind": "synthetic", "num_classes": 10, "dim": 1000000, "train_size": 10000000000,
                "test_size": 10}}, dry=True)
scen("real-mlp-huge", "setup-size", "an MLP of 10^6 x 10^6 hidden units", BASE_REAL,
     {"/model": {"kind": "mlp", "hidden": [1000000, 1000000]}})
scen("real-learning-rate-1e300", "huge-value", "learning rate 1e300 (diverges)", BASE_REAL,
     {"/optimizer/learning_rate": 1e300})
scen("real-fashion-dir-missing", "schema", "fashion-mnist in a directory that does not exist", BASE_REAL,
     {"/data": {"kind": "fashion-mnist", "dir": "/nonexistent/fashion"}})

# --------------------------------------------------------------------------------------------
# Failure events, storms of lifetimes, detection.
def storm(target, lifetime, repair, stop=None):
    ch = {"/failures/stochastic": [{"target": target, "lifetime": lifetime, "repair": repair}]}
    if stop is not None:
        ch["/stop"] = stop
    return ch


for target in ["accelerator", "node", "nic", "switch", "rack", "power"]:
    scen(f"storm-{target}-1ps", "storm", f"every {target} fails a picosecond after its repair of 1 ps",
         BASE_TIME, storm(target, FIX("1ps"), FIX("1ps")))
    scen(f"storm-{target}-1ps-version-stop", "storm",
         f"{target} lifetimes and repairs of 1 ps, stop by version only", BASE_TIME,
         storm(target, FIX("1ps"), FIX("1ps"), {"version": 100}), dry=(target == "node"))
scen("storm-exponential-1ns-updates", "storm", "exponential node lifetimes of 1 ns, stop by updates",
     BASE_TIME, storm("node", EXP("1ns"), EXP("1ns"), {"updates": 100}))
scen("storm-weibull-shape-tiny", "storm", "Weibull lifetimes of shape 0.001 (infinite mean, tiny draws)",
     BASE_TIME, storm("node", {"distribution": "weibull", "shape": 0.001, "scale": "1h"}, FIX("1min")), dry=True)
scen("storm-weibull-shape-1e-300", "storm", "Weibull shape 1e-300", BASE_TIME,
     storm("accelerator", {"distribution": "weibull", "shape": 1e-300, "scale": "1h"}, FIX("1min")))
scen("storm-weibull-shape-huge", "huge-value", "Weibull shape 1e300", BASE_TIME,
     storm("node", {"distribution": "weibull", "shape": 1e300, "scale": "1h"}, FIX("1min")))
scen("storm-weibull-scale-zero", "schema", "Weibull scale 0", BASE_TIME,
     storm("node", {"distribution": "weibull", "shape": 1, "scale": 0}, FIX("1min")))
scen("storm-repair-zero", "storm", "lifetimes of 1 us, repairs of 0 s", BASE_TIME,
     storm("node", FIX("1us"), FIX("0s")))
scen("storm-lifetime-zero", "storm", "lifetimes of 0 s", BASE_TIME, storm("node", FIX("0s"), FIX("1s")))
scen("storm-exponential-mean-zero", "schema", "exponential mean 0", BASE_TIME, storm("node", EXP(0), EXP("1s")))
scen("storm-distribution-mixed-keys", "schema", "an exponential with a shape", BASE_TIME,
     storm("node", {"distribution": "exponential", "mean": "1h", "shape": 2}, EXP("1s")))
scen("storm-distribution-unknown", "schema", "distribution \"lognormal\"", BASE_TIME,
     storm("node", {"distribution": "lognormal", "mean": "1h"}, EXP("1s")))
scen("storm-every-kind-at-once", "storm", "every target with 1 ns lifetimes", BASE_TIME,
     {"/failures/stochastic": [{"target": t, "lifetime": EXP("1ns"), "repair": EXP("1ns")}
                               for t in ["accelerator", "node", "nic", "switch", "rack", "power"]]})
scen("storm-spares", "storm", "1,000 spares failing every nanosecond", BASE_TIME,
     dict(storm("node", EXP("1ns"), EXP("1ns")), **{"/platform/spares": 1000}))
scen("storm-just-under-limit", "storm", "node lifetimes so that the estimate is just under its cap",
     BASE_TIME, storm("node", EXP("1ms"), EXP("1ms")))
scen("storm-quorum", "storm", "the quorum under picosecond node failures", BASE_TIME,
     dict(storm("node", FIX("1ps"), FIX("1ps"), {"version": 50}),
          **{"/layout/zero_stage": 0, "/recovery": {"strategy": "quorum", "quorum": {}}}))
scen("storm-diloco", "storm", "DiLoCo under nanosecond node failures", BASE_TIME,
     dict(storm("node", EXP("1ns"), EXP("1ns"), {"version": 50}),
          **{"/layout/zero_stage": 0, "/recovery": {"strategy": "diloco", "diloco": {}}}))
scen("storm-universal", "storm", "universal under nanosecond node failures, never waits", BASE_TIME,
     dict(storm("node", EXP("1ns"), EXP("1ns"), {"version": 50}),
          **{"/recovery/strategy": "universal", "/recovery/universal": {"wait_limit": 0}}))
# The two lists below write about 65 MiB at the default output.max_size (1 GiB); with max_size
# at 40 MiB, under the runner's 50 MiB cap, the run must keep to it (refused or stopped).
scen("events-at-same-instant", "storm", "150,000 failure events at one instant, max_size 40 MiB",
     BASE_TIME, {"/failures/events/0/at": 1800, "/output/max_size": "40MiB"}, generate=[
         {"file": "scenario.json", "kind": "repeat_list", "pointer": "/failures/events",
          "count": 150000, "step_field": "at", "step": 0}])
scen("events-every-ns", "storm", "150,000 failure events a nanosecond apart, max_size 40 MiB",
     BASE_TIME, {"/failures/events/0": {"target": "accelerator", "index": 0, "at": 60, "down_for": 1e-9},
                 "/output/max_size": "40MiB"},
     generate=[{"file": "scenario.json", "kind": "repeat_list", "pointer": "/failures/events",
                "count": 150000, "step_field": "at", "step": 1e-9}], dry=True)
scen("events-at-1e300", "huge-value", "a failure at 1e300 s", BASE_TIME, {"/failures/events/0/at": "1e300s"})
scen("events-after-stop", "schema", "a failure after the stop, after_stop refuse", BASE_TIME,
     {"/failures/events/0/at": "3h"})
scen("events-after-stop-record", "huge-value", "a failure at 1e300 s, recorded", BASE_TIME,
     {"/failures/events/0/at": "1e300s", "/failures/after_stop": "record"})
scen("events-down-for-never", "schema", "down_for \"never\"", BASE_TIME, {"/failures/events/0/down_for": "never"})
scen("events-down-for-zero", "tiny-value", "down_for 0", BASE_TIME, {"/failures/events/0/down_for": 0})
scen("events-down-for-1e300", "huge-value", "down_for 1e300 s, stop by version", BASE_TIME,
     {"/failures/events/0/down_for": "1e300s", "/stop": {"version": 500}})
scen("events-target-unknown", "schema", "target \"gpu\"", BASE_TIME, {"/failures/events/0/target": "gpu"})
scen("events-all-forever", "unbounded-work", "every node down forever, stop by updates", BASE_TIME,
     {"/stop": {"updates": 1000},
      "/failures/events": [{"target": "node", "index": i, "at": "1min", "down_for": "forever"} for i in range(4)]})
scen("detection-timeout-zero", "tiny-value", "watchdog timeout 0", BASE_TIME,
     {"/failures/detection": {"kind": "watchdog", "timeout": 0}})
scen("detection-timeout-1e300", "huge-value", "watchdog timeout 1e300 s, stop by version", BASE_TIME,
     {"/failures/detection": {"kind": "watchdog", "timeout": "1e300s"}, "/stop": {"version": 500}})
scen("detection-heartbeat-1ps", "tiny-value", "heartbeat every picosecond", BASE_TIME,
     {"/failures/detection": {"kind": "heartbeat", "interval": "1ps", "misses": 1}})
scen("detection-heartbeat-zero", "schema", "heartbeat interval 0", BASE_TIME,
     {"/failures/detection": {"kind": "heartbeat", "interval": 0, "misses": 1}})
scen("detection-misses-huge", "huge-value", "a million misses of 1e300 s heartbeats", BASE_TIME,
     {"/failures/detection": {"kind": "heartbeat", "interval": "1e300s", "misses": 1000000}})
scen("detection-mixed-keys", "schema", "a watchdog with misses", BASE_TIME,
     {"/failures/detection": {"kind": "watchdog", "timeout": "1min", "misses": 3}})

# --------------------------------------------------------------------------------------------
# Stragglers.
scen("straggler-spells-1ps", "spell-storm", "random slow spells of 1 ps every 1 ps", BASE_TIME,
     {"/failures/stochastic_stragglers": [{"target": "accelerator", "every": FIX("1ps"),
                                           "duration": FIX("1ps"), "slowdown": 2}]}, dry=True)
scen("straggler-spells-1ns-exp", "spell-storm", "exponential slow spells every ns on nodes", BASE_TIME,
     {"/failures/stochastic_stragglers": [{"target": "node", "every": EXP("1ns"),
                                           "duration": EXP("1ns"), "slowdown": 1.5}]})
scen("straggler-spells-version-stop", "spell-storm", "picosecond spells with a stop by version", BASE_TIME,
     {"/stop": {"version": 100},
      "/failures/stochastic_stragglers": [{"target": "accelerator", "every": FIX("1ps"),
                                           "duration": FIX("1ps"), "slowdown": 2}]})
scen("straggler-spells-zero", "spell-storm", "spells of 0 s every 0 s", BASE_TIME,
     {"/failures/stochastic_stragglers": [{"target": "accelerator", "every": FIX(0),
                                           "duration": FIX(0), "slowdown": 2}]})
scen("straggler-spells-forever", "huge-value", "one spell of 1e300 s, slowdown 1e6", BASE_TIME,
     {"/failures/stochastic_stragglers": [{"target": "node", "every": FIX("1s"),
                                           "duration": FIX("1e300s"), "slowdown": 1000000}]})
scen("straggler-two-entries-one-target", "schema", "two stochastic entries for accelerators", BASE_TIME,
     {"/failures/stochastic_stragglers": [
         {"target": "accelerator", "every": EXP("1h"), "duration": FIX("1min"), "slowdown": 2},
         {"target": "accelerator", "every": EXP("2h"), "duration": FIX("1min"), "slowdown": 3}]})
scen("straggler-slowdown-one", "schema", "slowdown 1", BASE_TIME,
     {"/failures/stragglers": [{"target": "node", "index": 0, "from": "1min", "to": "2min", "slowdown": 1}]})
scen("straggler-slowdown-huge", "huge-value", "slowdown 1e6 for the whole run, stop by version",
     BASE_TIME, {"/stop": {"version": 300},
                 "/failures/stragglers": [{"target": "node", "index": 0, "from": 0, "to": "1e300s",
                                           "slowdown": 1000000}]})
scen("straggler-from-after-to", "schema", "a straggler from 2 h to 1 h", BASE_TIME,
     {"/failures/stragglers": [{"target": "node", "index": 0, "from": "2h", "to": "1h", "slowdown": 2}]})
scen("straggler-index-huge", "overflow", "a straggler of index 2^63", BASE_TIME,
     {"/failures/stragglers": [{"target": "accelerator", "index": 2 ** 63, "from": "1min", "to": "2min",
                                "slowdown": 2}]})
scen("straggler-index-out-of-range", "schema", "a straggler of node 4 of 4", BASE_TIME,
     {"/failures/stragglers": [{"target": "node", "index": 4, "from": "1min", "to": "2min", "slowdown": 2}]})
scen("stragglers-list-ps", "spell-storm", "120,000 listed straggler spells of a picosecond each", BASE_TIME,
     {"/failures/stragglers": [{"target": "accelerator", "index": 3, "from": 10, "to": 10.000000000001,
                                "slowdown": 2}]},
     generate=[{"file": "scenario.json", "kind": "repeat_list", "pointer": "/failures/stragglers",
                "count": 120000, "step_field": ["from", "to"], "step": 2e-12}])

# --------------------------------------------------------------------------------------------
# Fault traces.
def trace_scen(name, cls, note, trace_cfg, trace_file=None, extra_changes=None, trace_name="trace.json",
               generate=None, dry=False, extra=None):
    ch = {"/failures": {"trace": trace_cfg}}
    ch.update(extra_changes or {})
    files = dict(extra or {})
    if trace_file is not None:
        files[trace_name] = trace_file
    scen(name, cls, note, BASE_TIME, ch, extra=files, generate=generate, dry=dry)


TC = {"file": "trace.json", "extra_nodes": "ignore"}
trace_scen("trace-small-ok", "trace", "a small good trace", TC, SMALL_TRACE)
trace_scen("trace-missing-file", "trace", "a trace file that does not exist", {"file": "nope.json"})
trace_scen("trace-empty-file", "trace", "an empty trace file", TC, b"")
trace_scen("trace-empty-array", "trace", "a trace of no event", TC, [])
trace_scen("trace-object", "trace", "a trace that is an object", TC, {"events": SMALL_TRACE})
trace_scen("trace-garbage", "trace", "a trace of random bytes", TC,
           generate=[{"file": "trace.json", "kind": "random_bytes", "bytes": 8192, "seed": 3}])
trace_scen("trace-non-utf8", "trace", "a trace with a node id not UTF-8", TC,
           json.dumps(SMALL_TRACE).replace('"a"', '"\udcff"', 1).encode("utf-8", "surrogateescape"))
trace_scen("trace-truncated", "trace", "a trace cut in the middle", TC, json.dumps(SMALL_TRACE).encode()[:150])
trace_scen("trace-negative-time", "trace", "a fault at day -1", TC,
           [dict(SMALL_TRACE[0], event_time=-1.0)])
trace_scen("trace-time-1e300", "trace", "a fault at day 1e300", TC, [dict(SMALL_TRACE[0], event_time=1e300)])
trace_scen("trace-time-string", "trace", "event_time \"3.5\"", TC, [dict(SMALL_TRACE[0], event_time="3.5")])
trace_scen("trace-out-of-order", "trace", "times out of order", TC, [SMALL_TRACE[2], SMALL_TRACE[0]])
trace_scen("trace-end-without-start", "trace", "a fault_end with no open start", TC, [SMALL_TRACE[2]])
trace_scen("trace-unknown-event-type", "trace", "event_type \"fault_middle\"", TC,
           [dict(SMALL_TRACE[0], event_type="fault_middle")])
trace_scen("trace-node-id-number", "trace", "node_id 42", TC, [dict(SMALL_TRACE[0], node_id=42)])
trace_scen("trace-node-id-empty", "trace", "node_id \"\"", TC, [dict(SMALL_TRACE[0], node_id="")])
trace_scen("trace-node-id-huge", "trace", "a node id of 1 MB", TC, [SMALL_TRACE[0]],
           generate=[{"file": "trace.json", "kind": "pad_string", "pointer": "/0/node_id", "bytes": 1000000}])
trace_scen("trace-fault-type-missing", "trace", "a fault_start without fault_type", TC,
           [{k: v for k, v in SMALL_TRACE[0].items() if k != "fault_type"}])
trace_scen("trace-from-day-1e300", "trace", "from_day 1e300", dict(TC, from_day=1e300), SMALL_TRACE)
trace_scen("trace-from-day-negative", "trace", "from_day -1", dict(TC, from_day=-1), SMALL_TRACE)
trace_scen("trace-time-scale-tiny", "storm", "time_scale 1e-300: every fault at time 0",
           dict(TC, time_scale=1e-300), SMALL_TRACE)
trace_scen("trace-time-scale-huge", "huge-value", "time_scale 1e300: faults at 1e305 s",
           dict(TC, time_scale=1e300), SMALL_TRACE)
trace_scen("trace-time-scale-zero", "trace", "time_scale 0", dict(TC, time_scale=0), SMALL_TRACE)
trace_scen("trace-repair-1ps", "storm", "a repair of 1 ps for every fault", dict(TC, repair="1ps"), SMALL_TRACE)
trace_scen("trace-repair-zero", "trace", "a repair of 0", dict(TC, repair=0), SMALL_TRACE)
trace_scen("trace-extra-nodes-error", "trace", "4 nodes, a trace of 3: fine; 231 nodes: error",
           {"file": "@REPO@/data/traces/infinitehbd/fault_trace.json", "extra_nodes": "error"})
trace_scen("trace-wrap-one-node", "storm", "the shipped trace wrapped onto 4 nodes with repairs of 1 ps",
           {"file": "@REPO@/data/traces/infinitehbd/fault_trace.json", "extra_nodes": "wrap",
            "repair": "1ps", "time_scale": 1e-6})
trace_scen("trace-wrap-with-file-mapping", "trace", "wrap with a mapping file",
           {"file": "trace.json", "mapping": "file", "mapping_file": "map.json", "extra_nodes": "wrap"},
           SMALL_TRACE, extra={"map.json": {"a": 0, "b": 1}})
trace_scen("trace-mapping-file-missing", "trace", "mapping \"file\" without mapping_file",
           {"file": "trace.json", "mapping": "file"}, SMALL_TRACE)
trace_scen("trace-mapping-index-negative", "trace", "a mapping onto node -1",
           {"file": "trace.json", "mapping": "file", "mapping_file": "map.json", "extra_nodes": "ignore"},
           SMALL_TRACE, extra={"map.json": {"a": -1, "b": 1}})
trace_scen("trace-mapping-index-huge", "trace", "a mapping onto node 2^40",
           {"file": "trace.json", "mapping": "file", "mapping_file": "map.json", "extra_nodes": "ignore"},
           SMALL_TRACE, extra={"map.json": {"a": 2 ** 40, "b": 1}})
trace_scen("trace-mapping-not-object", "trace", "a mapping file that is a list",
           {"file": "trace.json", "mapping": "file", "mapping_file": "map.json", "extra_nodes": "ignore"},
           SMALL_TRACE, extra={"map.json": [0, 1]})
trace_scen("trace-file-directory", "trace", "a trace file that is a directory", {"file": "."})
trace_scen("trace-file-dev-zero", "input-size", "the trace /dev/zero", {"file": "/dev/zero"})
trace_scen("trace-over-size-cap", "input-size", "a generated trace of 100,000 faults (over 16 MiB)",
           dict(TC, extra_nodes="error"), generate=[
               {"file": "trace.json", "kind": "trace", "faults": 100000, "nodes": 4,
                "spacing_days": 1.0 / 86400, "repair_days": 1e-9}])
trace_scen("trace-big-storm", "storm", "a generated trace of 45,000 faults on 4 nodes a second apart",
           dict(TC, extra_nodes="error"), generate=[
               {"file": "trace.json", "kind": "trace", "faults": 45000, "nodes": 4,
                "spacing_days": 1.0 / 86400, "repair_days": 1e-9}], dry=True)
trace_scen("trace-big-nodes", "trace", "a generated trace of 45,000 distinct nodes, extra_nodes error",
           dict(TC, extra_nodes="error"), generate=[
               {"file": "trace.json", "kind": "trace", "faults": 45000, "nodes": 45000,
                "spacing_days": 1e-6, "repair_days": 1e-3}])
trace_scen("trace-never-ends-version-stop", "unbounded-work",
           "every node's fault never ends, stop by version only", dict(TC, extra_nodes="error"),
           [{"node_id": n, "event_time": 0.001, "event_type": "fault_start",
             "fault_type": {"Level": "Hardware Failure", "Class": "GPU", "Desc": "x"}} for n in "abcd"],
           extra_changes={"/stop": {"version": 1000}})

# --------------------------------------------------------------------------------------------
# Failure rate tables.
def rates_scen(name, cls, note, table, repair=None, extra_changes=None, dry=False, generate=None):
    ch = {"/failures": {"rates": {"file": "rates.json", "repair": repair or EXP("2h")}}}
    ch.update(extra_changes or {})
    files = {} if table is None else {"rates.json": table}
    scen(name, cls, note, BASE_TIME, ch, extra=files, dry=dry, generate=generate)


def rt(**kw):
    t = copy.deepcopy(RATES)
    t.update(kw)
    return t


rates_scen("rates-ok", "rates", "a good rate table", RATES)
rates_scen("rates-missing-file", "rates", "a rate table that does not exist", None)
rates_scen("rates-garbage", "rates", "a rate table of random bytes", None,
           generate=[{"file": "rates.json", "kind": "random_bytes", "bytes": 2048, "seed": 4}])
rates_scen("rates-window-zero", "rates", "window 0", rt(window=0))
rates_scen("rates-window-1ps", "storm", "window 1 ps: failures every femtosecond", rt(window="1ps"), dry=True)
rates_scen("rates-window-1ps-version-stop", "storm", "window 1 ps and a stop by version only",
           rt(window="1ps"), extra_changes={"/stop": {"version": 100}}, dry=True)
rates_scen("rates-population-zero", "rates", "a population of 0 GPUs", rt(population={"accelerator": 0, "node": 2048, "nic": 2048}))
rates_scen("rates-population-huge", "huge-value", "a population of 2^63",
           rt(population={"accelerator": 2 ** 63, "node": 2048, "nic": 2048}))
rates_scen("rates-count-huge", "storm", "a cause counted 1e300 times",
           rt(causes=[{"cause": "x", "count": 1e300, "target": "node", "host_memory_lost": True}]))
rates_scen("rates-count-negative", "rates", "a count of -5",
           rt(causes=[{"cause": "x", "count": -5, "target": "node", "host_memory_lost": True}]))
rates_scen("rates-count-zero-all", "rates", "every count 0",
           rt(causes=[{"cause": "x", "count": 0, "target": "node", "host_memory_lost": True}]))
rates_scen("rates-no-causes", "rates", "an empty list of causes", rt(causes=[]))
rates_scen("rates-unknown-target", "rates", "a cause of target \"gpu\"",
           rt(causes=[{"cause": "x", "count": 3, "target": "gpu", "host_memory_lost": True}]))
rates_scen("rates-cause-non-utf8", "rates", "a cause name with bytes that are not UTF-8",
           json.dumps(RATES).replace("faulty GPU", "faulty \udce9GPU").encode("utf-8", "surrogateescape"))
rates_scen("rates-repair-zero", "storm", "repairs of 0 s at a 1 ms window", rt(window="1ms"), repair=FIX(0))
rates_scen("rates-with-stochastic-same-kind", "rates", "rates and a stochastic entry for nodes", RATES,
           extra_changes={"/failures/stochastic": [{"target": "node", "lifetime": EXP("1d"), "repair": EXP("1h")}]})
rates_scen("rates-many-causes", "input-size", "a table of 100,000 causes", RATES,
           generate=[{"file": "rates.json", "kind": "repeat_list", "pointer": "/causes", "count": 100000}])

# --------------------------------------------------------------------------------------------
# Recovery designs and their settings.
R = "/recovery"
Q0 = {"/layout/zero_stage": 0}
recovery_cases = {
    "cr-every-steps-huge": ({R + "/checkpoint/every_steps": 2 ** 62}, "checkpoint every 2^62 steps"),
    "cr-every-steps-2pow64": ({R + "/checkpoint/every_steps": 2 ** 64}, "checkpoint every 2^64 steps"),
    "cr-every-steps-negative": ({R + "/checkpoint/every_steps": -1}, "checkpoint every -1 steps"),
    "cr-mode-typo": ({R + "/checkpoint/mode": "snap"}, "checkpoint mode \"snap\""),
    "cr-snapshot-copy-1Bps": ({R + "/checkpoint": {"every_steps": 10, "mode": "snapshot",
                                                   "host_copy_bandwidth": "1Bps"}},
                              "snapshots copied at 1 B/s"),
    "cr-snapshot-copy-zero": ({R + "/checkpoint": {"every_steps": 10, "mode": "snapshot",
                                                   "host_copy_bandwidth": 0}}, "copy bandwidth 0"),
    "cr-fs-1Bps-blocking": ({"/platform/file_system/write_bandwidth": "1Bps",
                             R + "/checkpoint/every_steps": 1}, "blocking checkpoints every step at 1 B/s"),
    "cr-restart-1e300": ({R + "/restart/scheduler_delay": "1e300s"}, "a scheduler delay of 1e300 s"),
    "cr-init-per-rank-huge": ({R + "/restart/init_per_rank": "1e300s"}, "1e300 s per rank of initialisation"),
    "cr-restart-negative": ({R + "/restart/process_start": "-30s"}, "a process start of -30 s"),
    "cr-strategy-typo": ({R + "/strategy": "checkpoint_restart"}, "strategy checkpoint_restart"),
    "cr-strategy-empty": ({R + "/strategy": ""}, "strategy \"\""),
    "cr-strategy-null": ({R + "/strategy": None}, "strategy null"),
    "cr-other-design-section": ({R + "/quorum": {"group_replicas": 1}}, "a quorum section under checkpoint-restart"),
    "cr-no-recovery": ({R: DEL}, "no recovery section with failures"),
    "im-every-zero": ({R: {"strategy": "in-memory", "in_memory": {"every_steps": 0}}}, "in-memory every 0 steps"),
    "im-fs-every-huge": ({R: {"strategy": "in-memory", "in_memory": {"every_steps": 1,
                                                                     "file_system_every": 2 ** 62}}},
                         "file_system_every 2^62"),
    "im-copy-1Bps": ({R: {"strategy": "in-memory", "in_memory": {"every_steps": 1, "host_copy_bandwidth": "1Bps"}}},
                     "in-memory copies at 1 B/s every step"),
    "im-partner-one-node": ({"/platform/nodes": 1, "/layout/dp": 1, "/layout/pp": 2,
                             "/workload/transformer/global_batch_tokens": 2048 * 8,
                             "/failures": {},
                             R: {"strategy": "in-memory", "in_memory": {"placement": "partner-node"}}},
                            "partner-node on one node"),
    "im-with-checkpoint-section": ({R: {"strategy": "in-memory", "in_memory": {},
                                        "checkpoint": {"every_steps": 10}}}, "in-memory with recovery.checkpoint"),
    "im-host-memory-tiny": ({"/platform/node/host_memory": "1kB", R: {"strategy": "in-memory", "in_memory": {}}},
                            "in-memory on nodes of 1 kB host memory"),
    "ml-disk-1Bps": ({R: {"strategy": "multi-level", "multi_level": {"every_steps": 1, "disk_write_bandwidth": "1Bps",
                                                                      "disk_read_bandwidth": "1Bps"}}},
                     "local disks of 1 B/s, a checkpoint every step"),
    "ml-disk-zero": ({R: {"strategy": "multi-level", "multi_level": {"disk_write_bandwidth": 0}}}, "disk bandwidth 0"),
    "ml-every-huge": ({R: {"strategy": "multi-level", "multi_level": {"every_steps": 2 ** 63}}}, "every 2^63 steps"),
    "uni-wait-1e300": ({R + "/strategy": "universal", R + "/universal": {"wait_limit": "1e300s"},
                        "/stop": {"version": 500}}, "universal waiting up to 1e300 s, stop by version"),
    "uni-min-replicas-zero": ({R + "/strategy": "universal", R + "/universal": {"min_replicas": 0}}, "min_replicas 0"),
    "uni-min-replicas-huge": ({R + "/strategy": "universal", R + "/universal": {"min_replicas": 2 ** 31}},
                              "min_replicas 2^31"),
    "uni-grow-no-checkpoints": ({R + "/strategy": "universal", R + "/checkpoint/every_steps": 0,
                                 R + "/universal": {"grow": "at_checkpoint"}}, "grow at a checkpoint without any"),
    "uni-batch-typo": ({R + "/strategy": "universal", R + "/universal": {"batch": "kept"}}, "batch \"kept\""),
    "uni-forever-min-all": ({R + "/strategy": "universal", R + "/universal": {"min_replicas": 2},
                             "/failures/events/0/down_for": "forever", "/stop": {"version": 500}},
                            "a node lost for good and min_replicas = dp, stop by version"),
    "quorum-group-zero": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"group_replicas": 0}}}), "group_replicas 0"),
    "quorum-one-group": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"group_replicas": 2}}}), "one group"),
    "quorum-min-over": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"min_replicas": 3}}}), "min_replicas 3 of 2"),
    "quorum-zero-stage": ({R: {"strategy": "quorum", "quorum": {}}}, "the quorum at ZeRO stage 3"),
    "quorum-with-checkpoints": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {},
                                                "checkpoint": {"every_steps": 10}}}), "the quorum with checkpoints"),
    "quorum-latency-zero-tiny-steps": (dict(Q0, **FAST_NODE, **{R: {"strategy": "quorum", "quorum": {"latency": 0}}}),
                                       "a quorum of latency 0 on picosecond steps"),
    "quorum-latency-1e300": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"latency": "1e300s"}},
                                         "/stop": {"version": 100}}), "a quorum of 1e300 s, stop by version"),
    "quorum-reconfigure-1e300": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"reconfigure": "1e300s"}}}),
                                 "a reconfiguration of 1e300 s"),
    "quorum-heartbeat-zero": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"heartbeat_timeout": 0}}}),
                              "heartbeat_timeout 0"),
    "quorum-detection-typo": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {"detection": "fast"}}}),
                              "quorum detection \"fast\""),
    "quorum-all-forever": (dict(Q0, **{R: {"strategy": "quorum", "quorum": {}}, "/stop": {"version": 500},
                                       "/failures/events": [{"target": "node", "index": i, "at": "1min",
                                                             "down_for": "forever"} for i in range(4)]}),
                           "every group lost for good, stop by version"),
    "diloco-inner-huge": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"inner_steps": 2 ** 62}}}),
                          "inner_steps 2^62"),
    "diloco-inner-2pow31": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"inner_steps": 2 ** 31}}}),
                            "inner_steps 2^31"),
    "diloco-momentum-one": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"outer_momentum": 1}}}),
                            "outer momentum 1"),
    "diloco-lr-huge": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"outer_learning_rate": 1e300}}}),
                       "outer learning rate 1e300 (time only)"),
    "diloco-bytes-tiny": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"outer_gradient_bytes": 1e-300}}}),
                          "outer gradient of 1e-300 bytes a parameter"),
    "diloco-bytes-huge": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {"outer_gradient_bytes": 1e300}}}),
                          "outer gradient of 1e300 bytes a parameter"),
    "diloco-dp-one": ({"/layout/dp": 1, "/layout/pp": 8, "/layout/zero_stage": 0,
                       "/workload/transformer/global_batch_tokens": 2048 * 8,
                       R: {"strategy": "diloco", "diloco": {}}}, "DiLoCo with one replica"),
    "diloco-with-checkpoints": (dict(Q0, **{R: {"strategy": "diloco", "diloco": {},
                                                "checkpoint": {"every_steps": 10}}}), "DiLoCo with checkpoints"),
}
for name, (changes, note) in recovery_cases.items():
    scen("recovery-" + name, "recovery", note, BASE_TIME, changes)
scen("recovery-diloco-real-lr-huge", "recovery", "DiLoCo real math, outer learning rate 1e300", BASE_REAL,
     {R: {"strategy": "diloco", "diloco": {"outer_learning_rate": 1e300, "inner_steps": 2}}})
scen("recovery-quorum-real-storm", "recovery", "the quorum, real math, every node failing every ms", BASE_REAL,
     dict(storm("node", EXP("1ms"), EXP("1ms"), {"version": 100}),
          **{R: {"strategy": "quorum", "quorum": {}}}))

# --------------------------------------------------------------------------------------------
# --set, --seed, --threads and other options of run.
def setcase(name, sets, cls="set", note=None, base=BASE_TIME, extra_args=None, exits=None):
    argv = list(RUN)
    for s in sets:
        argv += ["--set", s]
    argv += extra_args or []
    add(name, cls, note or "failsim run --set " + " --set ".join(sets)[:200], {"scenario.json": base},
        argv, exits=exits)


setcase("set-no-equals", ["/platform/nodes"])
setcase("set-empty", [""])
setcase("set-root", ["=5"])
setcase("set-root-slash", ["/=5"])
setcase("set-nodes-1e400", ["/platform/nodes=1e400"])
setcase("set-dp-2pow31", ["/layout/dp=2147483648"])
setcase("set-dp-tp-overflow", ["/layout/dp=65536", "/layout/tp=65536", "/layout/tp_across_nodes=true"])
setcase("set-missing-parent", ["/nonexistent/deep/key=1"])
setcase("set-array-append", ["/failures/events/-={\"target\": \"node\", \"index\": 0, \"at\": \"1h\"}"])
setcase("set-array-index-huge", ["/failures/events/99999999999999999999=1"])
setcase("set-array-index-negative", ["/failures/events/-1/at=1"])
setcase("set-array-index-leading-zero", ["/failures/events/00/at=1h"])
setcase("set-stop-1e300", ["/stop={\"time\": \"1e300s\"}"], "unbounded-work")
setcase("set-storm", ["/failures/stochastic=[{\"target\": \"node\", \"lifetime\": {\"distribution\": \"fixed\", "
                      "\"value\": \"1ps\"}, \"repair\": {\"distribution\": \"fixed\", \"value\": \"1ps\"}}]",
                      "/stop={\"version\": 10}"], "storm")
setcase("set-deep-value", [], "syntax", note="--set /description=[[[...]]] 60,000 deep (under the kernel's 128 KiB an argument)",
        extra_args=["--set", {"prefix": "/description=", "nest": 60000}])
setcase("set-duplicate-key-value", ["/layout={\"dp\": 2, \"dp\": 3}"], "syntax")
setcase("set-bad-json-value-as-string", ["/layout/dp={\"oops\""])
setcase("set-tilde-escapes", ["/layout~1dp=3", "/lay~0out=3"])
setcase("set-non-utf8", [b"/description=caf\xff".decode("utf-8", "surrogateescape")])
setcase("set-non-utf8-pointer", [b"/descr\xffiption=x".decode("utf-8", "surrogateescape")])
setcase("set-name-traversal", ["/name=../../etc"])
setcase("set-protocol-ps", ["/protocol=parameter-server"])
setcase("set-ten-thousand", [], extra_args=[{"repeat": 10000, "args": ["--set", "/seed=3"]}],
        note="10,000 --set of the seed")
setcase("set-output-dir-unwritable", ["/output/directory=/proc/failsim-hostile"], "cli",
        extra_args=[], exits=[3])
add("seed-option-negative", "cli", "--seed -1", {"scenario.json": BASE_TIME}, RUN + ["--seed", "-1"])
add("seed-option-2pow64", "cli", "--seed 2^64", {"scenario.json": BASE_TIME}, RUN + ["--seed", str(2 ** 64)])
add("seed-option-word", "cli", "--seed abc", {"scenario.json": BASE_TIME}, RUN + ["--seed", "abc"])
add("seed-option-float", "cli", "--seed 1e3", {"scenario.json": BASE_TIME}, RUN + ["--seed", "1e3"])
add("seed-option-missing-value", "cli", "--seed at the end", {"scenario.json": BASE_TIME}, RUN + ["--seed"])
add("threads-zero", "cli", "--threads 0", {"scenario.json": BASE_REAL}, RUN + ["--threads", "0"])
add("threads-huge", "cli", "--threads 99999999999", {"scenario.json": BASE_REAL}, RUN + ["--threads", "99999999999"])
add("threads-1024", "cli", "--threads 1024 (the cap) with real math", {"scenario.json": BASE_REAL},
    RUN + ["--threads", "1024"])
add("cfg-unknown", "cli", "--cfg=network/model:Nope", {"scenario.json": BASE_TIME}, RUN + ["--cfg=network/model:Nope"])
add("cfg-stack-size-tiny", "cli", "--cfg=contexts/stack-size:1 (1 KiB stacks)", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=contexts/stack-size:1"])
add("cfg-stack-size-huge", "cli", "--cfg=contexts/stack-size:100000000", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=contexts/stack-size:100000000"])
add("cfg-precision-huge", "cli", "--cfg=surf/precision:1", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=surf/precision:1"])
add("cfg-precision-zero", "cli", "--cfg=surf/precision:0", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=surf/precision:0"])
add("cfg-maxmin-precision-zero", "cli", "--cfg=maxmin/precision:0", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=maxmin/precision:0"])
add("cfg-model-lv08", "cli", "--cfg=network/model:LV08 over the cluster's CM02", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=network/model:LV08"])
add("cfg-nthreads", "cli", "--cfg=contexts/nthreads:64", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=contexts/nthreads:64"])
add("cfg-factory-thread", "cli", "--cfg=contexts/factory:thread", {"scenario.json": BASE_TIME},
    RUN + ["--cfg=contexts/factory:thread"])
add("cfg-garbage", "cli", "--cfg=::::", {"scenario.json": BASE_TIME}, RUN + ["--cfg=::::"])
add("log-garbage", "cli", "--log=a.b.c:::", {"scenario.json": BASE_TIME}, RUN + ["--log=a.b.c:::"])
add("log-debug-short", "cli", "--log=failsim.thresh:debug on a 20 min run", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "-o", "{out}", "--set", "/stop/time=20min",
     "--set", "/failures/events/0/at=10min", "--log=failsim.thresh:debug"])
add("simulate-every-step-long", "unbounded-work", "--simulate-every-step for 100,000 days",
    {"scenario.json": BASE_TIME}, RUN + ["--simulate-every-step", "--set", "/stop/time=100000d"])
add("branch-collective", "cli", "--branch of a collective scenario with another failure time",
    {"scenario.json": BASE_TIME, "b.json": scenario(BASE_TIME, {"/failures/events/0/at": "40min"})},
    RUN + ["--branch", "{case}/b.json={out}-b"])
add("branch-missing", "cli", "--branch of a file that does not exist", {"scenario.json": BASE_TIME},
    RUN + ["--branch", "{case}/nope.json"])
add("branch-same-dir", "cli", "--branch into the run's own directory", {"scenario.json": BASE_TIME},
    RUN + ["--branch", "{case}/scenario.json={out}"])
add("branch-empty", "cli", "--branch \"\"", {"scenario.json": BASE_TIME}, RUN + ["--branch", ""])
add("output-is-file", "cli", "-o naming an existing file", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "-o", "{case}/scenario.json"], exits=[3])
add("output-empty", "cli", "-o \"\"", {"scenario.json": BASE_TIME}, ["{failsim}", "run", "{case}/scenario.json", "-o", ""])
add("output-dev-null", "cli", "-o /dev/null", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "-o", "/dev/null"], exits=[3])
add("output-name-too-long", "cli", "-o with a component of 5,000 characters", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "-o", "{work}/" + "d" * 5000], exits=[3])
add("output-proc", "cli", "-o under /proc", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "-o", "/proc/failsim-hostile/x"], exits=[3])
add("cli-no-subcommand", "cli", "failsim alone", {}, ["{failsim}"])
add("cli-unknown-subcommand", "cli", "failsim runn", {}, ["{failsim}", "runn", "x.json"])
add("cli-run-no-file", "cli", "failsim run", {}, ["{failsim}", "run"])
add("cli-run-two-files", "cli", "failsim run A B", {"scenario.json": BASE_TIME},
    ["{failsim}", "run", "{case}/scenario.json", "{case}/scenario.json", "-o", "{out}"])
add("cli-unknown-option", "cli", "failsim run --frobnicate", {"scenario.json": BASE_TIME},
    RUN + ["--frobnicate"])
add("cli-non-utf8-argv", "cli", "a scenario path with bytes that are not UTF-8", {},
    ["{failsim}", "run", b"{case}/sc\xe9nario.json".decode("utf-8", "surrogateescape"), "-o", "{out}"])
add("cli-dry-run-every-step", "cli", "--dry-run --simulate-every-step -q", {"scenario.json": BASE_TIME},
    DRY + ["--simulate-every-step", "-q"])
add("cli-help-run", "cli", "failsim run --help", {}, ["{failsim}", "run", "--help"])
add("cli-version", "cli", "failsim --version", {}, ["{failsim}", "--version"])

# --------------------------------------------------------------------------------------------
# validate.
add("validate-none", "validate", "failsim validate with no file", {}, ["{failsim}", "validate"])
add("validate-one-bad-of-three", "validate", "three files, the second broken",
    {"a.json": BASE_TIME, "b.json": b"{\"protocol\": \"collective\",", "c.json": BASE_REAL},
    ["{failsim}", "validate", "{case}/a.json", "{case}/b.json", "{case}/c.json"])
add("validate-directory", "validate", "failsim validate of a directory", {"scenario.json": BASE_TIME},
    ["{failsim}", "validate", "{case}"])
add("validate-sweep-file", "validate", "failsim validate of a sweep file", {},
    ["{failsim}", "validate", "{repo}/scenarios/sweeps/collective-checkpoint.json"])
add("validate-schema-file", "validate", "failsim validate of the JSON Schema", {},
    ["{failsim}", "validate", "{repo}/scenarios/collective.schema.json"])
add("validate-rate-table", "validate", "failsim validate of a rate table", {},
    ["{failsim}", "validate", "{repo}/data/failure-rates/llama3-405b.json"])
add("validate-many", "validate", "failsim validate of 20 files", {"scenario.json": BASE_TIME},
    ["{failsim}", "validate", "{case_glob:many/*.json}"],
    [{"file": "scenario.json", "kind": "copies", "count": 20, "dir": "many"}])
scen("validate-overflow-ranks", "validate", "failsim validate of dp x tp x pp = 2^31", BASE_TIME,
     {"/layout/dp": 65536, "/layout/tp": 32768, "/layout/pp": 1, "/layout/tp_across_nodes": True},
     argv=VALIDATE)
scen("validate-ten-million-ranks", "validate", "failsim validate of 10^7 ranks", BASE_TIME,
     {"/platform/nodes": 2500, "/platform/node/accelerators": 4000, "/platform/topology/nodes_per_leaf": 50,
      "/layout/dp": 10000000, "/layout/tp": 1, "/layout/pp": 1, "/layout/zero_stage": 1,
      "/layout/micro_batches": 1, "/workload/transformer/sequence": 1,
      "/workload/transformer/global_batch_tokens": 10000000}, argv=VALIDATE)
scen("validate-storm-version", "validate", "failsim validate of a picosecond storm with a version stop",
     BASE_TIME, storm("node", FIX("1ps"), FIX("1ps"), {"version": 100}), argv=VALIDATE)
scen("validate-spells-1ps", "validate", "failsim validate of picosecond slow spells", BASE_TIME,
     {"/failures/stochastic_stragglers": [{"target": "accelerator", "every": FIX("1ps"),
                                           "duration": FIX("1ps"), "slowdown": 2}]}, argv=VALIDATE)

# --------------------------------------------------------------------------------------------
# trace fit.
def fit(name, note, trace, args=(), generate=None, cls="trace-fit"):
    files = {} if trace is None else {"trace.json": trace}
    add(name, cls, note, files, ["{failsim}", "trace", "fit", "{case}/trace.json"] + list(args), generate)


FIT_TRACE = [e for i, (t, r) in enumerate([(0.1, 0.3), (0.7, 0.2), (1.9, 1.5), (2.2, 0.1), (4.0, 0.8),
                                             (4.1, 2.0), (6.5, 0.4), (9.0, 0.05)])
             for e in (dict(SMALL_TRACE[0], node_id=f"n{i % 5}", event_time=t),
                       dict(SMALL_TRACE[2], node_id=f"n{i % 5}", event_time=t + r))]
FIT_TRACE.sort(key=lambda e: e["event_time"])
fit("fit-small-ok", "a good trace of 8 faults on 5 nodes", FIT_TRACE)
fit("fit-small-ok-json", "a good trace of 8 faults, --json --nodes 400", FIT_TRACE, ["--json", "--nodes", "400"])
fit("fit-two-faults", "a trace of 2 faults", SMALL_TRACE)
fit("fit-nodes-zero", "--nodes 0", FIT_TRACE, ["--nodes", "0"])
fit("fit-nodes-negative", "--nodes -1", FIT_TRACE, ["--nodes", "-1"])
fit("fit-nodes-huge", "--nodes 10^30", FIT_TRACE, ["--nodes", "1000000000000000000000000000000"])
fit("fit-nodes-2pow63", "--nodes 2^63", FIT_TRACE, ["--nodes", str(2 ** 63)])
fit("fit-nodes-word", "--nodes many", FIT_TRACE, ["--nodes", "many"])
fit("fit-nodes-below", "--nodes 1 below the trace's 5", FIT_TRACE, ["--nodes", "1"])
fit("fit-nodes-nan", "--nodes nan", FIT_TRACE, ["--nodes", "nan"])
fit("fit-missing", "a trace that does not exist", None)
fit("fit-empty-array", "an empty trace", [])
fit("fit-empty-file", "an empty file", b"")
fit("fit-garbage", "random bytes", None, generate=[{"file": "trace.json", "kind": "random_bytes",
                                                    "bytes": 4096, "seed": 5}])
fit("fit-non-utf8", "a node id not UTF-8",
    json.dumps(SMALL_TRACE).replace('"b"', '"\udcfe"', 1).encode("utf-8", "surrogateescape"))
fit("fit-one-fault", "one fault only", [SMALL_TRACE[0]])
fit("fit-same-instant", "50 faults at one instant", [dict(SMALL_TRACE[0], node_id=f"n{i}") for i in range(50)])
fit("fit-equal-gaps", "faults exactly one day apart (no spread)",
    [dict(SMALL_TRACE[0], node_id="n", event_time=float(i)) for i in range(20)])
fit("fit-two-gaps-equal-node", "one node's faults at equal gaps, fault_end each time",
    [e for i in range(10) for e in (
        dict(SMALL_TRACE[0], node_id="n", event_time=float(i)),
        dict(SMALL_TRACE[2], node_id="n", event_time=i + 0.5))])
fit("fit-zero-repairs", "every repair 0 h",
    [e for i in range(10) for e in (
        dict(SMALL_TRACE[0], node_id=f"n{i}", event_time=float(i)),
        dict(SMALL_TRACE[2], node_id=f"n{i}", event_time=float(i)))])
fit("fit-time-1e300", "faults at day 1e300", [dict(SMALL_TRACE[0], event_time=1e300),
                                               dict(SMALL_TRACE[0], node_id="b", event_time=1e300)])
fit("fit-tiny-gaps", "gaps of 1e-300 days", [dict(SMALL_TRACE[0], node_id=f"n{i}", event_time=i * 1e-300)
                                             for i in range(30)])
fit("fit-huge-gaps", "gaps of 1e150 days", [dict(SMALL_TRACE[0], node_id=f"n{i}", event_time=i * 1e150)
                                            for i in range(30)])
fit("fit-only-ends", "only fault_end events", [SMALL_TRACE[2]])
fit("fit-big", "a generated trace of 45,000 faults", None,
    generate=[{"file": "trace.json", "kind": "trace", "faults": 45000, "nodes": 400,
               "spacing_days": 1e-4, "repair_days": 0.5}], cls="input-size")
fit("fit-json-flag-garbage", "--json on a broken trace", b"[{\"node_id\": ", ["--json"])
fit("fit-directory", "a directory as the trace", None, cls="trace-fit")
files_of["fit-directory"] = {"trace.json/placeholder": b""}
add("fit-no-trace", "trace-fit", "failsim trace fit with no trace", {}, ["{failsim}", "trace", "fit"])
add("fit-unknown-subcommand", "trace-fit", "failsim trace fitt", {}, ["{failsim}", "trace", "fitt", "x"])
add("fit-dev-zero", "input-size", "failsim trace fit /dev/zero", {}, ["{failsim}", "trace", "fit", "/dev/zero"])

# --------------------------------------------------------------------------------------------
# Sweeps.
def sweep(name, note, sweep_doc, args=("--dry-run",), cls="sweep", base=BASE_TIME, raw_bytes=None,
          generate=None):
    files = {"base.json": base}
    files["sweep.json"] = raw_bytes if raw_bytes is not None else sweep_doc
    add(name, cls, note, files, ["{failsim}", "sweep", "{case}/sweep.json", "-o", "{out}"] + list(args), generate)


SW = {"name": "hostile", "scenarios": ["base.json"], "seeds": [1]}
sweep("sweep-ok-dry", "a good sweep, --dry-run", dict(SW, vary=[{"path": "/stop/time", "values": ["1h", "2h"]}]))
sweep("sweep-ok-run", "a good sweep of two short runs", dict(SW, vary=[{"path": "/stop/time", "values": ["20min", "40min"]}]),
      args=("-j", "1", "-q"))
sweep("sweep-range-huge", "a range of 10^9 values", dict(SW, vary=[{"path": "/seed", "range": {"from": 1, "to": 1000000000, "step": 1}}]))
sweep("sweep-seeds-huge", "seeds 0 to 10^12", dict(SW, seeds={"from": 0, "to": 10 ** 12}))
sweep("sweep-grid-product", "10,000 x 10,000 points", dict(SW, vary=[
    {"path": "/workload/achieved_fraction", "range": {"from": 0.0001, "to": 1.0, "step": 0.0001}},
    {"path": "/platform/file_system/latency", "range": {"from": 1, "to": 10000, "step": 1}}]))
sweep("sweep-values-empty", "vary with no value", dict(SW, vary=[{"path": "/stop/time", "values": []}]))
sweep("sweep-path-missing", "a path whose parent does not exist",
      dict(SW, vary=[{"path": "/nope/deeper", "values": [1, 2]}]))
sweep("sweep-overflow-points", "points of dp x tp x pp wrapping int", dict(SW, vary=[
    {"zip": [{"path": "/layout/dp", "values": [65536, 8388608]},
             {"path": "/layout/tp", "values": [32768, 512]}]},
    {"path": "/layout/tp_across_nodes", "values": [True]}]))
sweep("sweep-storm-points", "points with picosecond storms and a stop by version", dict(SW, vary=[
    {"path": "/stop", "values": [{"version": 100}]},
    {"path": "/failures/stochastic", "values": [[{"target": "node", "lifetime": FIX("1ps"), "repair": FIX("1ps")}]]}]))
sweep("sweep-storm-run", "running a sweep whose point is a picosecond storm", dict(SW, vary=[
    {"path": "/failures/stochastic", "values": [[{"target": "node", "lifetime": FIX("1ps"), "repair": FIX("1ps")}]]}]),
    args=("-j", "1", "-q"))
sweep("sweep-missing-scenario", "a base scenario that does not exist", dict(SW, scenarios=["nope.json"]))
sweep("sweep-garbage-base", "a base scenario of random bytes", SW, base=b"\x00\xff\xfe garbage {")
sweep("sweep-non-utf8", "a sweep file with bytes that are not UTF-8", None,
      raw_bytes=json.dumps(dict(SW, description="x")).replace('"x"', '"\udcff"').encode("utf-8", "surrogateescape"))
sweep("sweep-truncated", "a sweep file cut short", None, raw_bytes=json.dumps(SW).encode()[:20])
sweep("sweep-j-zero", "-j 0", dict(SW, vary=[{"path": "/stop/time", "values": ["20min"]}]), args=("-j", "0"))
sweep("sweep-j-huge", "-j 10^9 --dry-run", dict(SW, vary=[{"path": "/stop/time", "values": ["20min"]}]),
      args=("-j", "1000000000", "--dry-run"))
sweep("sweep-only-out-of-range", "--only 99999", dict(SW, vary=[{"path": "/stop/time", "values": ["20min"]}]),
      args=("--only", "99999"))
sweep("sweep-only-negative", "--only -1", dict(SW, vary=[{"path": "/stop/time", "values": ["20min"]}]),
      args=("--only", "-1"))
sweep("sweep-name-bad", "a sweep name with a slash", dict(SW, name="../x"))
sweep("sweep-vary-name", "varying /name", dict(SW, vary=[{"path": "/name", "values": ["a", "b"]}]))
sweep("sweep-vary-nodes-zero", "varying platform.nodes over 0 and 2^40",
      dict(SW, vary=[{"path": "/platform/nodes", "values": [0, 2 ** 40]}]))
sweep("sweep-range-float-steps", "a range of 1e-300 steps", dict(SW, vary=[
    {"path": "/workload/achieved_fraction", "range": {"from": 0.1, "to": 0.2, "step": 1e-300}}]))
sweep("sweep-range-units-tiny-step", "a range of 1 ps steps over an hour", dict(SW, vary=[
    {"path": "/stop/time", "range": {"from": "1min", "to": "1h", "step": "1ps"}}]))
sweep("sweep-emit-slurm-chunk-zero", "--emit slurm --chunk 0", dict(SW, vary=[{"path": "/stop/time", "values": ["20min"]}]),
      args=("--emit", "slurm", "--chunk", "0"))
sweep("sweep-deep-values", "a value nested 100,000 deep",
      dict(SW, vary=[{"path": "/description", "values": ["x"]}]),
      generate=[{"file": "sweep.json", "kind": "nest", "pointer": "/vary/0/values/0", "depth": 100000}])


# --------------------------------------------------------------------------------------------
def write_all():
    if os.path.isdir(CASES_DIR):
        shutil.rmtree(CASES_DIR)
    os.makedirs(CASES_DIR)
    for c in cases:
        d = os.path.join(CASES_DIR, c["name"])
        os.makedirs(d)
        for rel, content in files_of[c["name"]].items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if isinstance(content, (bytes, bytearray)):
                data = bytes(content)
            else:
                data = dump(content).encode("utf-8", "surrogateescape")
            with open(path, "wb") as f:
                f.write(data)
    with open(os.path.join(HERE, "cases.json"), "w", encoding="utf-8") as f:
        # argv may hold lone surrogates for bytes that are not UTF-8: keep them as \udcXX escapes.
        json.dump(cases, f, indent=1, ensure_ascii=True)
        f.write("\n")
    print(f"{len(cases)} cases written to {os.path.relpath(CASES_DIR)}", file=sys.stderr)


if __name__ == "__main__":
    write_all()
