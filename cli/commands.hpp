// Each subcommand registers its options on the CLI11 app and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace failsim::cli {

/// Exit statuses (docs/cli.md): 0 success, 1 the run failed (e.g. a simulation deadlock),
/// 2 bad input (scenario, option or data file), 3 an output could not be written.
enum ExitCode : int { OK = 0, RUN_FAILED = 1, BAD_INPUT = 2, OUTPUT_FAILED = 3 };

/// A registered subcommand and what runs it once its options are parsed.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

/// `failsim run`: simulate a scenario, write its result directory; `command_line` (argv) is
/// recorded in result.json.
Command add_run_command(CLI::App& app, std::vector<std::string> command_line);

/// `failsim validate`: check scenario files.
Command add_validate_command(CLI::App& app);

/// `failsim train`: plain sequential SGD on a data set, no simulation (a quick math check).
Command add_train_command(CLI::App& app);

/// `failsim table`: mean and 95% CI over seeds of result directories' metrics.
Command add_table_command(CLI::App& app);

/// `failsim plot`: figures of result directories (runs analysis/plot.py with matplotlib).
Command add_plot_command(CLI::App& app);

/// `failsim report`: one self-contained HTML page of a run, a comparison or a sweep.
Command add_report_command(CLI::App& app);

/// `failsim trace fit`: per-node MTBF, Weibull and repair-time fits of a fault trace.
Command add_trace_command(CLI::App& app);

/// `failsim import megatron`: a collective scenario from a Megatron-LM command line.
Command add_import_command(CLI::App& app);

/// `failsim sweep`: a sweep file's runs as parallel processes, resumable; runs.csv, table.md.
Command add_sweep_command(CLI::App& app);

}  // namespace failsim::cli
