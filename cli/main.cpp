// failsim: one executable, one subcommand per job. Reads top to bottom: options, dispatch.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <vector>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"failsim: discrete-event simulation of parallel ML training under failures"};
  app.set_version_flag("--version", "failsim " FAILSIM_VERSION);
  app.require_subcommand(1);

  const std::vector<failsim::cli::Command> commands{
      failsim::cli::add_run_command(app),    failsim::cli::add_validate_command(app),
      failsim::cli::add_train_command(app),  failsim::cli::add_plot_command(app),
      failsim::cli::add_table_command(app),  failsim::cli::add_sweep_command(app),
      failsim::cli::add_report_command(app),
  };

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
