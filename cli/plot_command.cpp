// `failsim plot DIR... [-o OUTDIR] [options]`: figures of result directories, drawn by
// analysis/plot.py with matplotlib (docs/plots.md). This file only forwards the arguments
// untouched: the script's argparse is the one list of options, so `failsim plot --help` is the
// script's help and nothing is kept in sync by hand.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/python_script.hpp"

namespace failsim::cli {

Command add_plot_command(CLI::App& app) {
  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Draw figures (accuracy, gradients, utilisation, timeline, time, loss, sweep) of results");
  // Every argument, --help included, goes to the script untouched.
  sub->set_help_flag();
  sub->prefix_command();
  return {sub, [sub, args] {
            *args = sub->remaining();
            return run_analysis_script("plot.py", "failsim plot", *args);
          }};
}

}  // namespace failsim::cli
