// Reading a result directory back. Events come from result.json (the same list as events.csv,
// already structured, so no CSV-quoted JSON to unpick); evaluations from timeseries.csv, the
// only place they are all written.
#include "analysis/run_summary.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "input/input_error.hpp"
#include "input/json_input.hpp"
#include "input/object_reader.hpp"
#include "result_format/failure_window.hpp"

namespace failsim::analysis {
namespace fs = std::filesystem;
using input::describe_found;
using input::InputError;
using input::JsonLocation;
using nlohmann::json;

namespace {

constexpr std::int64_t COUNT_MAX = std::numeric_limits<std::int64_t>::max();

/// The member `key` of the object `object` (which is at `at`), required.
const json& member(const json& object, const input::JsonLocation& at, const std::string& key,
                   const std::string& expected) {
  const auto it = object.find(key);
  if (it == object.end()) at.child(key).fail(expected + " (required)", "nothing");
  return *it;
}

/// The member `key`, required to be an object.
const json& object_member(const json& object, const input::JsonLocation& at,
                          const std::string& key) {
  const json& v = member(object, at, key, "an object");
  if (!v.is_object()) at.child(key).fail("an object", input::describe_found(v));
  return v;
}

double number_member(const json& object, const input::JsonLocation& at, const std::string& key,
                     const input::Interval& range) {
  return input::read_number(member(object, at, key, "a number " + range.describe()), at.child(key),
                            range);
}

std::int64_t count_member(const json& object, const input::JsonLocation& at,
                          const std::string& key) {
  return input::read_integer(member(object, at, key, "an integer >= 0"), at.child(key), 0,
                             COUNT_MAX);
}

/// A string member; empty strings allowed (an event's subject is "" for the run).
std::string string_member(const json& object, const input::JsonLocation& at,
                          const std::string& key) {
  const json& v = member(object, at, key, "a string");
  if (!v.is_string()) at.child(key).fail("a string", input::describe_found(v));
  return v.get<std::string>();
}

HostSummary read_host(const json& v, const input::JsonLocation& at) {
  if (!v.is_object()) at.fail("an object", input::describe_found(v));
  HostSummary h;
  h.host = input::read_string(member(v, at, "host", "a non-empty string"), at.child("host"));
  h.role = input::read_string(member(v, at, "role", "a non-empty string"), at.child("role"));
  h.recovery_wait_seconds =
      number_member(v, at, "recovery_wait_seconds", input::Interval::non_negative());
  h.down_seconds = number_member(v, at, "down_seconds", input::Interval::non_negative());
  return h;
}

RunEvent read_event(const json& v, const input::JsonLocation& at) {
  if (!v.is_object()) at.fail("an object", input::describe_found(v));
  RunEvent e;
  e.time = number_member(v, at, "time", input::Interval::non_negative());
  e.type = result_format::parse_event_type(
      input::read_string(member(v, at, "type", "a non-empty string"), at.child("type")));
  e.subject = string_member(v, at, "subject");
  e.details = object_member(v, at, "details");
  if (e.type && result_format::is_failure(*e.type)) {
    const input::JsonLocation down_at = at.child("details").child("down_for");
    const std::string expected = "a number >= 0 (seconds) or \"forever\"";
    const json& down = member(e.details, at.child("details"), "down_for", expected);
    if (down == "forever") {
      e.down_for = std::numeric_limits<double>::infinity();
    } else if (down.is_number() && down.get<double>() >= 0.0 && std::isfinite(down.get<double>())) {
      e.down_for = down.get<double>();
    } else {
      down_at.fail(expected, input::describe_found(down));
    }
  }
  return e;
}

/// summary.collective: the fields the tables and figures read, each checked.
CollectiveRun read_collective(const json& c, const input::JsonLocation& at) {
  if (!c.is_object()) at.fail("an object", input::describe_found(c));
  CollectiveRun r;
  const std::string math =
      input::read_string(member(c, at, "math", "\"real\" or \"none\""), at.child("math"));
  if (math != "real" && math != "none") {
    at.child("math").fail("\"real\" or \"none\"", input::describe_found(json(math)));
  }
  r.real_math = math == "real";
  r.ranks = count_member(c, at, "ranks");
  r.nodes = count_member(c, at, "nodes");
  if (c.contains("spares")) {
    r.spare_nodes = count_member(object_member(c, at, "spares"), at.child("spares"), "nodes");
  }
  r.ettr = number_member(c, at, "ettr", {0.0, 1.0, false, false});
  const input::JsonLocation time_at = at.child("time");
  const json& time = object_member(c, at, "time");
  for (const auto& cause : result_format::time_causes()) {
    r.seconds[static_cast<std::size_t>(cause.cause)] =
        number_member(time, time_at, std::string(cause.spelling), input::Interval::non_negative());
  }
  const input::JsonLocation steps_at = at.child("steps");
  const json& steps = object_member(c, at, "steps");
  r.steps_completed = count_member(steps, steps_at, "completed");
  r.steps_rolled_back = count_member(steps, steps_at, "rolled_back");
  r.steps_kept = count_member(steps, steps_at, "kept");
  const auto per_step_and_kept = [&](const std::string& key, double& per_step, double& kept) {
    const json& o = object_member(c, at, key);
    per_step = number_member(o, at.child(key), "per_step", input::Interval::non_negative());
    kept = number_member(o, at.child(key), "kept", input::Interval::non_negative());
  };
  per_step_and_kept("tokens", r.tokens_per_step, r.tokens_kept);
  per_step_and_kept("samples", r.samples_per_step, r.samples_kept);
  r.failures = count_member(c, at, "failures");
  r.restarts = count_member(c, at, "restarts");
  r.checkpoints = count_member(c, at, "checkpoints");
  return r;
}

/// Splits one CSV line at commas; timeseries.csv has no quoted fields (numbers only).
std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

/// summary.final: the last evaluation's accuracy and loss, or null (no evaluation).
void read_final_evaluation(const json& summary, const input::JsonLocation& summary_at,
                           RunSummary& run) {
  const json& final_eval = member(summary, summary_at, "final", "an evaluation object or null");
  if (final_eval.is_null()) {
    run.final_accuracy.reset();
  } else if (final_eval.is_object()) {
    run.final_accuracy = number_member(final_eval, summary_at.child("final"), "test_accuracy",
                                       {0.0, 1.0, false, false});
    // null: a loss that was not finite (JSON has no NaN); absent: a result from before losses.
    const auto loss = final_eval.find("test_loss");
    if (loss != final_eval.end() && !loss->is_null()) {
      run.final_loss = number_member(final_eval, summary_at.child("final"), "test_loss",
                                     input::Interval::non_negative());
    }
  } else {
    summary_at.child("final").fail("an evaluation object or null",
                                   input::describe_found(final_eval));
  }
}

/// summary.gradients: the counts, rolled back at most what was applied.
void read_gradients(const json& summary, const input::JsonLocation& summary_at, RunSummary& run) {
  const input::JsonLocation gradients_at = summary_at.child("gradients");
  const json& gradients = object_member(summary, summary_at, "gradients");
  run.gradients.computed = count_member(gradients, gradients_at, "computed");
  run.gradients.applied = count_member(gradients, gradients_at, "applied");
  run.gradients.dropped = count_member(gradients, gradients_at, "dropped");
  run.gradients.lost = count_member(gradients, gradients_at, "lost");
  run.gradients.pending_at_end = count_member(gradients, gradients_at, "pending_at_end");
  run.gradients.rolled_back = count_member(gradients, gradients_at, "rolled_back");
  if (run.gradients.rolled_back > run.gradients.applied) {
    gradients_at.child("rolled_back")
        .fail(fmt::format("an integer <= summary.gradients.applied ({})", run.gradients.applied),
              std::to_string(run.gradients.rolled_back));
  }
}

}  // namespace

void parse_result_json(const std::string& text, const std::string& file_label, RunSummary& run) {
  const json doc = input::parse_json_text(text, file_label);
  const input::JsonLocation root{file_label, ""};
  if (!doc.is_object()) root.fail("a failsim result (a JSON object)", input::describe_found(doc));
  const json& format = member(doc, root, "format", "\"failsim-result\"");
  if (format != "failsim-result")
    root.child("format").fail("\"failsim-result\"", input::describe_found(format));
  input::read_integer(member(doc, root, "format_version", "1"), root.child("format_version"), 1, 1);

  const input::JsonLocation scenario_at = root.child("scenario");
  const json& scenario = object_member(doc, root, "scenario");
  run.name = input::read_string(member(scenario, scenario_at, "name", "a non-empty string"),
                                scenario_at.child("name"));
  run.seed = input::read_uint64(member(scenario, scenario_at, "seed", "an integer >= 0"),
                                scenario_at.child("seed"));
  // A time-only collective run has no model.
  const auto model = scenario.find("model");
  if (model != scenario.end() && model->is_object()) {
    const auto kind = model->find("kind");
    run.language_model = kind != model->end() && *kind == "transformer";
  }

  const input::JsonLocation summary_at = root.child("summary");
  const json& summary = object_member(doc, root, "summary");
  run.status = input::read_string(member(summary, summary_at, "status", "a non-empty string"),
                                  summary_at.child("status"));
  run.end_time = number_member(summary, summary_at, "end_time", input::Interval::non_negative());
  read_final_evaluation(summary, summary_at, run);
  read_gradients(summary, summary_at, run);
  run.updates = count_member(summary, summary_at, "updates");
  run.updates_rolled_back = count_member(summary, summary_at, "updates_rolled_back");
  if (run.updates_rolled_back > run.updates) {
    summary_at.child("updates_rolled_back")
        .fail(fmt::format("an integer <= summary.updates ({})", run.updates),
              std::to_string(run.updates_rolled_back));
  }

  const json& hosts = member(summary, summary_at, "hosts", "a list of host objects");
  if (!hosts.is_array())
    summary_at.child("hosts").fail("a list of host objects", input::describe_found(hosts));
  run.hosts.clear();
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    run.hosts.push_back(read_host(hosts[i], summary_at.child("hosts").child(i)));
  }

  // Collective runs only (its absence is a parameter-server run, not an error).
  run.collective.reset();
  if (const auto c = summary.find("collective"); c != summary.end()) {
    run.collective = read_collective(*c, summary_at.child("collective"));
  }

  const json& events = member(doc, root, "events", "a list of event objects");
  if (!events.is_array())
    root.child("events").fail("a list of event objects", input::describe_found(events));
  run.events.clear();
  for (std::size_t i = 0; i < events.size(); ++i) {
    run.events.push_back(read_event(events[i], root.child("events").child(i)));
  }
}

namespace {
/// One line of timeseries.csv being read: its fields (views into it) and its place, for errors.
struct TimeseriesLine {
  std::string_view text;
  std::vector<std::string_view> fields;
  const std::string& file_label;
  int number;

  /// Column (1-based) of field i: its offset in the line.
  int column_of(std::size_t i) const {
    return static_cast<int>(fields[i].data() - text.data()) + 1;
  }
  [[noreturn]] void fail(int column, const std::string& expected, const std::string& found) const {
    throw input::InputError(file_label, "", expected, found, number, column);
  }
};

/// The columns of timeseries.csv a run summary reads, found in its header line.
struct TimeseriesColumns {
  std::vector<std::string> header;
  std::size_t time = 0, version = 0, accuracy = 0;
  std::optional<std::size_t> loss, tokens;  // absent from results older than them

  explicit TimeseriesColumns(const TimeseriesLine& line) {
    for (const auto& f : line.fields) header.emplace_back(f);
    time = required(line, "time");
    version = required(line, "version");
    accuracy = required(line, "test_accuracy");
    loss = optional("test_loss");
    tokens = optional("tokens");
  }
  std::optional<std::size_t> optional(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
  }
  std::size_t required(const TimeseriesLine& line, const std::string& name) const {
    const std::optional<std::size_t> column = optional(name);
    if (!column) {
      line.fail(1, fmt::format("a header line with a '{}' column", name),
                input::describe_found(json(std::string(line.text))));
    }
    return *column;
  }
};

/// Field `col` of `line` as a number into `out`, or the error naming the column.
template <typename T>
void read_number(const TimeseriesLine& line, const TimeseriesColumns& c, std::size_t col,
                 const std::string& expected, T& out) {
  const std::string_view f = line.fields[col];
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
  if (f.empty() || ec != std::errc() || end != f.data() + f.size()) {
    line.fail(
        line.column_of(col), fmt::format("{} in column '{}'", expected, c.header[col]),
        f.empty() ? std::string("an empty field") : input::describe_found(json(std::string(f))));
  }
}

/// A row of timeseries.csv after its header, each field checked.
EvaluationPoint read_evaluation(const TimeseriesLine& line, const TimeseriesColumns& c) {
  if (line.fields.size() != c.header.size()) {
    line.fail(1, fmt::format("{} comma-separated fields, as in the header", c.header.size()),
              fmt::format("{}", line.fields.size()));
  }
  const auto field = [&](std::size_t col) { return std::string(line.fields[col]); };
  EvaluationPoint p;
  read_number(line, c, c.time, "a number >= 0", p.time);
  read_number(line, c, c.version, "an integer >= 0", p.version);
  read_number(line, c, c.accuracy, "a number in [0, 1]", p.test_accuracy);
  if (!(p.time >= 0.0))
    line.fail(line.column_of(c.time), "a number >= 0 in column 'time'", field(c.time));
  if (p.version < 0)
    line.fail(line.column_of(c.version), "an integer >= 0 in column 'version'", field(c.version));
  if (!(p.test_accuracy >= 0.0 && p.test_accuracy <= 1.0)) {
    line.fail(line.column_of(c.accuracy), "a number in [0, 1] in column 'test_accuracy'",
              field(c.accuracy));
  }
  if (c.loss) {
    // "nan" or "inf": a diverged evaluation, which reaches no target loss.
    double loss = 0.0;
    read_number(line, c, *c.loss, "a number", loss);
    if (std::isfinite(loss)) p.test_loss = loss;
  }
  if (c.tokens && !line.fields[*c.tokens].empty()) {
    double tokens = 0.0;
    read_number(line, c, *c.tokens, "a number >= 0 or nothing", tokens);
    if (!(tokens >= 0.0 && std::isfinite(tokens))) {
      line.fail(line.column_of(*c.tokens), "a number >= 0 or nothing in column 'tokens'",
                field(*c.tokens));
    }
    p.tokens = tokens;
  }
  return p;
}
}  // namespace

std::vector<EvaluationPoint> parse_timeseries(const std::string& text,
                                              const std::string& file_label) {
  std::vector<EvaluationPoint> points;
  std::optional<TimeseriesColumns> columns;
  std::size_t line_start = 0;
  int line_number = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    std::string_view view(text.data() + line_start, line_end - line_start);
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    const TimeseriesLine line{view, split(view), file_label, ++line_number};
    if (!columns) {
      columns.emplace(line);
    } else {
      const EvaluationPoint p = read_evaluation(line, *columns);
      if (!points.empty() && p.time < points.back().time) {
        line.fail(line.column_of(columns->time),
                  fmt::format("times in order (the previous row is at {})", points.back().time),
                  std::string(line.fields[columns->time]));
      }
      points.push_back(p);
    }
    line_start = line_end + 1;
  }
  if (line_number == 0) {
    throw input::InputError(file_label, "", "a header line (time,version,test_accuracy,...)",
                            "an empty file");
  }
  return points;
}

/// failsim writes result files itself, and a long run's timeseries.csv outgrows the limit of
/// hand-written inputs; this one only keeps a wrong path (a device, a huge log) from being read.
constexpr std::uintmax_t MAX_RESULT_FILE_BYTES = std::uintmax_t{4} << 30;

RunSummary load_run(const fs::path& directory) {
  RunSummary run;
  run.directory = directory;
  const fs::path result = directory / "result.json";
  parse_result_json(input::read_input_file(result, "a readable result.json", MAX_RESULT_FILE_BYTES),
                    result.string(), run);
  const fs::path timeseries = directory / "timeseries.csv";
  std::error_code ec;
  if (!fs::exists(timeseries, ec)) {
    throw input::InputError(
        timeseries.string(), "",
        "a timeseries.csv beside result.json (the scenario's output.timeseries must "
        "be true)",
        "no such file");
  }
  run.evaluations = parse_timeseries(
      input::read_input_file(timeseries, "a readable timeseries.csv", MAX_RESULT_FILE_BYTES),
      timeseries.string());
  return run;
}

std::vector<FoundDirectory> find_result_directories(const std::vector<fs::path>& roots) {
  std::vector<FoundDirectory> found;
  std::set<fs::path> seen;
  const auto add = [&](const fs::path& dir, std::size_t root_index) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(dir, ec);
    if (ec) canonical = dir;
    if (seen.insert(canonical).second) found.push_back({dir, root_index});
  };
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const fs::path& root = roots[r];
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      throw input::InputError(
          root.string(), "", "a result directory or a directory holding some",
          fs::exists(root, ec) ? "a file that is not a directory" : "no such directory");
    }
    if (fs::exists(root / "result.json", ec)) {
      add(root, r);
      continue;
    }
    std::vector<fs::path> under;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      throw input::InputError(root.string(), "", "a readable directory", ec.message());
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) throw input::InputError(root.string(), "", "a readable directory tree", ec.message());
      if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
      if (fs::exists(it->path() / "result.json", ec)) {
        under.push_back(it->path());
        it.disable_recursion_pending();
      }
    }
    if (under.empty()) {
      throw input::InputError(
          root.string(), "",
          "a result directory (holding result.json) or a directory with some below it", "none");
    }
    std::sort(under.begin(), under.end());
    for (const auto& dir : under) add(dir, r);
  }
  return found;
}

}  // namespace failsim::analysis
