// `failsim run SCENARIO [-o DIR]`: simulate one scenario and write its result directory. The
// steps are sim/run_request.hpp's (load, branches, run) and sim/output/result_writer.hpp's;
// this file parses the options, prints the progress line and the summary, and maps errors to
// the exit statuses of docs/cli.md.
#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>

#include "cli/commands.hpp"
#include "input/interrupt.hpp"
#include "input/json_pointer.hpp"
#include "models/idx.hpp"
#include "sim/branching.hpp"
#include "sim/math_pool.hpp"
#include "sim/output/result_writer.hpp"
#include "sim/run_request.hpp"

namespace failsim::cli {

namespace {
struct RunOptions {
  sim::RunRequest request;            ///< but the seed, the output and the settings, from below
  std::optional<std::string> output;  ///< -o DIR as given; unset: the scenario's directory
  std::string seed;                   ///< empty: the scenario's
  std::vector<std::string> settings;  ///< --set POINTER=VALUE, in order
  std::string threads;                ///< empty: every CPU this process may use
  bool quiet = false;
  bool every_step = false;  ///< --simulate-every-step (collective scenarios)
  std::vector<std::string> simgrid_cfg;
  std::vector<std::string> simgrid_log;
  /// argv, for result.json's provenance (docs/result-format.md#provenance).
  std::vector<std::string> command_line;
};

/// More threads than this is a typo, not a machine.
constexpr std::uint64_t MAX_THREADS = 1024;

/// A seed or a count as typed: decimal digits only, within uint64 (CLI11 would clamp an overflow
/// silently).
std::optional<std::uint64_t> parse_unsigned(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

int fail(const std::exception& e, int status) {
  fmt::print(stderr, "failsim run: {}\n", e.what());
  return status;
}

/// Writes the result directory and prints the summary; returns the exit status.
int report(const sim::RunResult& result, const std::string& directory, const RunOptions& o) {
  const bool quiet = o.quiet;
  try {
    sim::write_result_directory(result, directory, o.command_line);
  } catch (const std::exception& e) {
    return fail(e, OUTPUT_FAILED);
  }
  if (!quiet && result.collective) {
    // A collective run: its steps, failures and effective training time (docs/cluster.md).
    const sim::CollectiveSummary& c = *result.collective;
    fmt::print("{}: {} at t = {:.2f} s ({}), {} steps kept of {} completed, {} failures, {} "
               "restarts, ETTR {:.3f}",
               result.scenario.name, sim::to_string(result.status), result.end_time,
               result.stop_reason, c.version, c.counts.steps_completed, c.counts.failures,
               c.counts.restarts, c.ettr);
  } else if (!quiet) {
    fmt::print("{}: {} at t = {:.2f} s ({}), {} updates, {} gradients computed",
               result.scenario.name, sim::to_string(result.status), result.end_time,
               result.stop_reason, result.recorder.updates(), result.recorder.gradients_computed());
  }
  if (!quiet) {
    if (const auto last = sim::closing_evaluation(result))
      fmt::print(", test accuracy {:.4f}", last->test_accuracy);
    fmt::print("\n  results in {} ({:.2f} s wall clock, {:.2f} s of it math)\n", directory,
               result.wall_seconds, result.math_seconds);
  }
  return result.status == sim::RunStatus::DEADLOCK ? RUN_FAILED : OK;
}

int run_scenario(RunOptions o) {
  o.request.seed = o.seed.empty() ? std::optional<std::uint64_t>{} : parse_unsigned(o.seed);
  if (!o.seed.empty() && !o.request.seed) {
    fmt::print(stderr, "failsim run: --seed: expected an integer in [0, 2^64 - 1], found {}\n",
               o.seed);
    return BAD_INPUT;
  }
  const auto threads = o.threads.empty() ? std::optional<std::uint64_t>{static_cast<std::uint64_t>(
                                               sim::MathPool::hardware_threads())}
                                         : parse_unsigned(o.threads);
  if (!threads || *threads < 1 || *threads > MAX_THREADS) {
    fmt::print(stderr, "failsim run: --threads: expected an integer in [1, {}], found {}\n",
               MAX_THREADS, o.threads);
    return BAD_INPUT;
  }
  if (o.output && o.output->empty()) {
    fmt::print(stderr,
               "failsim run: -o/--output: expected a directory, found an empty string "
               "(leave -o out for the scenario's output.directory)\n");
    return BAD_INPUT;
  }
  o.request.output = o.output.value_or("");
  for (const std::string& text : o.settings) {
    const auto setting = input::parse_pointer_setting(text);
    if (!setting) {
      fmt::print(stderr, "failsim run: --set: expected POINTER=VALUE, found {}\n", text);
      return BAD_INPUT;
    }
    o.request.settings.push_back(*setting);
  }
  input::catch_interrupts();  // from here on, Ctrl-C ends the command with a message
  sim::RunSet set;
  try {
    set = sim::load_run_set(o.request);
  } catch (const input::InputError& e) {
    return fail(e, BAD_INPUT);
  } catch (const sim::RunRequestError& e) {
    return fail(e, BAD_INPUT);
  }

  // Every result directory must be writable before anything is simulated.
  for (const std::string& directory : set.directories) {
    try {
      sim::check_result_directory(directory);
    } catch (const std::exception& e) {
      fmt::print(stderr, "failsim run: {}; nothing was simulated\n", e.what());
      return OUTPUT_FAILED;
    }
  }

  sim::RunOptions options;
  options.threads = static_cast<int>(*threads);
  options.simulate_every_step = o.every_step;
  for (const auto& c : o.simgrid_cfg) options.simgrid_args.push_back("--cfg=" + c);
  for (const auto& l : o.simgrid_log) options.simgrid_args.push_back("--log=" + l);
  const bool progress = !o.quiet && isatty(fileno(stderr));
  if (progress) {
    options.on_evaluation = [](const sim::EvalRecord& e) {
      fmt::print(stderr, "\r  t = {:9.2f} s   version {:8}   test accuracy {:.4f}   ", e.time,
                 e.version, e.test_accuracy);
    };
  }
  sim::RunResult result;
  try {
    result = sim::run_set(set, options);
  } catch (const input::InputError& e) {
    return fail(e, BAD_INPUT);
  } catch (const models::DataError& e) {
    return fail(e, BAD_INPUT);
  } catch (const input::Interrupted& e) {
    if (progress) fmt::print(stderr, "\n");
    fmt::print(stderr, "failsim run: {}; nothing was written to {}\n", e.what(),
               fmt::join(set.directories, ", "));
    return 128 + e.signal();
  }
  if (progress && result.member == 0) fmt::print(stderr, "\n");
  int status = report(result, set.directories[result.member], o);
  if (const int signal = input::caught_interrupt(); signal != 0 && status == OK) {
    // Caught while the result directory was written: the writer finished it first.
    fmt::print(stderr, "failsim run: interrupted by {} after the run ended; {} is complete\n",
               input::signal_name(signal), set.directories[result.member]);
    status = 128 + signal;
  }
  // This process's branches (if any) write their own results; the command is done when they are.
  const int branch_status = sim::wait_for_children(result.children);
  if (status == OK) status = branch_status;
  return status;
}
}  // namespace

Command add_run_command(CLI::App& app, std::vector<std::string> command_line) {
  auto options = std::make_shared<RunOptions>();
  options->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand("run", "Simulate a scenario and write its result directory");
  sub->add_option("scenario", options->request.scenario, "scenario file (docs/scenario-format.md)")
      ->required();
  sub->add_option("-o,--output", options->output,
                  "result directory (default: the scenario's output.directory)");
  sub->add_option("--seed", options->seed,
                  "seed of the run instead of the scenario's (recorded in result.json)")
      ->type_name("INTEGER");
  sub->add_option("--threads", options->threads,
                  "threads computing gradients and evaluations (default: every CPU this process "
                  "may use); the results do not depend on it (docs/performance.md)")
      ->type_name("INTEGER");
  sub->add_flag("-q,--quiet", options->quiet, "print nothing but errors");
  sub->add_flag("--simulate-every-step", options->every_step,
                "collective scenarios: simulate the network of every step instead of reusing "
                "a step's times while the network is idle (the results are identical; slower)");
  sub->add_option("--set", options->settings,
                  "set a field of the scenario, e.g. --set /failures/events/0/at=40s (VALUE is "
                  "JSON if it parses as JSON, else a string); repeatable")
      ->allow_extra_args(false);
  sub->add_option("--branch", options->request.branches,
                  "also simulate FILE, a scenario that differs only in its name, description, "
                  "output.directory "
                  "and failures at a time, into DIR (default: its output.directory), sharing the "
                  "simulation up to the first failure that tells them apart; repeatable")
      ->allow_extra_args(false);
  sub->add_option("--cfg", options->simgrid_cfg,
                  "SimGrid configuration, e.g. --cfg=network/model:CM02")
      ->allow_extra_args(false);
  sub->add_option("--log", options->simgrid_log, "SimGrid logging, e.g. --log=failsim.thresh:debug")
      ->allow_extra_args(false);
  return {sub, [options] { return run_scenario(*options); }};
}

}  // namespace failsim::cli
