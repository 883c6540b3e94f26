#!/usr/bin/env python3
"""One self-contained HTML page of a run, a comparison or a sweep (`failsim report`, docs/plots.md).

    report.py DIR --table TABLE.md -o REPORT.html [--title TEXT]

DIR is a result directory of `failsim run` (a run), a directory holding several of them (a
comparison), or a sweep directory of `failsim sweep`. TABLE.md is `failsim table`'s Markdown
table of its runs (the C++ command computes it with the analysis library and passes it here, so
the page shows the same numbers as `failsim table`). The page holds the table, the figures of
plot.py as SVG images in data URIs, and for a single run its summary, hosts and events: no
external resource, no date, so the same inputs give the same bytes. A short inline script checks,
once the page has loaded, that every figure decoded, and says so on the console if one did not
(the browser test reads it). Exit status: as plot.py's (0, 1 no matplotlib, 2 bad input, 3 the
page could not be written); nothing is written unless the whole page is ready.
"""

import argparse
import base64
import html
import io
import os
import sys

import failsim_results
import interactive
import plot
from plot import BadInput

PROG = os.environ.get("FAILSIM_PLOT_PROG", "report.py")
MAX_EVENTS = 300  # rows of the events table of a run; the rest is counted, not shown

CHECK_SCRIPT = """
window.addEventListener("load", function () {
  var figures = document.querySelectorAll("img.figure"), broken = 0;
  for (var i = 0; i < figures.length; ++i) {
    if (!(figures[i].complete && figures[i].naturalWidth > 0)) {
      broken += 1;
      console.error("failsim report: figure " + figures[i].alt + " did not decode");
    }
  }
  document.body.setAttribute("data-report-check",
                             broken ? "broken " + broken : "ok " + figures.length);
});
"""

STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 1em auto; padding: 0 1em;
       color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.scroll { overflow-x: auto; }
table.events td:nth-child(n+3) { text-align: left; } figure { margin: 1em 0; }
img.figure { max-width: 100%; height: auto; border: 1px solid #eee; }
div.chart { position: relative; width: 100%; max-width: 900px; height: 420px; }
figcaption, .note { font-size: 0.85em; color: #555; }
"""


def markdown_table(text):
    """`failsim table`'s Markdown: its pipe table as HTML, the lines around it as paragraphs."""
    out, rows = [], []

    def cells(line):
        inner = line.strip()[1:-1]
        parts, cell, escaped = [], "", False
        for c in inner:  # a `\|` or `\_` is the character itself
            if escaped:
                cell, escaped = cell + c, False
            elif c == "\\":
                escaped = True
            elif c == "|":
                parts.append(cell.strip())
                cell = ""
            else:
                cell += c
        return parts + [cell.strip()]

    def flush():
        if not rows:
            return
        head, body = rows[0], [r for r in rows[2:]]
        head, body, same = without_constant_columns(head, body)
        if same:
            out.append('<p class="note">The same in every row, so left out of the table: '
                       + html.escape("; ".join(f"{h} {v}" for h, v in same)) + ".</p>")
        out.append('<div class="scroll"><table><thead><tr>'
                   + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr></thead><tbody>"
                   + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                             for r in body) + "</tbody></table></div>")
        rows.clear()

    for line in text.splitlines():
        if line.strip().startswith("|"):
            rows.append(cells(line))
        else:
            flush()
            if line.strip():
                out.append(f'<p class="note">{html.escape(line.strip())}</p>')
    flush()
    return "\n".join(out)


FIXED_COLUMNS = 2  # configuration, seeds: what a row is, never left out


def without_constant_columns(head, body):
    """(head, body, [(header, value)]) of a table of several rows without its metric columns
    that hold one value in every row (always 0, the same end time): they tell no configuration
    from another. A table of one row keeps them all."""
    if len(body) < 2:
        return head, body, []
    keep = [i for i in range(len(head))
            if i < FIXED_COLUMNS or len({r[i] if i < len(r) else "" for r in body}) > 1]
    same = [(head[i], body[0][i]) for i in range(len(head)) if i not in keep]
    return [head[i] for i in keep], [[r[i] for i in keep if i < len(r)] for r in body], same


def simple_table(header, rows, css=None):
    """A table of `header` and `rows`, escaped; `css`: the table's class."""
    attribute = f' class="{css}"' if css else ""
    return (f'<div class="scroll"><table{attribute}><thead><tr>'
            + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                      for r in rows) + "</tbody></table></div>")


def svg_figure(name, draw):
    """A figure as an <img> of its SVG in a data URI (the SVG's ids stay inside the image, so
    several figures on one page cannot clash)."""
    import matplotlib.pyplot as plt
    fig = draw()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<figure><img class="figure" alt="{html.escape(name)}" '
            f'src="data:image/svg+xml;base64,{data}"><figcaption>{html.escape(name)} '
            f'(<code>failsim plot</code>, docs/plots.md)</figcaption></figure>')


def number(v):
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def clock(t):
    """Simulated seconds as h:mm:ss.sss (7199.999999999999 is 2:00:00.000)."""
    t = round(t, 3)
    hours, rest = divmod(t, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{int(hours)}:{int(minutes):02d}:{seconds:06.3f}"


def detail_text(value):
    """A detail of an event as a reader reads it: numbers to 6 significant digits, lists
    joined, objects as key=value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return " ".join(detail_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={detail_text(v)}" for k, v in sorted(value.items()))
    return "" if value is None else str(value)


def events_section(events):
    """The events as a table: the time in seconds (to the millisecond) and as h:mm:ss, the
    type, the subject and the details as key=value."""
    rows = [[f"{e.get('time', 0):.3f}", clock(e.get("time", 0)), e.get("type"), e.get("subject"),
             detail_text(e.get("details") or {})] for e in events[:MAX_EVENTS]]
    after = ["<h2>Events</h2>",
             simple_table(["time (s)", "time (h:mm:ss)", "type", "subject", "details"], rows,
                          "events")]
    if len(events) > MAX_EVENTS:
        after.append(f'<p class="note">{len(events) - MAX_EVENTS} more events in '
                     f"result.json and events.csv.</p>")
    return after


def collective_sections(summary, collective, file):
    """A collective run's first sections: ETTR and where the time went, then what the run did
    (steps, tokens kept and lost, failures, restarts, checkpoints)."""
    end = plot.field(summary, ["end_time"], "number", file)
    time = plot.field(collective, ["time"], "object", file)
    ettr = plot.field(collective, ["ettr"], "number", file)
    causes = [(label, plot.field(time, [key], "number", file))
              for key, label in failsim_results.TIME_CAUSES]
    shown = [(label, t) for label, t in causes if t > 0]
    rows = [(label, f"{t:.3f}", clock(t), f"{t / end:.2%}" if end > 0 else "—")
            for label, t in shown]
    parts = ["<h2>Where the time went</h2>",
             f'<p class="ettr">ETTR <strong>{ettr:.4f}</strong>: {ettr:.2%} of '
             f"{clock(end)} ({end:.3f} s) of simulated wall time was productive.</p>",
             simple_table(["cause", "time (s)", "time (h:mm:ss)", "share"], rows)]
    zero = [label for label, t in causes if t <= 0]
    if zero:
        parts.append(f'<p class="note">No time lost to: {html.escape(", ".join(zero))}.</p>')
    steps = collective.get("steps") or {}
    tokens = collective.get("tokens") or {}
    samples = collective.get("samples") or {}
    facts = [("status", summary.get("status")), ("stop reason", summary.get("stop_reason")),
             ("end time", f"{clock(end)} ({end:.3f} s)"),
             ("nodes, ranks", f"{collective.get('nodes')}, {collective.get('ranks')}"),
             ("steps completed", steps.get("completed")), ("steps kept", steps.get("kept")),
             ("steps rolled back", steps.get("rolled_back"))]
    per_step = tokens.get("per_step") or 0
    if per_step > 0:
        # A sample is a sequence of as many tokens whatever the step: the tokens of the samples
        # rolled back are the tokens lost.
        per_sample = per_step / samples["per_step"] if samples.get("per_step") else 0
        facts += [("tokens kept", f"{tokens.get('kept', 0):,.0f}"),
                  ("tokens lost (rolled back)",
                   f"{samples.get('rolled_back', 0) * per_sample:,.0f}")]
    else:
        facts += [("samples kept", f"{samples.get('kept', 0):,.0f}"),
                  ("samples lost (rolled back)", f"{samples.get('rolled_back', 0):,.0f}")]
    facts += [("failures", collective.get("failures")), ("restarts", collective.get("restarts")),
              ("checkpoints", collective.get("checkpoints"))]
    spares = collective.get("spares") or {}
    if spares.get("nodes"):
        facts.append(("spare nodes, swaps", f"{spares.get('nodes')}, {spares.get('swaps')}"))
    final = summary.get("final")
    if collective.get("math") == "real" and isinstance(final, dict):
        facts.append(("final test accuracy", number(final.get("test_accuracy"))))
    parts += ["<h2>Summary</h2>", simple_table(["field", "value"],
                                               [(k, number(v)) for k, v in facts])]
    return parts


def run_sections(directory):
    """A single run: its first sections (a collective run: ETTR and the time by cause, then its
    summary; a parameter-server run: its summary and hosts) and its events (after the
    figures), from result.json."""
    file = os.path.join(directory, "result.json")
    result = plot.load_tagged_json(file, "failsim-result")
    summary = plot.field(result, ["summary"], "object", file)
    events = plot.field(result, ["events"], "list", file)
    if "collective" in summary:
        collective = plot.field(summary, ["collective"], "object", file)
        return result, collective_sections(summary, collective, file), events_section(events)
    final = summary.get("final") or {}
    gradients = summary.get("gradients") or {}
    facts = [("status", summary.get("status")), ("stop reason", summary.get("stop_reason")),
             ("end time (simulated s)", summary.get("end_time")),
             ("final test accuracy", final.get("test_accuracy", "—")),
             ("updates", summary.get("updates")),
             ("updates rolled back", summary.get("updates_rolled_back"))]
    facts += [(f"gradients {k.replace('_', ' ')}", v) for k, v in gradients.items()]
    parts = ["<h2>Summary</h2>", simple_table(["field", "value"],
                                               [(k, number(v)) for k, v in facts])]
    hosts = plot.field(result, ["summary", "hosts"], "list", file)
    keys = ["busy_seconds", "recovery_wait_seconds", "down_seconds", "idle_seconds", "utilisation"]
    if hosts:
        parts += ["<h2>Hosts</h2>",
                  simple_table(["host", "role"] + [k.replace("_", " ") for k in keys],
                               [[h.get("host"), h.get("role")] + [number(h.get(k)) for k in keys]
                                for h in hosts])]
    return result, parts, events_section(events)


# The sweep figures a report draws, those of them some run has a value of and that differ
# between runs.
SWEEP_REPORT_METRICS = ("final_accuracy", "ettr", "goodput_tokens_per_s", "goodput_samples_per_s",
                        "time_lost_s", "updates_rolled_back", "gradients_lost",
                        "end_time_s")


def sweep_metrics(sweep):
    """(metrics to draw, metrics left out because every run has one value of them)."""
    drawn, constant = [], []
    for metric in SWEEP_REPORT_METRICS:
        if not sweep.has_values(metric):
            continue
        values = {row[metric] for _, row in sweep.rows if row[metric] != ""}
        (drawn if len(values) > 1 else constant).append(metric)
    return drawn, constant


def sweep_charts(sweep, metrics, x_path):
    """(name, Chart.js configuration) of each sweep metric against the x axis: the mean over
    seeds of each line."""
    charts = []
    for metric in metrics:
        series, unit, ticks, _, _ = plot.sweep_series(sweep, metric, x_path)
        x_label = plot.axis_label(sweep, x_path, unit)
        y_label = plot.SWEEP_METRICS.get(metric, metric)
        if ticks is not None:  # categories: their names on the axis, in plan order
            spec = interactive.line_chart(f"{sweep.name}: {metric}", x_label, y_label,
                                          [(name, [(p[0], p[1]) for p in points])
                                           for name, points in series.items()])
            spec["data"]["labels"] = [t[1] for t in sorted(ticks)]
            spec["options"]["scales"]["x"] = {"type": "category", "title":
                                              spec["options"]["scales"]["x"]["title"]}
            for dataset in spec["data"]["datasets"]:
                dataset["data"] = [point["y"] for point in dataset["data"]]
        else:
            xs = sorted({p[0] for points in series.values() for p in points})
            spec = interactive.line_chart(f"{sweep.name}: {metric}", x_label, y_label,
                                          [(name, [(p[0], p[1]) for p in points])
                                           for name, points in series.items()],
                                          log_x=plot.log_axis(xs))
        charts.append((f"sweep-{metric}", spec))
    return charts


def time_chart(configs):
    """Where the wall time went, per configuration: each cause's mean share of the run."""
    names = list(configs)
    stacks = []
    for key, label in failsim_results.TIME_CAUSES:
        shares = [plot.mean_and_half_width([r.time[key] / r.end_time if r.end_time > 0 else 0.0
                                            for r in configs[n]])[0] for n in names]
        if any(v > 0 for v in shares):
            stacks.append((label, plot.TIME_COLOURS[key], shares))
    return ("time", interactive.stacked_bars("Where the wall time went (share of wall time)",
                                             names, stacks, "share of wall time"))


def accuracy_chart(configs):
    """Test accuracy against simulated time, the mean over seeds of each configuration."""
    series = []
    for name, runs in configs.items():
        times, mean, _ = plot.mean_curve(runs, "test_accuracy")
        series.append((name, list(zip(times.tolist(), mean.tolist()))))
    return ("accuracy", interactive.line_chart("Test accuracy (mean over seeds)",
                                               "simulated time (s)",
                                               "test accuracy (fraction correct)", series))


def run_charts(directories):
    """The interactive figures of result directories: the accuracy of parameter-server runs,
    where the time went of collective ones."""
    ps, collective = plot.split_by_protocol(directories)
    charts = []
    if ps:
        charts.append(accuracy_chart(plot.load_configurations(ps, ["accuracy"], None)))
    if collective:
        charts.append(time_chart(plot.load_configurations(collective, ["time"], None)))
    return charts


def build_page(directory, table_text, title):
    """The whole page as text; raises BadInput before drawing anything."""
    directory = directory.rstrip("/") or "/"
    if not os.path.isdir(directory):
        raise BadInput(f"{directory}: expected a result directory, a directory holding them or a "
                       "sweep directory, found " + ("a file" if os.path.exists(directory)
                                                    else "nothing"))
    # first: before the table (a run's ETTR and time by cause); sections: after it.
    first, sections, drawings, after = [], [], [], []
    charts = []  # (name, Chart.js configuration) of the interactive figures
    if plot.is_sweep_dir(directory):
        kind = "sweep"
        sweep = plot.Sweep(directory)
        x_path = sweep.default_x()
        # A metric no run has a value of (the accuracy of time-only collective runs) has no
        # figure, nor one every run has the same value of (always 0, the same end time).
        metrics, constant = sweep_metrics(sweep)
        if constant:
            sections.append('<p class="note">Not drawn, the same in every run: '
                            + html.escape(", ".join(
                                f"{m} ({sweep.rows[0][1][m]})" for m in constant)) + ".</p>")
        for name, (tau, delta, mtbf) in plot.young_daly(sweep, x_path).items():
            sections.append(f'<p class="note">Young/Daly optimum of {html.escape(name)}: a '
                            f"checkpoint every {tau:.0f} steps (Daly 2006, analysis/daly.py), "
                            f"from its runs' checkpoint stall of {delta:.3g} s and time between "
                            f"failures of {mtbf / 3600:.3g} h.</p>")
        charts += sweep_charts(sweep, metrics, x_path)  # checks each metric now
        for metric in metrics:
            drawings.append((f"sweep-{metric}",
                             lambda m=metric: plot.figure_sweep(sweep, m, x_path, None)))
        runs_dir = os.path.join(directory, "runs")
        # Worker time of parameter-server runs, where the time went of collective ones (they
        # have no workers).
        if os.path.isdir(runs_dir) and any(True for _ in os.scandir(runs_dir)):
            drawings += plot.run_drawings(
                plot.default_figures([runs_dir], ["utilisation"], ["time"]), None, None)
            if plot.split_by_protocol([runs_dir])[1]:
                charts.append(time_chart(plot.load_configurations(
                    plot.split_by_protocol([runs_dir])[1], ["time"], None)))
        heading = f"Sweep {sweep.name}"
    else:
        single = os.path.isfile(os.path.join(directory, "result.json"))
        kind = "run" if single else "comparison"
        dirs = plot.find_result_dirs([directory])
        # Each protocol's runs with their figures (a collective run's timeline from its events;
        # a parameter-server run's when it recorded intervals.csv).
        drawings += plot.run_drawings(plot.default_figures([directory]), None, None)
        charts += run_charts([directory])
        if single:
            result, parts, after = run_sections(directory)
            first += parts
            heading = f"Run {result['scenario']['name']} (seed {result['scenario']['seed']})"
        else:
            files = [os.path.join(d, "result.json") for d in dirs]
            names = {plot.field(plot.load_tagged_json(f, "failsim-result"), ["scenario", "name"],
                                "string", f) for f in files}
            heading = f"Comparison of {len(names)} configurations ({len(dirs)} runs)"

    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "failsim"  # identical inputs, identical bytes
    figures_html = [svg_figure(name, draw) for name, draw in drawings]
    try:
        scripts = interactive.page_parts(charts)
        charts_html = ["<h2>Interactive figures</h2>"] + [
            interactive.chart_html(i, name, spec) for i, (name, spec) in enumerate(charts)]
    except interactive.MissingLibrary as e:
        # The static figures above are the page's; say why the interactive ones are missing.
        scripts, charts_html = [], [f'<p class="note">No interactive figures: '
                                    f"{html.escape(str(e))}.</p>"]
    if not charts:
        charts_html = []
    title = title or heading
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>", f"<style>{STYLE}</style>", "</head>",
        f'<body data-report-kind="{kind}">', f"<h1>{html.escape(title)}</h1>",
        f'<p class="note">failsim report of <code>{html.escape(directory)}</code> '
        f"({kind}).</p>",
        *first, "<h2>Table</h2>", markdown_table(table_text), *sections,
        "<h2>Figures</h2>", *figures_html, *charts_html, *after,
        *scripts, f"<script>{CHECK_SCRIPT}</script>", "</body>", "</html>", ""])


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("directory", metavar="DIR")
    parser.add_argument("--table", required=True, metavar="TABLE.md",
                        help="failsim table's Markdown table of DIR's runs")
    parser.add_argument("-o", "--output", required=True, metavar="REPORT.html")
    parser.add_argument("--title")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"{PROG}: {sys.executable} cannot import matplotlib ({e}); run scripts/setup.sh "
              "or `apt-get install python3-matplotlib`", file=sys.stderr)
        return plot.NO_MATPLOTLIB
    try:
        with open(args.table, encoding="utf-8") as f:
            table_text = f.read()
        page = build_page(args.directory, table_text, args.title)
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return plot.BAD_INPUT
    try:
        write_atomically(args.output, page)
    except OSError as e:
        print(f"{PROG}: {args.output}: cannot write the report: {e.strerror}", file=sys.stderr)
        return plot.OUTPUT_FAILED
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
