// `failsim table DIR... [--format md|csv|latex] [-o FILE]`: the mean and 95% confidence
// interval over seeds of each configuration's metrics (docs/tables.md). All the work is in
// analysis/table.hpp; this file reads the options and writes the output atomically.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "analysis/table.hpp"
#include "cli/commands.hpp"
#include "input/atomic_file.hpp"
#include "input/option_checks.hpp"

#ifndef FAILSIM_DEFAULT_PRICES
#error "FAILSIM_DEFAULT_PRICES (the source tree's analysis/prices.json) must be defined"
#endif

namespace failsim::cli {

namespace {
namespace fs = std::filesystem;

struct TableOptions {
  std::vector<std::string> directories;
  std::string format = "md";
  std::string output;
  double target = 0.70;
  std::optional<double> target_loss;
  std::string prices;
  std::string plan;
  std::size_t max_failures = 3;
  bool per_run = false;
  std::vector<std::string> columns;
};

int make_table(const TableOptions& o) {
  analysis::TableRequest request;
  for (const auto& d : o.directories) request.directories.emplace_back(d);
  request.format = o.format;
  request.target = o.target;
  request.target_loss = o.target_loss;
  request.prices_is_default = o.prices.empty();
  request.prices = o.prices.empty() ? fs::path(FAILSIM_DEFAULT_PRICES) : fs::path(o.prices);
  request.plan = o.plan;
  request.max_failures = o.max_failures;
  request.per_run = o.per_run;
  request.columns = o.columns;
  const auto [table, error] = analysis::make_table_or_error(request);
  if (error) {
    fmt::print(stderr, "failsim table: {}\n", *error);
    return BAD_INPUT;
  }
  if (o.output.empty() || o.output == "-") {
    fmt::print("{}", table);
    return OK;
  }
  try {
    input::write_atomically(o.output, table);
  } catch (const std::exception& e) {
    fmt::print(stderr, "failsim table: {}\n", e.what());
    return OUTPUT_FAILED;
  }
  return OK;
}
}  // namespace

Command add_table_command(CLI::App& app) {
  auto options = std::make_shared<TableOptions>();
  CLI::App* sub = app.add_subcommand(
      "table", "Tabulate result directories: mean and 95% CI over seeds per configuration");
  sub->add_option("dirs", options->directories,
                  "result directories, or directories searched recursively for them")
      ->required();
  sub->add_option("--format", options->format, "md (default), csv or latex");
  sub->add_option("-o,--output", options->output,
                  "output file, written atomically (default: stdout)");
  sub->add_option("--target", options->target, "target test accuracy in (0, 1] (default 0.70)");
  sub->add_option_function<double>(
      "--target-loss", [options](const double& loss) { options->target_loss = loss; },
      "target validation loss in nat, > 0: the time and tokens to it (default: none)");
  sub->add_option("--prices", options->prices,
                  "price file (default: analysis/prices.json of the source tree)");
  sub->add_option("--plan", options->plan,
                  "pricing plan of the price file (default: its default_plan)");
  sub->add_option("--failures", options->max_failures,
                  "at most this many per-failure column triples (default 3)")
      ->check(input::whole_number<std::size_t>(0));
  sub->add_option("--columns", options->columns,
                  "the metric columns, by CSV key, in this order (comma-separated), or 'all' "
                  "(default: those of docs/tables.md's default set; every column in CSV)")
      ->delimiter(',');
  sub->add_flag("--per-run", options->per_run, "CSV: one row per run instead of per configuration");
  return {sub, [options] { return make_table(*options); }};
}

}  // namespace failsim::cli
