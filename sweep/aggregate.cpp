// runs.csv and table.md of a sweep (see aggregate.hpp).
#include "sweep/aggregate.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "analysis/table.hpp"
#include "input/atomic_file.hpp"
#include "input/units.hpp"

namespace failsim::sweep {
namespace fs = std::filesystem;

namespace {

/// A CSV field: quoted (inner quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// Shortest text that reads back as the same double, as result files write numbers (a count is
/// an integer without decimals).
std::string number(double v) { return fmt::format("{}", v); }

/// runs.csv's figures of every run: these metric columns of the tables' list
/// (analysis/table.hpp), by key, in this order.
constexpr std::array<std::string_view, 3> RUNS_CSV_METRICS = {"final_accuracy", "end_time_s",
                                                              "failures"};
/// Then those of parameter-server runs (a collective run has none: always 0 there).
constexpr std::array<std::string_view, 8> PARAMETER_SERVER_METRICS = {"updates",
                                                                      "updates_rolled_back",
                                                                      "gradients_computed",
                                                                      "gradients_applied",
                                                                      "gradients_dropped",
                                                                      "gradients_lost",
                                                                      "gradients_pending_at_end",
                                                                      "gradients_rolled_back"};

/// Then those of language models: the final loss and perplexity, and the time and tokens to the
/// sweep's target loss when it has one (those columns exist only then).
constexpr std::array<std::string_view, 2> LANGUAGE_MODEL_METRICS = {"final_test_loss",
                                                                    "final_test_perplexity"};
constexpr std::array<std::string_view, 2> TARGET_LOSS_METRICS = {"time_to_target_loss_s",
                                                                 "tokens_to_target_loss"};

/// The metric columns of runs.csv: those of every run, the parameter-server ones when the plan
/// has a parameter-server point, the language model's when it has a language-model point, and
/// when it has a collective point every collective column of the tables (ETTR, goodput, tokens,
/// steps, restarts, time lost, time by cause), in table order. The plan decides, not the results
/// found, so a collection of a half-run sweep has the same header.
std::vector<analysis::MetricColumn> runs_csv_columns(const SweepPlan& plan, bool parameter_server,
                                                     bool language_model, bool collective) {
  // No figure of runs.csv depends on the failure columns or the target accuracy.
  const std::vector<analysis::MetricColumn> all =
      analysis::all_metric_columns(0, analysis::TableLayout{}.target, plan.target_loss);
  std::vector<analysis::MetricColumn> columns;
  const auto add = [&](std::string_view key) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const analysis::MetricColumn& c) { return c.key == key; });
    if (it == all.end()) throw std::logic_error("runs.csv: no metric column " + std::string(key));
    columns.push_back(*it);
  };
  for (const std::string_view key : RUNS_CSV_METRICS) add(key);
  if (parameter_server) {
    for (const std::string_view key : PARAMETER_SERVER_METRICS) add(key);
  }
  if (language_model) {
    for (const std::string_view key : LANGUAGE_MODEL_METRICS) add(key);
    if (plan.target_loss) {
      for (const std::string_view key : TARGET_LOSS_METRICS) add(key);
    }
  }
  if (collective) {
    for (const analysis::MetricColumn& c : all) {
      if (c.collective && !c.priced) columns.push_back(c);
    }
  }
  return columns;
}

bool is_collective(const SweepPoint& p) {
  const auto protocol = p.scenario.find("protocol");
  return protocol != p.scenario.end() && *protocol == "collective";
}

/// Its model is a transformer (a time-only collective point has no model).
bool is_language_model(const SweepPoint& p) {
  const auto model = p.scenario.find("model");
  return model != p.scenario.end() && model->is_object() &&
         model->value("kind", "") == "transformer";
}

/// A column name of letters, digits and `_` from a pointer's last `words` keys that are not
/// array indices (all of them when it has fewer).
std::string plain_name(const std::string& pointer, std::size_t words) {
  std::vector<std::string> keys;
  std::vector<std::string> tokens;
  for (std::size_t at = 0; at < pointer.size();) {
    const std::size_t next = std::min(pointer.find('/', at + 1), pointer.size());
    tokens.push_back(pointer.substr(at + 1, next - at - 1));  // `~0`, `~1` become `_`s below
    at = next;
  }
  for (const std::string& token : tokens) {
    const bool index = !token.empty() && std::all_of(token.begin(), token.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    if (!index) keys.push_back(token);
  }
  const std::size_t first = keys.size() > words ? keys.size() - words : 0;
  std::string name;
  for (std::size_t i = first; i < keys.size(); ++i) {
    if (!name.empty()) name += '_';
    for (const char c : keys[i]) {
      const bool plain =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      name += plain ? c : '_';
    }
  }
  return name.empty() ? "value" : name;
}

}  // namespace

std::vector<std::string> varied_column_names(const SweepPlan& plan) {
  // The names runs.csv has besides: a varied path's column must not take one of them.
  std::vector<std::string> taken = {"index", "point", "base", "seed", "status", "directory"};
  for (const auto& c :
       analysis::all_metric_columns(0, analysis::TableLayout{}.target, plan.target_loss)) {
    taken.push_back(c.key);
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.paths.size(); ++i) {
    // The last two keys (`/recovery/checkpoint/every_steps`: checkpoint_every_steps), more
    // while the name is taken; the path's index as a last resort.
    std::string name;
    for (std::size_t words = 2; words <= 64; ++words) {
      name = plain_name(plan.paths[i], words);
      const bool clash = std::find(taken.begin(), taken.end(), name) != taken.end() ||
                         std::any_of(plan.paths.begin(), plan.paths.end(), [&](const auto& p) {
                           return p != plan.paths[i] && plain_name(p, words) == name;
                         });
      if (!clash) break;
      if (words == 64) name = fmt::format("{}_{}", name, i + 1);
    }
    taken.push_back(name);
    names.push_back(name);
  }
  return names;
}

namespace {}  // namespace

bool sweep_run_complete(const fs::path& directory, const SweepRun& run) {
  std::error_code ec;
  return fs::is_regular_file(directory / run.directory / "result.json", ec);
}

std::vector<std::optional<analysis::RunSummary>> load_sweep_results(const SweepPlan& plan,
                                                                    const fs::path& directory) {
  std::vector<std::optional<analysis::RunSummary>> results;
  for (const SweepRun& run : plan.runs) {
    if (sweep_run_complete(directory, run)) {
      results.emplace_back(analysis::load_run(directory / run.directory));
    } else {
      results.emplace_back();
    }
  }
  return results;
}

namespace {

/// The base unit of a varied path written with units ("20s", "2GB") at some point: its numeric
/// column "<path> (<unit>)" follows the path's own; none for a path whose values are all plain
/// JSON (numbers are numbers already; names and objects have no number).
std::vector<std::optional<std::string>> numeric_units(const SweepPlan& plan) {
  std::vector<std::optional<std::string>> units(plan.paths.size());
  for (const SweepPoint& point : plan.points) {
    for (std::size_t i = 0; i < plan.paths.size(); ++i) {
      const nlohmann::json& value = point.values[i];
      if (units[i] || !value.is_string()) continue;
      if (const auto kind = input::quantity_kind(value.get_ref<const std::string&>())) {
        units[i] = std::string(input::base_unit(*kind));
      }
    }
  }
  return units;
}

/// A varied path's value at a point as the resolved scenario holds it: a number in the base
/// unit, or "" when it is not a number there.
std::string resolved_number(const SweepPoint& point, const std::string& path) {
  const nlohmann::json::json_pointer pointer(path);
  if (!point.scenario.contains(pointer)) return "";
  const nlohmann::json& value = point.scenario.at(pointer);
  return value.is_number() ? number(value.get<double>()) : "";
}

}  // namespace

std::string runs_csv(const SweepPlan& plan,
                     const std::vector<std::optional<analysis::RunSummary>>& results) {
  const std::vector<std::optional<std::string>> units = numeric_units(plan);
  const std::vector<std::string> names = varied_column_names(plan);
  std::string out = "index,point,base";
  for (std::size_t i = 0; i < plan.paths.size(); ++i) {
    out += ',' + names[i];
    if (units[i]) out += ',' + names[i] + '_' + *units[i];
  }
  const bool collective = std::any_of(plan.points.begin(), plan.points.end(), is_collective);
  const bool parameter_server = !std::all_of(plan.points.begin(), plan.points.end(), is_collective);
  const bool language_model =
      std::any_of(plan.points.begin(), plan.points.end(), is_language_model);
  const std::vector<analysis::MetricColumn> columns =
      runs_csv_columns(plan, parameter_server, language_model, collective);
  out += ",seed,status";
  for (const analysis::MetricColumn& c : columns) out += ',' + c.key;
  out += ",directory\n";
  for (const SweepRun& run : plan.runs) {
    const SweepPoint& point = plan.points[run.point];
    out +=
        fmt::format("{},{},{}", run.index, csv_field(point.id), csv_field(plan.bases[point.base]));
    for (std::size_t i = 0; i < plan.paths.size(); ++i) {
      out += ',' + csv_field(sweep::value_text(point.values[i]));
      if (units[i]) out += ',' + resolved_number(point, plan.paths[i]);
    }
    out += fmt::format(",{}", run.seed);
    const std::optional<analysis::RunSummary>& r = results.at(run.index);
    if (r) {
      const analysis::RunMetrics m =
          analysis::run_metrics(*r, analysis::TableLayout{}.target, plan.target_loss);
      out += ',' + csv_field(r->status);
      for (const analysis::MetricColumn& c : columns) {
        const std::optional<double> v = c.value(m);
        out += ',' + (v ? number(*v) : std::string());
      }
    } else {
      out += ",missing" + std::string(columns.size(), ',');
    }
    out += fmt::format(",{}\n", csv_field(run.directory));
  }
  return out;
}

SweepTally collect_sweep(const SweepPlan& plan, const fs::path& directory, const fs::path& prices) {
  const std::vector<std::optional<analysis::RunSummary>> results =
      load_sweep_results(plan, directory);
  SweepTally tally;
  analysis::TableRequest request;
  request.format = "md";
  request.prices = prices;
  request.prices_is_default = true;
  request.target_loss = plan.target_loss;
  for (const SweepRun& run : plan.runs) {
    const std::optional<analysis::RunSummary>& r = results[run.index];
    if (!r) {
      ++tally.missing;
      continue;
    }
    ++tally.complete;
    if (r->status == "deadlock") ++tally.deadlocked;
    // Each run's own directory, in plan order: the table lists points in the order of the
    // first directory they are found under, so its rows follow the plan (10 s before 100 s).
    request.directories.push_back(directory / run.directory);
  }
  // The table first: a result it cannot read leaves both files as they were.
  const std::string table_text = request.directories.empty() ? "" : analysis::make_table(request);
  input::write_atomically(directory / "runs.csv", runs_csv(plan, results));
  const fs::path table = directory / "table.md";
  if (request.directories.empty()) {
    std::error_code ignored;
    fs::remove(table, ignored);
  } else {
    input::write_atomically(table, table_text);
  }
  return tally;
}

}  // namespace failsim::sweep
