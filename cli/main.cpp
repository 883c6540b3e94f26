// failsim: one executable, one subcommand per job. Reads top to bottom: options, dispatch.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"

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
      failsim::cli::add_import_command(app),
  };

  // A bad command line is said in failsim's voice (cli/command_line.hpp), status 2.
  if (const std::optional<int> status = failsim::cli::parse_command_line(app, argc, argv))
    return *status;
  for (const auto& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return failsim::cli::BAD_INPUT;
}
