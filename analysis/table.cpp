// Metrics, grouping and rendering of `failsim table`. The metric definitions live here and in
// docs/tables.md; a column is one MetricColumn, so a new metric is one entry in
// metric_columns() and one row in the docs.
#include "analysis/table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/daly_optimum.hpp"
#include "analysis/natural_order.hpp"
#include "analysis/stats.hpp"
#include "input/input_error.hpp"
#include "result_format/process_name.hpp"
#include "result_format/time_cause.hpp"

namespace failsim::analysis {
namespace {

std::string role_of(const RunSummary& run, const std::string& host) {
  for (const auto& h : run.hosts) {
    if (h.host == host) return h.role;
  }
  return "";
}

/// Decimals that show `x` to `significant` significant digits, in [0, 12].
int decimals_for(double x, int significant) {
  if (x == 0.0 || !std::isfinite(x)) return 0;
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  return std::clamp(significant - 1 - exponent, 0, 12);
}

/// A number for CSV: the shortest text that reads back as the same double.
std::string csv_number(double x) { return fmt::format("{}", x); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// Text for a Markdown table cell, escaped only where Markdown would read it otherwise, so that
/// the table reads the same in a terminal and rendered: `|` (ends a cell), `\`, `*`, `` ` ``,
/// `<`, `[`, `]`, and `_` unless between two letters or digits (an intraword `_` opens or closes
/// no emphasis, CommonMark 6.2), so `quickstart_lr-0.01` stays as it is and `_x_` is `\_x\_`.
std::string markdown_escape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool intraword =
        i > 0 && i + 1 < text.size() && is_ascii_alnum(text[i - 1]) && is_ascii_alnum(text[i + 1]);
    if (c == '|' || c == '\\' || c == '*' || c == '`' || c == '<' || c == '[' || c == ']' ||
        (c == '_' && !intraword)) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::string latex_escape(const std::string& text) {
  // The non-ASCII characters that human text here holds, as LaTeX writes them.
  static const std::vector<std::pair<std::string_view, std::string_view>> UNICODE = {
      {"±", "$\\pm$"}, {"—", "---"}, {"µ", "$\\mu$"}};
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = std::string_view(text).substr(i);
    const auto special = std::find_if(UNICODE.begin(), UNICODE.end(),
                                      [&](const auto& u) { return rest.starts_with(u.first); });
    if (special != UNICODE.end()) {
      out += special->second;
      i += special->first.size() - 1;
      continue;
    }
    const char c = text[i];
    switch (c) {
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A cell's statistics: the values present over the runs of a configuration.
struct Cell {
  std::size_t runs = 0;
  std::vector<double> values;
};

Cell cell_of(const Configuration& c, const MetricColumn& column, double scale) {
  Cell cell;
  cell.runs = c.runs.size();
  for (const auto& r : c.runs) {
    if (const auto v = column.value(r)) cell.values.push_back(*v * scale);
  }
  return cell;
}

/// Markdown text of a cell (LaTeX escapes it).
std::string human_cell(const Cell& cell, const MetricColumn& column) {
  const std::size_t m = cell.values.size();
  std::string text = "—";
  if (m > 0) {
    const MeanInterval s = mean_interval(cell.values);
    text = format_mean_interval(s.mean, s.half_width);
  }
  if (column.show_count || m < cell.runs) {
    text += fmt::format(" ({}/{})", m, cell.runs);
  } else if (m == 1) {
    text += " (n=1)";
  }
  return text;
}

std::string human_header(const MetricColumn& column) {
  return column.unit.empty() ? column.header : column.header + " (" + column.unit + ")";
}

/// The plan a configuration's runs were priced with: the collective plan for collective runs.
const std::string& plan_of(const Configuration& config, const TableLayout& layout) {
  const bool collective = !config.runs.empty() && config.runs.front().collective.has_value();
  return collective && !layout.collective_plan.empty() ? layout.collective_plan : layout.plan;
}

/// Names the price plans only when a column shows a cost under them: one plan, or the plan of
/// each protocol when the runs of both were priced with their own.
std::string caption(const std::vector<Configuration>& configurations, const TableLayout& layout,
                    const std::vector<MetricColumn>& columns) {
  std::string text = fmt::format(
      "Mean ± half-width of the 95% confidence interval over seeds (Student's t); (m/n): runs "
      "with a value / runs. Target accuracy {}",
      layout.target);
  if (layout.target_loss)
    text += fmt::format("; target validation loss {} nat", *layout.target_loss);
  if (std::any_of(columns.begin(), columns.end(), [](const auto& c) { return c.priced; })) {
    bool any_ps = false, any_collective = false;
    for (const auto& c : configurations) {
      for (const auto& r : c.runs) (r.collective ? any_collective : any_ps) = true;
    }
    const std::string& collective =
        layout.collective_plan.empty() ? layout.plan : layout.collective_plan;
    if (any_ps && any_collective && collective != layout.plan) {
      text +=
          fmt::format("; cost plan '{}' (parameter-server runs) and '{}' (collective runs) of {}",
                      layout.plan, collective, layout.prices);
    } else {
      text += fmt::format("; cost plan '{}' of {}", any_collective ? collective : layout.plan,
                          layout.prices);
    }
  }
  return text + ".";
}

std::string render_markdown(const std::vector<Configuration>& configurations,
                            const std::vector<MetricColumn>& columns, const TableLayout& layout) {
  std::string out = "| configuration | seeds |";
  for (const auto& c : columns) out += fmt::format(" {} |", markdown_escape(human_header(c)));
  out += "\n| --- | ---: |";
  for (std::size_t i = 0; i < columns.size(); ++i) out += " ---: |";
  out += '\n';
  for (const auto& config : configurations) {
    out += fmt::format("| {} | {} |", markdown_escape(config.name), config.runs.size());
    for (const auto& c : columns) {
      out += fmt::format(" {} |", human_cell(cell_of(config, c, c.scale), c));
    }
    out += '\n';
  }
  out += fmt::format("\n{}\n", caption(configurations, layout, columns));
  return out;
}

std::string render_latex(const std::vector<Configuration>& configurations,
                         const std::vector<MetricColumn>& columns, const TableLayout& layout) {
  // Needs \usepackage{booktabs}. The caption is a comment: the table goes in the user's own
  // table environment with the user's own caption.
  std::string out = "% " + latex_escape(caption(configurations, layout, columns)) + "\n";
  out += "% Needs \\usepackage{booktabs}.\n";
  out += "\\begin{tabular}{lr" + std::string(columns.size(), 'r') + "}\n\\toprule\n";
  out += "configuration & seeds";
  for (const auto& c : columns) out += " & " + latex_escape(human_header(c));
  out += " \\\\\n\\midrule\n";
  for (const auto& config : configurations) {
    out += latex_escape(config.name) + fmt::format(" & {}", config.runs.size());
    for (const auto& c : columns) {
      out += " & " + latex_escape(human_cell(cell_of(config, c, c.scale), c));
    }
    out += " \\\\\n";
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  return out;
}

/// The CSV's target_loss column, only with a target loss (a CSV without one keeps its columns).
std::string target_loss_header(const TableLayout& layout) {
  return layout.target_loss ? "target_loss," : "";
}
std::string target_loss_field(const TableLayout& layout) {
  return layout.target_loss ? csv_number(*layout.target_loss) + ',' : "";
}

std::string render_csv(const std::vector<Configuration>& configurations,
                       const std::vector<MetricColumn>& columns, const TableLayout& layout) {
  std::string out = "configuration,runs,target_accuracy," + target_loss_header(layout) + "plan";
  for (const auto& c : columns) out += fmt::format(",{0}_mean,{0}_ci95,{0}_n", c.key);
  out += '\n';
  for (const auto& config : configurations) {
    out += fmt::format("{},{},{},{}{}", csv_field(config.name), config.runs.size(),
                       csv_number(layout.target), target_loss_field(layout),
                       csv_field(plan_of(config, layout)));
    for (const auto& c : columns) {
      const Cell cell = cell_of(config, c, 1.0);
      if (cell.values.empty()) {
        out += ",,,0";
        continue;
      }
      const MeanInterval s = mean_interval(cell.values);
      out += ',' + csv_number(s.mean) + ',' + (s.half_width ? csv_number(*s.half_width) : "") +
             ',' + std::to_string(s.n);
    }
    out += '\n';
  }
  return out;
}

std::string render_csv_per_run(const std::vector<Configuration>& configurations,
                               const std::vector<MetricColumn>& columns,
                               const TableLayout& layout) {
  std::string out =
      "configuration,seed,directory,status,target_accuracy," + target_loss_header(layout) + "plan";
  for (const auto& c : columns) out += ',' + c.key;
  out += '\n';
  for (const auto& config : configurations) {
    for (const auto& r : config.runs) {
      out += fmt::format("{},{},{},{},{},{}{}", csv_field(config.name), r.seed,
                         csv_field(r.directory.string()), csv_field(r.status),
                         csv_number(layout.target), target_loss_field(layout),
                         csv_field(plan_of(config, layout)));
      for (const auto& c : columns) {
        const auto v = c.value(r);
        out += ',' + (v ? csv_number(*v) : std::string());
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace

std::vector<FailureWindow> failure_windows(const RunSummary& run) {
  std::vector<FailureWindow> windows;
  for (const auto& e : run.events) {
    if (!e.type || !result_format::is_failure(*e.type)) continue;
    FailureWindow w{
        result_format::failure_window(*e.type, e.time, e.subject, e.down_for, run.end_time)};
    w.server_side = role_of(run, w.host) == "server";
    const auto process = e.details.find("process");
    if (!w.link && process != e.details.end() && process->is_string()) {
      // "server-<n>", "shard-<k>.server-<n>" with sharded servers, either prefixed with
      // "gen-<g>." after an elastic resize (result_format/process_name.hpp).
      if (const auto scope = result_format::server_scope(process->get_ref<const std::string&>())) {
        w.killed_server = true;
        w.shard_prefix = scope->prefix();
      }
    }
    windows.push_back(w);
  }
  return windows;
}

std::vector<HostTimeline> host_timelines(const RunSummary& run) {
  std::vector<HostTimeline> timelines;
  for (const auto& h : run.hosts) {
    // A platform host running several workers is listed once per worker; bill it once.
    const bool listed = std::any_of(timelines.begin(), timelines.end(),
                                    [&](const HostTimeline& t) { return t.host == h.host; });
    if (listed) continue;
    HostTimeline t{h.host, h.role, {}};
    std::optional<double> down_since;
    for (const auto& e : run.events) {
      if (e.subject != h.host) continue;
      if (e.type == result_format::EventType::FAILURE && e.down_for > 0.0 && !down_since) {
        down_since = std::min(e.time, run.end_time);
      } else if (e.type == result_format::EventType::HOST_UP && down_since) {
        t.down.push_back({*down_since, std::max(*down_since, std::min(e.time, run.end_time))});
        down_since.reset();
      }
    }
    if (down_since) t.down.push_back({*down_since, run.end_time});
    // Events come in time order and a failure of a down host is skipped, so the intervals
    // are sorted and disjoint; merge anyway, the cost model refuses anything else.
    std::sort(t.down.begin(), t.down.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    std::vector<Interval> merged;
    for (const auto& d : t.down) {
      if (!merged.empty() && d.begin <= merged.back().end) {
        merged.back().end = std::max(merged.back().end, d.end);
      } else {
        merged.push_back(d);
      }
    }
    t.down = std::move(merged);
    timelines.push_back(std::move(t));
  }
  return timelines;
}

std::vector<HostTimeline> node_timelines(const RunSummary& run) {
  if (!run.collective) return {};
  // The job's nodes and the spares, all held and billed alike.
  const std::int64_t platform_nodes = run.collective->nodes + run.collective->spare_nodes;
  std::vector<std::vector<Interval>> down(static_cast<std::size_t>(platform_nodes));
  for (const auto& e : run.events) {
    if (e.type != result_format::EventType::FAILURE || !(e.down_for > 0.0)) continue;
    // A leaf switch's nodes are cut off, not gone: their instances are still held.
    if (e.details.value("target", std::string()) == "switch") continue;
    const auto nodes = e.details.find("nodes");
    if (nodes == e.details.end() || !nodes->is_array()) continue;
    const double begin = std::min(e.time, run.end_time);
    const double end = std::min(e.time + e.down_for, run.end_time);
    for (const auto& n : *nodes) {
      if (!n.is_number_integer()) continue;
      const auto index = n.get<std::int64_t>();
      if (index < 0 || index >= platform_nodes) continue;
      down[static_cast<std::size_t>(index)].push_back({begin, end});
    }
  }
  std::vector<HostTimeline> timelines;
  for (std::size_t n = 0; n < down.size(); ++n) {
    auto& d = down[n];
    std::sort(d.begin(), d.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    std::vector<Interval> merged;
    for (const auto& i : d) {
      if (!merged.empty() && i.begin <= merged.back().end) {
        merged.back().end = std::max(merged.back().end, i.end);
      } else {
        merged.push_back(i);
      }
    }
    timelines.push_back({fmt::format("node-{}", n), "node", std::move(merged)});
  }
  return timelines;
}

std::optional<double> time_to_accuracy(const std::vector<EvaluationPoint>& evaluations,
                                       double target) {
  for (const auto& p : evaluations) {
    if (p.test_accuracy >= target) return p.time;
  }
  return std::nullopt;
}

const EvaluationPoint* first_at_or_below_loss(const std::vector<EvaluationPoint>& evaluations,
                                              double target) {
  for (const auto& p : evaluations) {
    if (p.test_loss && *p.test_loss <= target) return &p;
  }
  return nullptr;
}

std::optional<double> accuracy_at_or_before(const std::vector<EvaluationPoint>& evaluations,
                                            double t) {
  std::optional<double> last;
  for (const auto& p : evaluations) {
    if (p.time <= t) last = p.test_accuracy;
  }
  return last;
}

std::optional<double> lowest_accuracy_in(const std::vector<EvaluationPoint>& evaluations,
                                         double after, double until) {
  std::optional<double> lowest;
  for (const auto& p : evaluations) {
    if (p.time > after && p.time <= until && (!lowest || p.test_accuracy < *lowest)) {
      lowest = p.test_accuracy;
    }
  }
  return lowest;
}

double union_length(std::vector<FailureWindow> windows) {
  std::sort(windows.begin(), windows.end(),
            [](const FailureWindow& a, const FailureWindow& b) { return a.begin < b.begin; });
  double total = 0.0;
  double covered_to = -std::numeric_limits<double>::infinity();
  for (const auto& w : windows) {
    const double begin = std::max(w.begin, covered_to);
    if (w.end > begin) total += w.end - begin;
    covered_to = std::max(covered_to, w.end);
  }
  return total;
}

RunMetrics run_metrics(const RunSummary& run, double target, std::optional<double> target_loss) {
  RunMetrics m;
  m.configuration = run.name;
  m.seed = run.seed;
  m.directory = run.directory;
  m.status = run.status;
  m.final_accuracy = run.final_accuracy;
  m.final_loss = run.final_loss;
  m.language_model = run.language_model;
  m.end_time = run.end_time;
  m.gradients_computed = run.gradients.computed;
  m.gradients_applied = run.gradients.applied;
  m.gradients_dropped = run.gradients.dropped;
  m.gradients_lost = run.gradients.lost;
  m.gradients_pending_at_end = run.gradients.pending_at_end;
  m.updates = run.updates;
  m.updates_rolled_back = run.updates_rolled_back;
  m.gradients_rolled_back = run.gradients.rolled_back;
  m.collective = run.collective;

  const std::vector<FailureWindow> windows = failure_windows(run);
  m.failures = windows.size();
  std::vector<FailureWindow> server;
  for (const auto& w : windows) {
    if (w.server_side) server.push_back(w);
  }
  std::stable_sort(
      server.begin(), server.end(),
      [](const FailureWindow& a, const FailureWindow& b) { return a.begin < b.begin; });
  for (std::size_t i = 0; i < server.size(); ++i) {
    FailureOutcome f;
    f.time = server[i].begin;
    // The next server-side failure strictly later (simultaneous failures share one window).
    double next = run.end_time;
    for (std::size_t j = i + 1; j < server.size(); ++j) {
      if (server[j].begin > f.time) {
        next = server[j].begin;
        break;
      }
    }
    f.accuracy_before = accuracy_at_or_before(run.evaluations, f.time);
    f.lowest_after = lowest_accuracy_in(run.evaluations, f.time, next);
    if (server[i].killed_server) {
      // The killed shard's first update since, or after an elastic resize the new shards'
      // first (the killed shard's parameters are theirs now).
      for (const auto& e : run.events) {
        if (e.type == result_format::EventType::TRAINING_RESUMED && e.time >= f.time &&
            (e.subject.starts_with(server[i].shard_prefix) ||
             e.details.value("after_resize", false))) {
          f.recovery = e.time - f.time;
          break;
        }
      }
    }
    m.server_failures.push_back(f);
  }

  m.time_to_target = time_to_accuracy(run.evaluations, target);
  if (target_loss) {
    if (const EvaluationPoint* p = first_at_or_below_loss(run.evaluations, *target_loss)) {
      m.time_to_target_loss = p->time;
      m.tokens_to_target_loss = p->tokens;
    }
  }

  std::size_t workers = 0;
  double waited = 0.0;
  for (const auto& h : run.hosts) {
    if (h.role != "worker") continue;
    ++workers;
    waited += h.recovery_wait_seconds;
  }
  const double outage = union_length(server);
  if (workers > 0 && outage > 0.0) {
    m.idle_fraction = waited / (static_cast<double>(workers) * outage);
  }
  return m;
}

RunMetrics compute_metrics(const RunSummary& run, const PriceBook& book, const std::string& plan,
                           double target, std::optional<double> target_loss) {
  RunMetrics m = run_metrics(run, target, target_loss);
  const std::vector<HostTimeline> timelines =
      run.collective ? node_timelines(run) : host_timelines(run);
  // A plan that names none of the run's roles (a parameter server's plan for a collective run's
  // nodes, a node plan for a parameter server) bills nothing of it: no cost, as 0 USD would read
  // as free. An unknown plan is cost_of_run's error.
  const auto p = book.plans.find(plan);
  if (p != book.plans.end() &&
      std::none_of(timelines.begin(), timelines.end(),
                   [&](const HostTimeline& t) { return p->second.roles.count(t.role) > 0; })) {
    return m;
  }
  const Cost whole = cost_of_run(book, plan, timelines, run.end_time);
  m.host_hours = whole.host_hours;
  m.cost_usd = whole.usd;
  if (m.time_to_target)
    m.cost_to_target_usd = cost_of_run(book, plan, timelines, *m.time_to_target).usd;
  const std::int64_t useful = run.gradients.applied - run.gradients.rolled_back;
  if (useful > 0) m.cost_per_useful_gradient_usd = whole.usd / static_cast<double>(useful);
  return m;
}

std::vector<Configuration> group_runs(std::vector<RunMetrics> runs) {
  std::map<std::string, std::size_t> index;
  std::vector<Configuration> configurations;
  std::vector<std::size_t> first_root;
  for (auto& r : runs) {
    auto [it, inserted] = index.try_emplace(r.configuration, configurations.size());
    if (inserted) {
      configurations.push_back({r.configuration, {}});
      first_root.push_back(r.root_index);
    }
    first_root[it->second] = std::min(first_root[it->second], r.root_index);
    configurations[it->second].runs.push_back(std::move(r));
  }
  std::vector<std::size_t> order(configurations.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (first_root[a] != first_root[b]) return first_root[a] < first_root[b];
    return natural_less(configurations[a].name, configurations[b].name);
  });
  std::vector<Configuration> sorted;
  for (std::size_t i : order) {
    Configuration& c = configurations[i];
    // Stable: of two runs with one seed, the one found first is named as the first.
    std::stable_sort(c.runs.begin(), c.runs.end(),
                     [](const RunMetrics& a, const RunMetrics& b) { return a.seed < b.seed; });
    for (std::size_t k = 1; k < c.runs.size(); ++k) {
      if (c.runs[k].seed != c.runs[k - 1].seed) continue;
      throw input::InputError(
          (c.runs[k].directory / "result.json").string(), "/scenario/seed",
          fmt::format("a seed no other run of configuration '{}' has (one seed, one run)", c.name),
          fmt::format("{}, the seed of {} too", c.runs[k].seed, c.runs[k - 1].directory.string()));
    }
    sorted.push_back(std::move(c));
  }
  return sorted;
}

std::optional<TableFormat> parse_table_format(const std::string& name) {
  if (name == "md") return TableFormat::MARKDOWN;
  if (name == "csv") return TableFormat::CSV;
  if (name == "latex") return TableFormat::LATEX;
  return std::nullopt;
}

namespace {
using V = std::optional<double>;  // a column's value for one run; absent where it does not apply

/// The three columns of the k-th server failure (0-based; named from 1): accuracy before it, the
/// lowest accuracy after it and the time training took to recover.
void add_failure_columns(std::vector<MetricColumn>& columns, std::size_t k) {
  columns.push_back({.key = fmt::format("accuracy_before_failure_{}", k + 1),
                     .header = fmt::format("accuracy before failure {}", k + 1),
                     .unit = "fraction",
                     .value = [k](const RunMetrics& r) -> V {
                       if (k >= r.server_failures.size()) return std::nullopt;
                       return r.server_failures[k].accuracy_before;
                     }});
  columns.push_back({.key = fmt::format("lowest_accuracy_after_failure_{}", k + 1),
                     .header = fmt::format("lowest accuracy after failure {}", k + 1),
                     .unit = "fraction",
                     .value = [k](const RunMetrics& r) -> V {
                       if (k >= r.server_failures.size()) return std::nullopt;
                       return r.server_failures[k].lowest_after;
                     }});
  columns.push_back({.key = fmt::format("recovery_after_failure_{}_s", k + 1),
                     .header = fmt::format("recovery time after failure {}", k + 1),
                     .unit = "s",
                     .show_count = true,
                     .value = [k](const RunMetrics& r) -> V {
                       if (k >= r.server_failures.size()) return std::nullopt;
                       return r.server_failures[k].recovery;
                     },
                     .by_default = true});
}

/// How well a configuration trained and how it took its failures: final accuracy, the failure
/// count, three columns for each of the first `failure_triples` server failures, the time to the
/// target accuracy, the end time.
void add_accuracy_columns(std::vector<MetricColumn>& columns, std::size_t failure_triples,
                          const std::string& target, std::optional<double> target_loss) {
  columns.push_back({.key = "final_accuracy",
                     .header = "final accuracy",
                     .unit = "fraction",
                     .value = [](const RunMetrics& r) { return r.final_accuracy; },
                     .by_default = true});
  columns.push_back(
      {.key = "failures",
       .header = "failures",
       .value = [](const RunMetrics& r) -> V { return static_cast<double>(r.failures); },
       .in_table = false});
  for (std::size_t k = 0; k < failure_triples; ++k) add_failure_columns(columns, k);
  columns.push_back({.key = "time_to_target_s",
                     .header = "time to " + target,
                     .unit = "s",
                     .show_count = true,
                     .value = [](const RunMetrics& r) { return r.time_to_target; },
                     .by_default = true});
  // A language model is judged by its validation loss and perplexity (exp of the loss, as the
  // result's test_perplexity), of both protocols; a classifier's are its cross-entropy.
  columns.push_back({.key = "final_test_loss",
                     .header = "final validation loss",
                     .unit = "nat",
                     .value = [](const RunMetrics& r) { return r.final_loss; },
                     .language_model_default = true});
  columns.push_back({.key = "final_test_perplexity",
                     .header = "final perplexity",
                     .value = [](const RunMetrics& r) -> V {
                       if (!r.final_loss) return std::nullopt;
                       return std::exp(*r.final_loss);
                     },
                     .language_model_default = true});
  // Only with a target loss: a table without one is the same as before these columns existed.
  if (target_loss) {
    const std::string to = fmt::format("to loss {}", *target_loss);
    columns.push_back({.key = "time_to_target_loss_s",
                       .header = "time " + to,
                       .unit = "s",
                       .show_count = true,
                       .value = [](const RunMetrics& r) { return r.time_to_target_loss; },
                       .language_model_default = true});
    columns.push_back({.key = "tokens_to_target_loss",
                       .header = "tokens " + to,
                       .unit = "tokens",
                       .show_count = true,
                       .value = [](const RunMetrics& r) { return r.tokens_to_target_loss; },
                       .language_model_default = true});
  }
  columns.push_back({.key = "end_time_s",
                     .header = "end time",
                     .unit = "s",
                     .value = [](const RunMetrics& r) -> V { return r.end_time; },
                     .in_table = false});
}

/// The work done and lost: gradients and updates counted, idleness in outages.
void add_work_columns(std::vector<MetricColumn>& columns) {
  const auto count = [](std::int64_t RunMetrics::*field) {
    return [field](const RunMetrics& r) -> V { return static_cast<double>(r.*field); };
  };
  columns.push_back({.key = "gradients_computed",
                     .header = "gradients computed",
                     .value = count(&RunMetrics::gradients_computed)});
  columns.push_back({.key = "gradients_applied",
                     .header = "gradients applied",
                     .value = count(&RunMetrics::gradients_applied)});
  columns.push_back({.key = "gradients_dropped",
                     .header = "gradients dropped",
                     .value = count(&RunMetrics::gradients_dropped),
                     .in_table = false});
  columns.push_back({.key = "gradients_lost",
                     .header = "gradients lost",
                     .value = count(&RunMetrics::gradients_lost),
                     .by_default = true});
  columns.push_back({.key = "gradients_pending_at_end",
                     .header = "gradients pending at the end",
                     .value = count(&RunMetrics::gradients_pending_at_end),
                     .in_table = false});
  columns.push_back({.key = "updates", .header = "updates", .value = count(&RunMetrics::updates)});
  columns.push_back({.key = "updates_rolled_back",
                     .header = "updates rolled back",
                     .value = count(&RunMetrics::updates_rolled_back)});
  columns.push_back({.key = "gradients_rolled_back",
                     .header = "gradients rolled back",
                     .value = count(&RunMetrics::gradients_rolled_back),
                     .by_default = true});
  columns.push_back({.key = "idle_fraction",
                     .header = "worker idle fraction in outages",
                     .unit = "fraction",
                     .value = [](const RunMetrics& r) { return r.idle_fraction; }});
}

/// A collective run's value `f(summary.collective, run)`; none for a parameter-server run.
template <typename F>
auto collective(F f) {
  return [f](const RunMetrics& r) -> V {
    if (!r.collective) return std::nullopt;
    return f(*r.collective, r);
  };
}

/// Collective runs (summary.collective, docs/tables.md#collective-runs): ETTR, goodput and the
/// work kept.
void add_collective_columns(std::vector<MetricColumn>& columns) {
  columns.push_back(
      {.key = "ettr",
       .header = "ETTR",
       .unit = "fraction",
       .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V { return c.ettr; }),
       .collective = true,
       .collective_default = true});
  // Goodput: kept tokens (with a transformer to pose as), else kept samples, per second of the
  // whole run.
  columns.push_back({.key = "goodput_tokens_per_s",
                     .header = "goodput",
                     .unit = "tokens/s",
                     .value = collective([](const CollectiveRun& c, const RunMetrics& r) -> V {
                       if (c.tokens_per_step <= 0.0 || r.end_time <= 0.0) return std::nullopt;
                       return c.tokens_kept / r.end_time;
                     }),
                     .collective = true,
                     .collective_default = true});
  columns.push_back({.key = "goodput_samples_per_s",
                     .header = "goodput",
                     .unit = "samples/s",
                     .value = collective([](const CollectiveRun& c, const RunMetrics& r) -> V {
                       if (c.tokens_per_step > 0.0 || r.end_time <= 0.0) return std::nullopt;
                       return c.samples_kept / r.end_time;
                     }),
                     .collective = true,
                     .collective_default = true});
  // The work the run keeps: the quorum's honest measure (a step without a group trains on fewer
  // tokens, so steps kept overstate it). Tokens with a transformer to pose as, else samples.
  columns.push_back({.key = "tokens_kept",
                     .header = "tokens kept",
                     .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V {
                       if (c.tokens_per_step <= 0.0) return std::nullopt;
                       return c.tokens_kept;
                     }),
                     .collective = true,
                     .collective_default = true});
  columns.push_back({.key = "samples_kept",
                     .header = "samples kept",
                     .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V {
                       if (c.tokens_per_step > 0.0) return std::nullopt;
                       return c.samples_kept;
                     }),
                     .collective = true,
                     .collective_default = true});
  columns.push_back({.key = "steps_kept",
                     .header = "steps kept",
                     .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V {
                       return static_cast<double>(c.steps_kept);
                     }),
                     .collective = true});
}

/// Collective runs: the work and time lost (rolled back, restarts, the time by cause) and the
/// checkpoint interval that would lose the least.
void add_collective_loss_columns(std::vector<MetricColumn>& columns) {
  columns.push_back({.key = "steps_rolled_back",
                     .header = "steps rolled back",
                     .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V {
                       return static_cast<double>(c.steps_rolled_back);
                     }),
                     .collective = true,
                     .collective_default = true});
  columns.push_back({.key = "restarts",
                     .header = "restarts",
                     .value = collective([](const CollectiveRun& c, const RunMetrics&) -> V {
                       return static_cast<double>(c.restarts);
                     }),
                     .collective = true,
                     .collective_default = true});
  columns.push_back({.key = "time_lost_s",
                     .header = "time lost",
                     .unit = "s",
                     .value = collective([](const CollectiveRun& c, const RunMetrics& r) -> V {
                       const auto productive =
                           static_cast<std::size_t>(result_format::TimeCause::PRODUCTIVE);
                       return r.end_time - c.seconds[productive];
                     }),
                     .collective = true,
                     .collective_default = true});
  for (const auto& cause : result_format::time_causes()) {
    const auto k = static_cast<std::size_t>(cause.cause);
    columns.push_back({.key = fmt::format("time_{}_s", cause.spelling),
                       .header = fmt::format("time: {}", cause.label),
                       .unit = "s",
                       .value = collective([k](const CollectiveRun& c, const RunMetrics&) -> V {
                         return c.seconds[k];
                       }),
                       .collective = true});
  }
  // Daly's optimum from the run's own figures: M the wall time over the failures, delta the
  // checkpoint stall over the checkpoints, in steps of the productive time over the kept steps
  // (analysis/plot.py's young_daly draws the same on a sweep's figure, pooled over a line).
  columns.push_back({.key = "daly_optimum_steps",
                     .header = "Young/Daly optimum",
                     .unit = "steps",
                     .value = collective([](const CollectiveRun& c, const RunMetrics& r) -> V {
                       const auto productive =
                           static_cast<std::size_t>(result_format::TimeCause::PRODUCTIVE);
                       const auto stall =
                           static_cast<std::size_t>(result_format::TimeCause::CHECKPOINT_STALL);
                       if (c.failures <= 0 || c.checkpoints <= 0 || c.seconds[stall] <= 0.0 ||
                           c.steps_kept <= 0 || r.end_time <= 0.0)
                         return std::nullopt;
                       const double mtbf = r.end_time / static_cast<double>(c.failures);
                       const double delta = c.seconds[stall] / static_cast<double>(c.checkpoints);
                       return daly_optimum(delta, mtbf) /
                              (c.seconds[productive] / static_cast<double>(c.steps_kept));
                     }),
                     .collective = true,
                     .collective_default = true});
}

/// What a configuration cost (the scenario's prices, docs/cost-model.md).
void add_cost_columns(std::vector<MetricColumn>& columns, const std::string& target) {
  columns.push_back({.key = "host_hours",
                     .header = "host-hours",
                     .unit = "h",
                     .value = [](const RunMetrics& r) { return r.host_hours; },
                     .priced = true});
  columns.push_back({.key = "cost_usd",
                     .header = "cost",
                     .unit = "USD",
                     .value = [](const RunMetrics& r) { return r.cost_usd; },
                     .priced = true,
                     .collective_default = true});
  columns.push_back({.key = "cost_to_target_usd",
                     .header = "cost to " + target,
                     .unit = "USD",
                     .show_count = true,
                     .value = [](const RunMetrics& r) { return r.cost_to_target_usd; },
                     .priced = true});
  columns.push_back({.key = "cost_per_useful_gradient_usd",
                     .header = "cost per useful gradient",
                     .unit = "µUSD",
                     .scale = 1e6,
                     .value = [](const RunMetrics& r) { return r.cost_per_useful_gradient_usd; },
                     .priced = true});
}
}  // namespace

std::vector<MetricColumn> all_metric_columns(std::size_t failure_triples, double target_accuracy,
                                             std::optional<double> target_loss) {
  const std::string target = fmt::format("{}", target_accuracy);
  // by_default: which configuration trained best (final accuracy, time to target), how fast
  // training resumed (recovery time after each failure), how much work was lost (gradients lost
  // with their workers, gradients rolled back by a recovery). docs/tables.md#columns.
  std::vector<MetricColumn> columns;
  add_accuracy_columns(columns, failure_triples, target, target_loss);
  add_work_columns(columns);
  add_collective_columns(columns);
  add_collective_loss_columns(columns);
  add_cost_columns(columns, target);
  return columns;
}

std::vector<MetricColumn> metric_columns(const std::vector<Configuration>& configurations,
                                         const TableLayout& layout) {
  std::size_t k_max = 0;
  for (const auto& c : configurations) {
    for (const auto& r : c.runs) k_max = std::max(k_max, r.server_failures.size());
  }
  std::vector<MetricColumn> columns =
      all_metric_columns(std::min(k_max, layout.max_failures), layout.target, layout.target_loss);
  const bool any_collective =
      std::any_of(configurations.begin(), configurations.end(), [](const Configuration& c) {
        return std::any_of(c.runs.begin(), c.runs.end(),
                           [](const RunMetrics& r) { return r.collective.has_value(); });
      });
  std::erase_if(columns, [&](const MetricColumn& c) {
    return !c.in_table || (c.collective && !any_collective);
  });
  return columns;
}

std::string format_mean_interval(double mean, std::optional<double> half_width) {
  if (half_width && *half_width > 0.0) {
    const int decimals = decimals_for(*half_width, 2);
    return fmt::format("{:.{}f} ± {:.{}f}", mean, decimals, *half_width, decimals);
  }
  // Without a spread, a whole number (a count, a time on the evaluation grid) has no decimals.
  const int decimals = mean == std::floor(mean) ? 0 : decimals_for(mean, 3);
  const std::string value = fmt::format("{:.{}f}", mean, decimals);
  return half_width ? value + " ± 0" : value;
}

namespace {
/// The columns `keys` names, in that order: {"all"}, every column; empty, the default columns
/// (every column in CSV, made for programs that pick their own).
std::vector<MetricColumn> select_columns(std::vector<MetricColumn> all,
                                         const std::vector<Configuration>& configurations,
                                         const std::vector<std::string>& keys, TableFormat format) {
  if (keys.empty() && format != TableFormat::CSV) {
    // Parameter-server runs: their default columns. Collective runs: the collective ones, but
    // a column no run has a value for (accuracy of time-only runs, goodput in tokens without a
    // transformer, a cost under a plan without nodes) says nothing. Both kinds: both sets.
    bool any_ps = false, any_collective = false, any_language_model = false;
    for (const auto& c : configurations) {
      for (const auto& r : c.runs) {
        (r.collective ? any_collective : any_ps) = true;
        any_language_model = any_language_model || r.language_model;
      }
    }
    const auto has_value = [&](const MetricColumn& column) {
      for (const auto& c : configurations) {
        for (const auto& r : c.runs) {
          if (column.value(r)) return true;
        }
      }
      return false;
    };
    std::erase_if(all, [&](const MetricColumn& c) {
      if (c.language_model_default) return !any_language_model;
      if (any_ps && c.by_default) return false;
      if (any_collective && c.collective_default) return !has_value(c);
      if (any_collective && !any_ps && c.key == "final_accuracy") return !has_value(c);
      return true;
    });
    return all;
  }
  if (keys.empty() || keys == std::vector<std::string>{"all"}) return all;
  std::vector<MetricColumn> chosen;
  for (const std::string& key : keys) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const MetricColumn& c) { return c.key == key; });
    if (it == all.end()) {
      std::string known;
      for (const auto& c : all) known += (known.empty() ? "" : ", ") + c.key;
      throw TableOptionError(fmt::format(
          "--columns: expected all, or column keys of these runs ({}), found \"{}\"", known, key));
    }
    chosen.push_back(*it);
  }
  return chosen;
}
}  // namespace

std::string render_table(const std::vector<Configuration>& configurations, TableFormat format,
                         const TableLayout& layout) {
  const std::vector<MetricColumn> columns = select_columns(metric_columns(configurations, layout),
                                                           configurations, layout.columns, format);
  switch (format) {
    case TableFormat::MARKDOWN:
      return render_markdown(configurations, columns, layout);
    case TableFormat::LATEX:
      return render_latex(configurations, columns, layout);
    case TableFormat::CSV:
      return layout.per_run ? render_csv_per_run(configurations, columns, layout)
                            : render_csv(configurations, columns, layout);
  }
  throw std::logic_error("render_table: unknown format");
}

std::string make_table(const TableRequest& request) {
  const auto format = parse_table_format(request.format);
  if (!format) {
    throw TableOptionError(
        fmt::format("--format: expected md, csv or latex, found \"{}\"", request.format));
  }
  if (!(request.target > 0.0 && request.target <= 1.0)) {
    throw TableOptionError(
        fmt::format("--target: expected a test accuracy in (0, 1], found {}", request.target));
  }
  if (request.target_loss && !(*request.target_loss > 0.0 && std::isfinite(*request.target_loss))) {
    throw TableOptionError(fmt::format(
        "--target-loss: expected a validation loss > 0 (nat), found {}", *request.target_loss));
  }
  if (request.per_run && *format != TableFormat::CSV) {
    throw TableOptionError(fmt::format(
        "--per-run: expected with --format csv only, found --format {}", request.format));
  }
  if (request.directories.empty()) {
    throw TableOptionError("DIR: expected at least one result directory, found none");
  }
  std::error_code ec;
  if (request.prices_is_default && !std::filesystem::exists(request.prices, ec)) {
    throw TableOptionError(fmt::format(
        "--prices: expected a price file; the default, {}, is the price file of the source tree "
        "failsim was built from, and it does not exist (moved or deleted): give one with "
        "--prices FILE (format: docs/cost-model.md)",
        request.prices.string()));
  }
  const PriceBook book = load_price_book(request.prices);
  const std::string plan = request.plan.empty() ? book.default_plan : request.plan;
  if (book.plans.count(plan) == 0) {
    std::string known;
    for (const auto& [name, p] : book.plans) known += (known.empty() ? "" : ", ") + name;
    throw TableOptionError(fmt::format("--plan: expected a plan of {} ({}), found \"{}\"",
                                       request.prices.string(), known, plan));
  }
  // Without --plan, a collective run is priced with the book's plan for nodes.
  const std::string collective_plan = request.plan.empty() && !book.default_collective_plan.empty()
                                          ? book.default_collective_plan
                                          : plan;

  std::vector<RunMetrics> runs;
  for (const auto& found : find_result_directories(request.directories)) {
    const RunSummary run = load_run(found.path);
    RunMetrics m = compute_metrics(run, book, run.collective ? collective_plan : plan,
                                   request.target, request.target_loss);
    m.root_index = found.root_index;
    runs.push_back(std::move(m));
  }
  TableLayout layout;
  layout.target = request.target;
  layout.target_loss = request.target_loss;
  layout.plan = plan;
  layout.collective_plan = collective_plan;
  // The built-in file is named as in the source tree: a table does not depend on the checkout.
  layout.prices = request.prices_is_default ? "analysis/prices.json" : request.prices.string();
  layout.max_failures = request.max_failures;
  layout.per_run = request.per_run;
  layout.columns = request.columns;
  return render_table(group_runs(std::move(runs)), *format, layout);
}

TableOrError make_table_or_error(const TableRequest& request) {
  try {
    return {make_table(request), std::nullopt};
  } catch (const TableOptionError& e) {
    return {"", e.what()};
  } catch (const input::InputError& e) {
    return {"", e.what()};
  }
}

}  // namespace failsim::analysis
