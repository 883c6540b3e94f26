#!/usr/bin/env python3
"""Daly's checkpoint formula against failsim (docs/validation.md, scripts/validate-daly.sh).

Reads `failsim sweep` output directories of the scenarios in scenarios/validation/ (one setting
of M, delta and R each, the checkpoint interval varied, the same seeds at every interval),
measures from the runs' events what Daly's symbols are in the simulation, and compares the mean
completion time of the fixed work at each interval with

  Daly (2006):   T_w(tau) = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau,
                 tau_opt  = sqrt(2 delta M) [1 + sqrt(delta/(2M))/3 + delta/(18 M)] - delta
  failsim model: the expected completion time of the process failsim simulates, derived below
                 (`Restore`, `model_time`), which differs from Daly's in three documented ways.

Writes the figure (PNG and SVG) and the generated part of docs/validation.md: everything between
the lines `<!-- daly: begin -->` and `<!-- daly: end -->` is replaced; the rest of the page is
prose that does not depend on the numbers. Every input is checked before anything is written, and
every output goes to a temporary file renamed into place. Exit status: 0 done, 1 numpy or
matplotlib missing, 2 bad input (one message naming the file and what was expected), 3 an output
could not be written.

Standalone on purpose, like plot.py: python3 with Debian's python3-matplotlib and python3-numpy,
and failsim_results.py beside it (the Student t quantiles and event types the tables use).
"""

import argparse
import json
import math
import os
import sys

import failsim_results
from failsim_results import t975

BAD_INPUT, OUTPUT_FAILED, MISSING_MODULE = 2, 3, 1
BEGIN, END = "<!-- daly: begin -->", "<!-- daly: end -->"
BOOTSTRAP_SAMPLES = 2000
# LV08 (SimGrid's default network model, docs/time-model.md): bandwidth and latency factors.
LV08_BANDWIDTH, LV08_LATENCY = 0.97, 13.01

try:
    import numpy as np
except ImportError:
    print("daly.py: needs numpy (Debian: apt-get install python3-numpy)", file=sys.stderr)
    sys.exit(MISSING_MODULE)

class BadInput(Exception):
    """An input that cannot be used; the message names the file and what was expected."""


def mean_half_width(values):
    """Mean and half-width of its 95% Student t confidence interval."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < 2:
        return float(values.mean()), 0.0
    return float(values.mean()), t975(n - 1) * float(values.std(ddof=1)) / math.sqrt(n)


# ---------------------------------------------------------------------------------------------
# Theory

def daly_time(tau, delta, M, R, Ts):
    """Daly's expected wall time of Ts seconds of work, checkpointing every tau seconds of work."""
    return M * math.exp(R / M) * (math.exp((tau + delta) / M) - 1.0) * Ts / tau


def daly_optimum(delta, M):
    """Daly's higher-order estimate of the optimum interval (M when delta >= 2M)."""
    if delta >= 2 * M:
        return M
    x = delta / (2 * M)
    return math.sqrt(2 * delta * M) * (1 + math.sqrt(x) / 3 + x / 9) - delta


def truncated_mean(M, lo, hi):
    """E[T; lo <= T < hi] for T exponential of mean M."""
    lam = 1.0 / M
    return (lo * math.exp(-lam * lo) - hi * math.exp(-lam * hi) +
            M * (math.exp(-lam * lo) - math.exp(-lam * hi)))


class Restore:
    """G(l): the expected time from a failure until a new server holds the state again.

    failsim's restart, as simulated here: the failure is noticed D later and a new server starts
    at once (restart_delay 0); failures before then hit a host with no server and change nothing.
    The new server asks the storage for the checkpoint; the storage serves one request at a time
    and finishes what it is doing first (a checkpoint being written, or a read for a server that
    has died since), then reads for L. So after a failure the state is back l later unless another
    failure comes first, with l = max(D, w) + L when the storage is busy for w more seconds. A
    failure at D + v < l kills the loading server; the storage is then still busy for l - D - v,
    so the next server has the state max(D, l - D - v) + L after that failure:

      G(l) = D + M (1 - e^(-(l - D)/M)) + int_0^(l-D) e^(-v/M)/M  G(max(D, l - D - v) + L) dv.

    Solved on a grid l = D + L + j h (h = (L - D)/m, so the kernel's shift L - D is m steps) by
    the trapezoidal rule as one linear system; arguments beyond the grid's span (many failures in
    a row inside restarts) are read at its end. For the three settings of docs/validation.md,
    halving h or doubling the span changes model_time by less than 2e-5 relative.
    """

    def __init__(self, M, D, L, span=20.0, m=90):
        if not L > D:
            raise ValueError("the model needs the checkpoint read to outlast detection")
        self.M, self.D, self.L = M, D, L
        lam = 1.0 / M
        h = (L - D) / m
        J = int(span / h)
        self.grid = D + L + h * np.arange(J + 1)
        # Remaining busy time y = l_j - L in [D, l_i - D]: weight e^(-(l_i - D - y)/M)/M dy, on
        # the columns j = 0 .. i + m (trapezoidal: half weight at both ends); the columns past the
        # grid are read at its end.
        i = np.arange(J + 1)[:, None]
        j = np.arange(J + m + 1)[None, :]
        wide = np.where(j <= i + m, lam * h * np.exp(-lam * h * (i - j + m)), 0.0)
        wide[:, 0] *= 0.5
        wide[np.arange(J + 1), np.arange(J + 1) + m] *= 0.5
        kernel = wide[:, :J + 1].copy()
        kernel[:, J] += wide[:, J + 1:].sum(axis=1)
        ell = self.grid
        # Remaining busy time y in [0, D]: the next server has it D + L after the failure.
        kernel[:, 0] += np.exp(-lam * (ell - 2 * D)) - np.exp(-lam * (ell - D))
        b = D + M * (1 - np.exp(-lam * (ell - D)))
        self.values = np.linalg.solve(np.eye(J + 1) - kernel, b)

    def __call__(self, ell):
        return np.interp(ell, self.grid, self.values)


def model_time(N, K, c, delta_net, delta_disk, D, L, M, restore):
    """Expected simulated time to reach version N with a checkpoint every K updates.

    Segments: K updates (c each) and the checkpoint's transfer (delta_net) can be lost; the disk
    write (delta_disk) cannot: the storage finishes it even if the server dies, and the state is
    back max(D, time left to write) + L later. The last N mod K updates have no checkpoint. Before
    the first checkpoint there is nothing to read: a failure costs D. With V the expected time
    of the segments still to do, per segment of lossy part a and safe part s (x = a + s):

      V = e^(-x/M) (x + V') + E[T; T < a] + P(T < a) (G_lossy + V) + E[T; a <= T < x]
          + int_a^x e^(-t/M)/M G(max(D, x - t) + L) dt + P(a <= T < x) V'.
    """
    lam = 1.0 / M
    q, r = divmod(N, K)
    segments = [(K * c + delta_net, delta_disk)] * q + ([(r * c, 0.0)] if r else [])
    w = np.linspace(0.0, delta_disk, 2001)
    safe_restore = restore(np.maximum(D, w) + L)
    V = 0.0
    for k in range(len(segments) - 1, -1, -1):
        a, s = segments[k]
        x = a + s
        lossy_restore = D if k == 0 else float(restore(D + L))
        p_done = math.exp(-lam * x)
        p_lossy = 1 - math.exp(-lam * a)
        p_safe = math.exp(-lam * a) - p_done
        safe = 0.0
        if s > 0:
            safe = float(np.trapz(lam * np.exp(-lam * (x - w)) * safe_restore, w))
        V = (p_done * (x + V) + truncated_mean(M, 0, a) + p_lossy * lossy_restore +
             truncated_mean(M, a, x) + safe + p_safe * V) / (1 - p_lossy)
    return V


# ---------------------------------------------------------------------------------------------
# Reading sweeps

def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: expected a readable file, found {e.strerror.lower()}") from e
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: expected JSON, found a syntax error ({e})") from e


def require(condition, path, expected, found):
    if not condition:
        raise BadInput(f"{path}: expected {expected}, found {found}")


def check_scenario(s, where):
    """The scenario must be one the model describes: refuse anything else by name."""
    f, rec, cl = s["failures"], s["recovery"], s["cluster"]
    require(len(f["stochastic"]) == 1 and f["stochastic"][0]["target"] == "server", where,
            "one stochastic failure entry targeting the server", json.dumps(f["stochastic"]))
    law = f["stochastic"][0]
    require(law["lifetime"]["distribution"] == "exponential", where,
            "exponential server lifetimes", law["lifetime"]["distribution"])
    require(law["repair"] == {"distribution": "fixed", "value": 0.0}, where,
            "a fixed repair of 0 (a process crash)", json.dumps(law["repair"]))
    require(not f["events"], where, "no scheduled failures", len(f["events"]))
    require(f["restart_delay"] == 0.0, where, "restart_delay 0", f["restart_delay"])
    require(rec["strategy"] == "checkpoint" and rec["checkpoint"]["blocking"] and
            rec["checkpoint"]["every_seconds"] == 0, where,
            "blocking checkpoints every K updates", json.dumps(rec))
    require(cl["workers"]["count"] == 1 and s["consistency"]["mode"] == "async", where,
            "one async worker", f"{cl['workers']['count']} {s['consistency']['mode']} workers")
    require(s["stop"]["version"] is not None, where, "stop.version (a fixed amount of work)",
            "none")
    require(s["optimizer"]["momentum"] == 0, where, "no momentum (a checkpoint of param_bytes)",
            s["optimizer"]["momentum"])


def read_setting(directory):
    """One sweep directory: the plan, every run's completion time and the measured symbols."""
    plan_path = os.path.join(directory, "sweep.json")
    plan = read_json(plan_path)
    require(plan.get("format") == "failsim-sweep-plan", plan_path, "a failsim sweep plan",
            plan.get("format"))
    pointer = "/recovery/checkpoint/every_updates"
    require(plan["paths"] == [pointer], plan_path, f"one varied path, {pointer}", plan["paths"])
    base = None
    for point in plan["points"]:
        s = dict(point["scenario"])
        check_scenario(s, f"{plan_path}: point {point['id']}")
        s.pop("name"), s.pop("recovery"), s.pop("output"), s.pop("description")
        require(base is None or s == base, plan_path, "points that differ in the interval only",
                point["id"])
        base = s
    scenario = plan["points"][0]["scenario"]
    setting = {
        "name": plan["name"], "directory": directory,
        "M": scenario["failures"]["stochastic"][0]["lifetime"]["mean"],
        "D": scenario["failures"]["detection_timeout"],
        "N": scenario["stop"]["version"], "bound": scenario["stop"]["time"],
        "times": {}, "blocked": [], "spacing": [], "loads": [], "detections": [], "failures": 0,
        "streams": {},
    }
    net = scenario["cluster"]["network"]
    setting["delta_net"] = (scenario["timing"]["param_bytes"] / (LV08_BANDWIDTH * net["bandwidth"])
                            + 2 * LV08_LATENCY * net["latency"])
    Ks = {}
    for run in plan["runs"]:
        K = run["values"][pointer]
        Ks[run["point"]] = K
        path = os.path.join(directory, run["directory"], "result.json")
        result = read_json(path)
        summary = result["summary"]
        require(summary["status"] == "completed" and summary["stop_reason"] == "version", path,
                "a run that completed its work (status completed, stop_reason version; raise "
                "stop.time if it ran out of time)",
                f"status {summary['status']}, stop_reason {summary['stop_reason']}")
        setting["times"].setdefault(K, {})[run["seed"]] = summary["end_time"]
        failures = measure_events(result["events"], K, setting)
        # A seed's failure times do not depend on the interval: keep the longest record of them.
        known = setting["streams"].get(run["seed"])
        if known is None or summary["end_time"] > known[0]:
            setting["streams"][run["seed"]] = (summary["end_time"], failures)
    seeds = None
    for K, by_seed in setting["times"].items():
        require(seeds is None or set(by_seed) == seeds, plan_path,
                "the same seeds at every interval", f"interval {K} with other seeds")
        seeds = set(by_seed)
    setting["seeds"] = sorted(seeds)
    require(len(seeds) >= 2, plan_path, "at least 2 seeds", len(seeds))
    require(setting["blocked"] and setting["spacing"] and setting["loads"], plan_path,
            "runs with checkpoints, failure-free stretches and restarts to measure delta, the "
            "time per update and the restart", "too few")
    setting["delta"] = float(np.median(setting["blocked"]))
    setting["delta_spread"] = float(np.ptp(setting["blocked"]))
    setting["c"] = float(np.median([(gap - setting["delta"]) / K
                                    for gap, K in setting["spacing"]]))
    setting["c_spread"] = float(np.ptp([(gap - setting["delta"]) / K
                                        for gap, K in setting["spacing"]]))
    # A load waits for whatever the storage is doing: the shortest ones are the read alone.
    loads = np.array(setting["loads"])
    setting["L"] = float(loads.min())
    setting["loads_alone"] = float(np.mean(loads < setting["L"] + 1e-6))
    setting["D_measured"] = float(np.median(setting["detections"]))
    setting["R"] = setting["D"] + setting["L"]
    setting["Ts"] = setting["N"] * setting["c"]
    return setting


def measure_events(events, K, setting):
    """delta (checkpoint_blocked), the gap between consecutive checkpoints of one server with no
    failure between (K c + delta), the read of a restart (restart to checkpoint_loaded, when a
    checkpoint was found), and the detection delay."""
    last_blocked, last_failure, restarts, failures = None, {}, {}, []
    for e in events:
        kind, t = e["type"], e["time"]
        if kind == "checkpoint_blocked":
            setting["blocked"].append(e["details"]["seconds"])
            if last_blocked and last_blocked[0] == e["subject"]:
                setting["spacing"].append((t - last_blocked[1], K))
            last_blocked = (e["subject"], t)
        elif kind == failsim_results.FAILURE:
            setting["failures"] += 1
            failures.append(t)
            last_blocked = None
            if e["details"]["process"] != "none":
                last_failure[e["details"]["process"]] = t
        elif kind == "detected":
            setting["detections"].append(t - last_failure[e["subject"]])
        elif kind == "restart":
            restarts[e["subject"]] = t
        elif kind == "checkpoint_loaded" and e["details"]["found"]:
            setting["loads"].append(t - restarts[e["subject"]])
            last_blocked = None
    return failures


# ---------------------------------------------------------------------------------------------
# Comparison

def control_variate(setting):
    """The number X of failures each seed draws in [0, T_ref], and its known mean T_ref / M.

    A seed's failure times are the same at every interval (its failure process depends on the
    seed alone), and they are a Poisson process of rate 1/M from time 0 (exponential lifetimes,
    crashes repaired at once). T_ref is the shortest of the seeds' longest runs, so every seed's
    failures are known up to it.
    """
    seeds = setting["seeds"]
    t_ref = min(setting["streams"][s][0] for s in seeds)
    X = np.array([sum(1 for t in setting["streams"][s][1] if t <= t_ref) for s in seeds],
                 dtype=float)
    return X, t_ref / setting["M"], t_ref


def adjusted_mean(y, X, EX):
    """The control-variate estimate of E[y]: y's mean minus beta (mean X - E[X]), beta fitted by
    least squares over the seeds, with the half-width of its 95% interval (the regression's
    prediction at X = E[X], Student t with n - 2 degrees of freedom)."""
    n = len(y)
    dx = X - X.mean()
    beta = float((dx * (y - y.mean())).sum() / (dx * dx).sum())
    residual = y - y.mean() - beta * dx
    s2 = float((residual * residual).sum()) / (n - 2)
    se = math.sqrt(s2 * (1.0 / n + (X.mean() - EX) ** 2 / float((dx * dx).sum())))
    return float(y.mean() - beta * (X.mean() - EX)), t975(n - 2) * se


def analyse(setting):
    """Statistics per interval, the two theories, the near-optimal set and the verdict."""
    Ks = sorted(setting["times"])
    seeds = setting["seeds"]
    T = np.array([[setting["times"][K][s] for s in seeds] for K in Ks])
    M, D, L, c, delta, R, Ts, N = (setting[k] for k in ("M", "D", "L", "c", "delta", "R", "Ts",
                                                        "N"))
    X, EX, t_ref = control_variate(setting)
    restore = Restore(M, D, L)
    delta_net = setting["delta_net"]
    rows = []
    for i, K in enumerate(Ks):
        mean, hw = mean_half_width(T[i])
        adjusted, adjusted_hw = adjusted_mean(T[i], X, EX)
        rows.append({
            "K": K, "tau": K * c, "mean": mean, "hw": hw, "adj": adjusted, "adj_hw": adjusted_hw,
            "daly": daly_time(K * c, delta, M, R, Ts),
            "model": model_time(N, K, c, delta_net, delta - delta_net, D, L, M, restore),
        })
    best = int(np.argmin(T.mean(axis=1)))
    # Paired by seed (the same failure times at every interval): is interval i worse than best?
    for i, row in enumerate(rows):
        d_mean, d_hw = mean_half_width(T[i] - T[best]) if i != best else (0.0, 0.0)
        row["diff"], row["diff_hw"] = d_mean, d_hw
        row["near"] = d_mean - d_hw <= 0.0
    near = [r["tau"] for r in rows if r["near"]]
    tau_opt = daly_optimum(delta, M)
    nearest = min(range(len(rows)), key=lambda i: abs(rows[i]["tau"] - tau_opt))
    # Bootstrap over seeds: where the best interval falls when the seeds are resampled.
    rng = np.random.default_rng(1)
    picks = rng.integers(0, len(seeds), size=(BOOTSTRAP_SAMPLES, len(seeds)))
    argmins = np.argmin(T[:, picks].mean(axis=2), axis=0)
    taus = np.array([r["tau"] for r in rows])
    boot = np.sort(taus[argmins])
    model_best = min(range(len(rows)), key=lambda i: rows[i]["model"])
    b = rows[best]
    return {
        "rows": rows, "best": best, "nearest": nearest, "tau_opt": tau_opt,
        "daly_at_opt": daly_time(tau_opt, delta, M, R, Ts),
        "near_range": (min(near), max(near)),
        "boot_range": (float(boot[int(0.025 * len(boot))]),
                       float(boot[int(0.975 * len(boot)) - 1])),
        "boot_share_best": float(np.mean(argmins == best)),
        "model_best": model_best,
        "optimum_agrees": min(near) <= tau_opt <= max(near),
        "daly_within": abs(daly_time(tau_opt, delta, M, R, Ts) - b["adj"]) <= b["adj_hw"],
        "model_within": sum(abs(r["adj"] - r["model"]) <= r["adj_hw"] for r in rows),
        "failures_seen": float(X.sum()), "failures_expected": EX * len(seeds), "t_ref": t_ref,
    }


# ---------------------------------------------------------------------------------------------
# Output

def fmt(x, digits=1):
    return f"{x:,.{digits}f}"


def markdown(settings, results, figure_rel, command, seconds, ran):
    out = [BEGIN, ""]
    total = sum(len(v) for s in settings for v in s["times"].values())
    when = ""
    if seconds is not None and ran is not None:
        when = (f" This invocation ran {ran:,} of the {total:,} runs in {seconds} s of wall time"
                + (" (the others were complete already)." if ran < total else "."))
    out.append(f"Generated by `{command}`: `failsim sweep` of each "
               f"`scenarios/validation/daly-*.sweep.json`, then `analysis/daly.py`.{when}")
    out.append("")
    out.append("### Measured symbols")
    out.append("")
    out.append("| setting | seeds | M (s) | M/δ | δ (s) | c (s per update) | T_s = N c (s) | "
               "D (s) | L (s) | R = D + L (s) | failures in [0, T_ref]: drawn / expected |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for s, r in zip(settings, results):
        out.append(f"| `{s['name']}` | {s['seeds'][0]}-{s['seeds'][-1]} | {s['M']:g} | "
                   f"{s['M'] / s['delta']:.0f} | {s['delta']:.7f} | {s['c']:.7f} | "
                   f"{s['Ts']:,.1f} | {s['D_measured']:g} | {s['L']:.7f} | {s['R']:.7f} | "
                   f"{r['failures_seen']:,.0f} / {r['failures_expected']:,.1f} "
                   f"(T_ref = {r['t_ref']:,.0f} s) |")
    out.append("")
    out.append("Over every run: δ varies by at most "
               + ", ".join(f"{s['delta_spread']:.0e} s" for s in settings)
               + " and c by " + ", ".join(f"{s['c_spread']:.0e} s" for s in settings)
               + "; the share of checkpoint loads that were the read alone (no queue at the "
               "storage) is " + ", ".join(f"{100 * s['loads_alone']:.0f}%" for s in settings)
               + ".")
    out.append("")
    out.append(f"![Simulated completion time against the checkpoint interval, with Daly's "
               f"formula and the failsim model]({figure_rel})")
    out.append("")
    for s, r in zip(settings, results):
        out.append(f"### `{s['name']}`: M = {s['M']:g} s, δ = {s['delta']:.3f} s, "
                   f"R = {s['R']:.3f} s, T_s = {s['Ts']:,.0f} s, {len(s['seeds'])} seeds")
        out.append("")
        out.append("| K | τ = K c (s) | simulated mean ± 95% CI (s) | vs best, paired (s) | "
                   "adjusted mean ± 95% CI (s) | Daly T_w (s) | adjusted / Daly | "
                   "failsim model (s) | adjusted / model |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for i, row in enumerate(r["rows"]):
            marks = []
            if i == r["best"]:
                marks.append("**best**")
            if i == r["nearest"]:
                marks.append("nearest τ_opt")
            k = f"{row['K']}" + (f" ({', '.join(marks)})" if marks else "")
            vs = "—" if i == r["best"] else f"{row['diff']:+,.1f} ± {row['diff_hw']:,.1f}"
            out.append(f"| {k} | {row['tau']:.2f} | {fmt(row['mean'])} ± {fmt(row['hw'])} | "
                       f"{vs} | {fmt(row['adj'])} ± {fmt(row['adj_hw'])} | {fmt(row['daly'])} | "
                       f"{row['adj'] / row['daly']:.4f} | {fmt(row['model'])} | "
                       f"{row['adj'] / row['model']:.4f} |")
        out.append("")
        out.extend(verdict(s, r))
        out.append("")
    out.append(END)
    return "\n".join(out) + "\n"


def verdict(s, r):
    rows, best, nearest = r["rows"], r["best"], r["nearest"]
    b, n = rows[best], rows[nearest]
    lo, hi = r["near_range"]
    blo, bhi = r["boot_range"]
    cost = (f"costs {100 * n['diff'] / b['mean']:+.2f}% ± {100 * n['diff_hw'] / b['mean']:.2f}% "
            "of time against the best" if nearest != best else "is the best one")
    model_best = rows[r["model_best"]]
    return [
        f"- **Optimum: {'agrees' if r['optimum_agrees'] else 'disagrees'}.** Daly's "
        f"τ_opt = {r['tau_opt']:.2f} s (K = {r['tau_opt'] / s['c']:.2f}). The best simulated "
        f"interval is τ = {b['tau']:.2f} s (K = {b['K']}); the intervals not significantly "
        f"worse than it (paired 95% CI of the difference reaching 0) span τ = {lo:.2f} to "
        f"{hi:.2f} s, and τ_opt is {'inside' if r['optimum_agrees'] else 'outside'}. "
        f"Resampling the seeds ({BOOTSTRAP_SAMPLES} bootstraps), the best interval is between "
        f"τ = {blo:.2f} and {bhi:.2f} s 95% of the time (τ = {b['tau']:.2f} s in "
        f"{100 * r['boot_share_best']:.0f}%). Checkpointing at the grid interval nearest τ_opt "
        f"(τ = {n['tau']:.2f} s) {cost}. The failsim model's "
        f"best grid interval is K = {model_best['K']} (τ = {model_best['tau']:.2f} s).",
        f"- **Value.** Daly's T_w(τ_opt) = {fmt(r['daly_at_opt'])} s is "
        f"{'within' if r['daly_within'] else 'outside'} the 95% CI of the simulated best, "
        f"{fmt(b['adj'])} ± {fmt(b['adj_hw'])} s adjusted ({fmt(b['mean'])} ± {fmt(b['hw'])} "
        f"s raw): simulated / Daly = {b['adj'] / r['daly_at_opt']:.4f}. The failsim model "
        f"gives {fmt(b['model'])} s there (simulated / model = {b['adj'] / b['model']:.4f}) "
        f"and is within the adjusted 95% CI at {r['model_within']} of {len(rows)} intervals.",
    ]


def figure(settings, results, path_base, pending):
    """Draws the figure to temporary files, each added to `pending` (temporary, target)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "failsim"  # stable ids: the same data, the same SVG
    fig, axes = plt.subplots(1, len(settings), figsize=(4.9 * len(settings), 4.9))
    if len(settings) == 1:
        axes = [axes]
    for ax, s, r in zip(axes, settings, results):
        rows = r["rows"]
        Ts = s["Ts"]
        tau = np.array([row["tau"] for row in rows])
        shift = 0.006 * (tau.max() - tau.min())
        fine = np.linspace(tau.min() * 0.9, tau.max() * 1.05, 400)
        daly = np.array([daly_time(t, s["delta"], s["M"], s["R"], Ts) for t in fine]) / Ts
        lo, hi = r["near_range"]
        ax.axvspan(lo, hi, color="0.9", zorder=0, label="not significantly worse than best")
        ax.plot(fine, daly, color="tab:blue", lw=1.8, label="Daly's formula")
        ax.axvline(r["tau_opt"], color="tab:blue", ls=":", lw=1.4, label="Daly's optimum τ_opt")
        ax.plot(tau, [row["model"] / Ts for row in rows], color="tab:green", ls="--", lw=1.3,
                label="failsim model")
        ax.errorbar(tau - shift, [row["mean"] / Ts for row in rows],
                    yerr=[row["hw"] / Ts for row in rows], fmt="o", mfc="white", color="0.55",
                    ms=4, capsize=2, lw=0.9, label="simulated mean, 95% CI")
        ax.errorbar(tau + shift, [row["adj"] / Ts for row in rows],
                    yerr=[row["adj_hw"] / Ts for row in rows], fmt="o", color="black", ms=4,
                    capsize=2, lw=1, label="adjusted for the failures drawn, 95% CI")
        b = rows[r["best"]]
        ax.plot([b["tau"] - shift], [b["mean"] / Ts], marker="*", ms=14, color="tab:red",
                ls="none", zorder=5, alpha=0.8, label="best simulated interval")
        ax.set_title(f"{s['name']}: M = {s['M']:g} s = {s['M'] / s['delta']:.0f} δ, "
                     f"R = {s['R']:.1f} s, {len(s['seeds'])} seeds\n"
                     f"τ_opt = {r['tau_opt']:.2f} s, best simulated τ = {b['tau']:.2f} s",
                     fontsize=10)
        ax.set_xlabel("checkpoint interval τ (s of work)")
        ax.grid(alpha=0.3)
        values = ([row["mean"] / Ts + sign * row["hw"] / Ts for row in rows for sign in (-1, 1)]
                  + [row["model"] / Ts for row in rows] + list(daly))
        top, bottom = max(values), min(values)
        ax.set_ylim(bottom - 0.03 * (top - bottom), top + 0.05 * (top - bottom))
    axes[0].set_ylabel("completion time / failure-free work (T / T_s)")
    fig.suptitle("Expected completion time of a fixed amount of work against the checkpoint "
                 "interval: simulation, Daly (2006) and the failsim model", fontsize=11)
    handles = dict(zip(*reversed(axes[0].get_legend_handles_labels())))
    order = ["simulated mean, 95% CI", "adjusted for the failures drawn, 95% CI",
             "best simulated interval", "Daly's formula", "Daly's optimum τ_opt", "failsim model",
             "not significantly worse than best"]  # filled column by column
    fig.legend([handles[label] for label in order], order, loc="lower center", ncol=4,
               fontsize=8.5, frameon=False)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    for fmt_ in ("png", "svg"):
        target = f"{path_base}.{fmt_}"
        temporary = os.path.join(os.path.dirname(target) or ".",
                                 f".{os.path.basename(target)}.tmp-{os.getpid()}")
        kwargs = {"dpi": 130} if fmt_ == "png" else {"metadata": {"Date": None}}
        pending.append((temporary, target))
        fig.savefig(temporary, format=fmt_, **kwargs)
    plt.close(fig)


def read_doc(doc_path):
    """The page, checked for its markers before anything is drawn."""
    try:
        with open(doc_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BadInput(f"{doc_path}: expected the validation page, found "
                       f"{e.strerror.lower()}") from e
    start, end = text.find(BEGIN), text.find(END)
    require(start >= 0 and end > start, doc_path,
            f"the markers {BEGIN} and {END}, in that order", "none")
    return text


def write_doc(doc_path, text, generated):
    """Writes the page with the generated part replaced, to a temporary file; returns its path."""
    start, end = text.find(BEGIN), text.find(END)
    temporary = os.path.join(os.path.dirname(doc_path) or ".",
                             f".{os.path.basename(doc_path)}.tmp-{os.getpid()}")
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text[:start] + generated.rstrip("\n") + text[end + len(END):])
    return temporary


def main():
    parser = argparse.ArgumentParser(prog="daly.py", description=__doc__.split("\n")[0])
    parser.add_argument("sweeps", nargs="+", help="failsim sweep output directories")
    parser.add_argument("--doc", required=True, help="the page to update (docs/validation.md)")
    parser.add_argument("--figure", required=True,
                        help="figure path without extension (docs/figures/validation-daly)")
    parser.add_argument("--command", default="bash scripts/validate-daly.sh",
                        help="the command named in the page")
    parser.add_argument("--seconds", type=int, help="wall time of the sweeps, for the page")
    parser.add_argument("--ran", type=int, help="how many runs the sweeps ran, for the page")
    args = parser.parse_args()
    try:
        page = read_doc(args.doc)
        settings = [read_setting(d) for d in args.sweeps]
        results = [analyse(s) for s in settings]
    except BadInput as e:
        print(f"daly.py: {e}", file=sys.stderr)
        return BAD_INPUT
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("daly.py: needs matplotlib (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return MISSING_MODULE
    figure_rel = os.path.relpath(args.figure + ".png", os.path.dirname(args.doc) or ".")
    generated = markdown(settings, results, figure_rel, args.command, args.seconds, args.ran)
    pending = []
    try:
        figure(settings, results, args.figure, pending)
        pending.append((write_doc(args.doc, page, generated), args.doc))
        for temporary, target in pending:
            os.replace(temporary, target)
    except OSError as e:
        for temporary, _ in pending:
            if os.path.exists(temporary):
                os.remove(temporary)
        target = dict(pending).get(e.filename, e.filename)
        print(f"daly.py: cannot write {target}: {e.strerror}", file=sys.stderr)
        return OUTPUT_FAILED
    for s, r in zip(settings, results):
        b = r["rows"][r["best"]]
        print(f"{s['name']}: Daly tau_opt {r['tau_opt']:.2f} s, simulated best {b['tau']:.2f} s, "
              f"near-optimal {r['near_range'][0]:.2f}-{r['near_range'][1]:.2f} s: optimum "
              f"{'agrees' if r['optimum_agrees'] else 'DISAGREES'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
