"""Interactive figures of `failsim report` (docs/plots.md#interactive-figures): Chart.js charts
(Debian's libjs-chart.js, inlined into the page so it stays one file) of the data the SVG
figures draw, with hover tooltips, series toggled from the legend and a drag-to-zoom on x.

Each chart is a <canvas> and its Chart.js configuration as JSON (keys sorted: the same inputs,
the same bytes). The page's script builds them once loaded and records what the reader did on
each canvas as data- attributes (data-hovered: points under the pointer, data-hidden: series
hidden, data-zoom: the x range shown), which is also what tests/report_in_browser.sh reads: the
page opened as REPORT.html#selftest moves the pointer over a point, clicks the first legend
entry and drags across the plot of every chart, then writes "ok N" or what failed into the
data-interactive-check attribute of <body> (and any failure to the console).
"""

import html
import json
import math

# Debian's libjs-chart.js (scripts/setup.sh installs it).
CHART_JS = "/usr/share/javascript/chart.js/chart.min.js"
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")


class MissingLibrary(Exception):
    """Chart.js is not installed; the message says how to install it."""


def library():
    """The text of Chart.js, to inline into the page."""
    try:
        with open(CHART_JS, encoding="utf-8") as f:
            return f.read()
    except OSError:
        raise MissingLibrary(f"{CHART_JS}: expected Chart.js for the report's interactive "
                             "figures, found no such file; run scripts/setup.sh or "
                             "`apt-get install libjs-chart.js`") from None


def _value(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def line_chart(title, x_label, y_label, series, log_x=False):
    """A chart of lines: series = [(name, [(x, y), ...])], y None for a gap."""
    return {
        "type": "line",
        "data": {"datasets": [
            {"label": name, "data": [{"x": float(x), "y": _value(y)} for x, y in points],
             "borderColor": COLOURS[i % len(COLOURS)],
             "backgroundColor": COLOURS[i % len(COLOURS)], "pointRadius": 3,
             "borderWidth": 1.5, "spanGaps": False}
            for i, (name, points) in enumerate(series)]},
        "options": {
            "animation": False, "parsing": True,
            "interaction": {"mode": "nearest", "intersect": False},
            "plugins": {"title": {"display": True, "text": title}},
            "scales": {"x": {"type": "logarithmic" if log_x else "linear",
                             "title": {"display": True, "text": x_label}},
                       "y": {"title": {"display": True, "text": y_label}}}}}


def stacked_bars(title, categories, stacks, x_label):
    """Horizontal stacked bars: one bar per category, stacks = [(name, colour, [value per
    category])]."""
    return {
        "type": "bar",
        "data": {"labels": list(categories),
                 "datasets": [{"label": name, "backgroundColor": colour,
                               "data": [_value(v) for v in values]}
                              for name, colour, values in stacks]},
        "options": {
            "animation": False, "indexAxis": "y",
            "interaction": {"mode": "nearest", "intersect": True},
            "plugins": {"title": {"display": True, "text": title}},
            "scales": {"x": {"stacked": True, "title": {"display": True, "text": x_label}},
                       "y": {"stacked": True}}}}


def chart_html(index, name, spec):
    """A chart's canvas and its configuration; `</` escaped so the JSON cannot end the
    script element."""
    data = json.dumps(spec, sort_keys=True, separators=(",", ":")).replace("</", "<\\/")
    return (f'<figure class="interactive"><div class="chart"><canvas class="chart" '
            f'id="chart-{index}" data-spec="chart-spec-{index}" '
            f'aria-label="{html.escape(name)}"></canvas></div>'
            f'<script type="application/json" id="chart-spec-{index}">{data}</script>'
            f"<figcaption>{html.escape(name)}: interactive (hover a point, click a legend entry "
            f"to hide its series, drag across the plot to zoom, double-click to reset)"
            f"</figcaption></figure>")


# Builds every chart, wires the zoom and the state attributes, and runs the self-test on
# #selftest. Plain ES5 with Chart.js's public API only.
SCRIPT = r"""
(function () {
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  // Chart.js handles pointer events at the next animation frame: wait for their effect.
  async function until(condition) {
    for (var waited = 0; waited < 2000 && !condition(); waited += 20) await sleep(20);
    return condition();
  }
  function mouse(canvas, type, x, y) {
    var box = canvas.getBoundingClientRect();
    canvas.dispatchEvent(new MouseEvent(type, {clientX: box.left + x, clientY: box.top + y,
                                               bubbles: true, cancelable: true}));
  }
  function zoomable(chart) {
    var canvas = chart.canvas, from = null;
    canvas.addEventListener("mousedown", function (e) {
      from = e.clientX - canvas.getBoundingClientRect().left;
    });
    canvas.addEventListener("mouseup", function (e) {
      if (from === null) return;
      var to = e.clientX - canvas.getBoundingClientRect().left, x = chart.scales.x;
      var a = Math.min(from, to), b = Math.max(from, to);
      from = null;
      if (b - a < 5 || x.type === "category") return;
      chart.options.scales.x.min = x.getValueForPixel(a);
      chart.options.scales.x.max = x.getValueForPixel(b);
      chart.update("none");
      canvas.setAttribute("data-zoom", chart.scales.x.min.toPrecision(4) + " " +
                          chart.scales.x.max.toPrecision(4));
    });
    canvas.addEventListener("dblclick", function () {
      delete chart.options.scales.x.min;
      delete chart.options.scales.x.max;
      chart.update("none");
      canvas.removeAttribute("data-zoom");
    });
  }
  function build() {
    var charts = [];
    var canvases = document.querySelectorAll("canvas.chart");
    for (var i = 0; i < canvases.length; ++i) {
      var canvas = canvases[i];
      var spec = JSON.parse(document.getElementById(canvas.getAttribute("data-spec")).textContent);
      spec.options.onHover = function (event, active, chart) {
        chart.canvas.setAttribute("data-hovered", String(active.length));
      };
      spec.options.plugins.legend = {onClick: function (e, item, legend) {
        Chart.defaults.plugins.legend.onClick.call(this, e, item, legend);
        var chart = legend.chart, hidden = 0;
        for (var d = 0; d < chart.data.datasets.length; ++d) {
          if (!chart.isDatasetVisible(d)) hidden += 1;
        }
        chart.canvas.setAttribute("data-hidden", String(hidden));
      }};
      var chart = new Chart(canvas, spec);
      zoomable(chart);
      charts.push(chart);
    }
    document.body.setAttribute("data-charts", String(charts.length));
    return charts;
  }
  async function selftest(charts) {
    var failed = [];
    await sleep(300);  // the figures above decoded and laid out: the canvases stay put
    for (var i = 0; i < charts.length; ++i) {
      var chart = charts[i], canvas = chart.canvas;
      canvas.scrollIntoView();
      await sleep(100);
      var meta = chart.getDatasetMeta(0);
      var point = null;
      for (var k = 0; k < meta.data.length && point === null; ++k) {
        if (!meta.data[k].skip && isFinite(meta.data[k].x) && isFinite(meta.data[k].y)) {
          point = meta.data[k];
        }
      }
      if (point === null) { failed.push(canvas.id + ": no point to hover"); continue; }
      var center = point.getCenterPoint ? point.getCenterPoint() : point;
      mouse(canvas, "mousemove", center.x, center.y);
      if (!await until(function () { return Number(canvas.getAttribute("data-hovered")) > 0; })) {
        failed.push(canvas.id + ": hover showed no point");
      }
      var box = chart.legend.legendHitBoxes[0];
      mouse(canvas, "click", box.left + box.width / 2, box.top + box.height / 2);
      if (!await until(function () { return canvas.getAttribute("data-hidden") === "1"; }) ||
          chart.isDatasetVisible(0)) {
        failed.push(canvas.id + ": the legend did not hide the first series");
      }
      mouse(canvas, "click", box.left + box.width / 2, box.top + box.height / 2);
      await until(function () { return canvas.getAttribute("data-hidden") === "0"; });
      var area = chart.chartArea, y = (area.top + area.bottom) / 2;
      if (chart.scales.x.type !== "category") {
        var a = area.left + (area.right - area.left) * 0.25;
        var b = area.left + (area.right - area.left) * 0.75;
        var before = chart.scales.x.max - chart.scales.x.min;
        mouse(canvas, "mousedown", a, y);
        mouse(canvas, "mouseup", b, y);
        if (!canvas.hasAttribute("data-zoom") ||
            !(chart.scales.x.max - chart.scales.x.min < before)) {
          failed.push(canvas.id + ": dragging did not zoom");
        }
      }
    }
    if (failed.length) {
      console.error("failsim report: interactive figures: " + failed.join("; "));
    }
    document.body.setAttribute("data-interactive-check",
                               failed.length ? "failed: " + failed.join("; ")
                                             : "ok " + charts.length);
  }
  window.addEventListener("load", function () {
    var charts = build();
    if (window.location.hash === "#selftest") selftest(charts);
  });
})();
"""


# Chart.js handles pointer events at the next animation frame, and a headless browser that
# draws no frames never runs it: under #selftest only, a frame is a zero-delay timer. Set before
# the library, which keeps the function it finds.
SELFTEST_FRAMES = """
if (window.location.hash === "#selftest") {
  window.requestAnimationFrame = function (callback) {
    return setTimeout(function () { callback(Date.now()); }, 0);
  };
}
"""


def page_parts(charts):
    """The <script> elements a page with these charts needs: the library, then SCRIPT; none
    without charts."""
    if not charts:
        return []
    text = library().replace("</script", "<\\/script")
    return [f"<script>{SELFTEST_FRAMES}</script>", f"<script>{text}</script>",
            f"<script>{SCRIPT}</script>"]

