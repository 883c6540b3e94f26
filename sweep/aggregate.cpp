// runs.csv and table.md of a sweep (see sweep_aggregate.hpp).
#include "sweep/aggregate.hpp"

#include <system_error>

#include <fmt/format.h>

#include "analysis/table.hpp"
#include "input/atomic_file.hpp"

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

/// Shortest text that reads back as the same double, as result files write numbers.
std::string number(double v) { return fmt::format("{}", v); }

}  // namespace

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

std::string runs_csv(const SweepPlan& plan,
                     const std::vector<std::optional<analysis::RunSummary>>& results) {
  std::string out = "index,point,base";
  for (const std::string& path : plan.paths) {
    out += ',';
    out += csv_field(path);
  }
  out +=
      ",seed,status,final_accuracy,end_time_s,failures,updates,updates_rolled_back,"
      "gradients_computed,gradients_applied,gradients_dropped,gradients_lost,"
      "gradients_pending_at_end,gradients_rolled_back,directory\n";
  for (const SweepRun& run : plan.runs) {
    const SweepPoint& point = plan.points[run.point];
    out +=
        fmt::format("{},{},{}", run.index, csv_field(point.id), csv_field(plan.bases[point.base]));
    for (const auto& value : point.values) {
      out += ',';
      out += csv_field(sweep::value_text(value));
    }
    out += fmt::format(",{}", run.seed);
    const std::optional<analysis::RunSummary>& r = results.at(run.index);
    if (r) {
      const analysis::GradientCounts& g = r->gradients;
      out += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{}", csv_field(r->status),
                         r->final_accuracy ? number(*r->final_accuracy) : "", number(r->end_time),
                         analysis::failure_windows(*r).size(), r->updates, r->updates_rolled_back,
                         g.computed, g.applied, g.dropped, g.lost, g.pending_at_end, g.rolled_back);
    } else {
      out += ",missing,,,,,,,,,,,";
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
