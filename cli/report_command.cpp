// `failsim report DIR [-o FILE] [--title TEXT]`: one self-contained HTML page of a run, a
// comparison or a sweep (docs/plots.md#report-one-html-page). The table is `failsim table`'s,
// computed here with the analysis library; analysis/report.py draws the figures with plot.py's
// code and writes the page. This file checks DIR, makes the table and runs the script.
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "analysis/table.hpp"
#include "cli/commands.hpp"
#include "cli/python_script.hpp"

#ifndef FAILSIM_DEFAULT_PRICES
#error "FAILSIM_DEFAULT_PRICES (the source tree's analysis/prices.json) must be defined"
#endif

namespace failsim::cli {

namespace {
namespace fs = std::filesystem;

struct ReportOptions {
  std::string directory;
  std::string output;
  std::string title;
};

/// A temporary file removed when it goes out of scope.
struct TemporaryFile {
  std::string path;
  ~TemporaryFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

int make_report(const ReportOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.directory, ec)) {
    fmt::print(stderr,
               "failsim report: {}: expected a result directory, a directory holding them or a "
               "sweep directory, found {}\n",
               o.directory, fs::exists(o.directory, ec) ? "a file" : "nothing");
    return BAD_INPUT;
  }
  // A sweep's table is that of its runs (as the sweep's own table.md).
  const bool sweep = fs::is_regular_file(fs::path(o.directory) / "sweep.json", ec);
  analysis::TableRequest request;
  request.directories.push_back(sweep ? fs::path(o.directory) / "runs" : fs::path(o.directory));
  request.format = "md";
  request.prices_is_default = true;
  request.prices = FAILSIM_DEFAULT_PRICES;
  const auto [table, error] = analysis::make_table_or_error(request);
  if (error) {
    fmt::print(stderr, "failsim report: {}\n", *error);
    return BAD_INPUT;
  }

  TemporaryFile file;
  std::string pattern = (fs::temp_directory_path() / "failsim-report-table-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    fmt::print(stderr, "failsim report: {}: cannot create a temporary file\n", pattern);
    return OUTPUT_FAILED;
  }
  ::close(fd);
  file.path = pattern;
  std::ofstream(file.path, std::ios::binary) << table;

  const std::string output =
      o.output.empty() ? (fs::path(o.directory) / "report.html").string() : o.output;
  std::vector<std::string> args{o.directory, "--table", file.path, "-o", output};
  if (!o.title.empty()) {
    args.emplace_back("--title");
    args.push_back(o.title);
  }
  return run_analysis_script("report.py", "failsim report", args);
}
}  // namespace

Command add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "Write one self-contained HTML page (tables and figures) of a run, a comparison "
      "or a sweep");
  sub->add_option("dir", options->directory,
                  "a result directory, a directory holding several, or a sweep directory")
      ->required();
  sub->add_option("-o,--output", options->output, "the HTML file (default: DIR/report.html)");
  sub->add_option("--title", options->title, "the page's title (default: what DIR holds)");
  return {sub, [options] { return make_report(*options); }};
}

}  // namespace failsim::cli
