// failsim: one executable, one subcommand per job. Reads top to bottom: options, dispatch.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "input/object_reader.hpp"

int main(int argc, char** argv) {
  CLI::App app{"failsim: discrete-event simulation of parallel ML training under failures"};
  app.set_version_flag("--version", "failsim " FAILSIM_VERSION);
  app.require_subcommand(1);

  const std::vector<failsim::cli::Command> commands{
      failsim::cli::add_run_command(app, std::vector<std::string>(argv, argv + argc)),
      failsim::cli::add_validate_command(app),
      failsim::cli::add_train_command(app),
      failsim::cli::add_plot_command(app),
      failsim::cli::add_table_command(app),
      failsim::cli::add_sweep_command(app),
      failsim::cli::add_report_command(app),
      failsim::cli::add_trace_command(app),
  };

  // CLI11 would take an unknown first word for a stray argument and say "A subcommand is
  // required": name it, suggest the closest subcommand, list them all.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto& command : commands) names.push_back(command.app->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string hint = failsim::input::closest_match(
          argv[1], std::vector<std::string_view>(names.begin(), names.end()));
      fmt::print(stderr, "failsim: expected a subcommand ({}), found unknown subcommand '{}'{}\n",
                 fmt::join(names, ", "), argv[1],
                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
      return failsim::cli::BAD_INPUT;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? failsim::cli::OK : failsim::cli::BAD_INPUT;
  }
  for (const auto& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return failsim::cli::BAD_INPUT;
}
