// `failsim run SCENARIO [-o DIR]`: simulate one scenario and write its result directory.
#include <fmt/core.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>

#include "cli/commands.hpp"
#include "models/idx.hpp"
#include "sim/json_input.hpp"
#include "sim/result_writer.hpp"
#include "sim/run.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep.hpp"

namespace failsim::cli {

namespace {
struct RunOptions {
  std::string scenario;
  std::string output;
  std::string seed;  ///< empty: the scenario's
  bool quiet = false;
  std::vector<std::string> settings;  ///< --set POINTER=VALUE, in order
  std::vector<std::string> simgrid_cfg;
  std::vector<std::string> simgrid_log;
};

/// A seed as typed: decimal digits only, within uint64 (CLI11 would clamp an overflow silently).
std::optional<std::uint64_t> parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

int run_scenario(const RunOptions& o) {
  const auto seed = o.seed.empty() ? std::optional<std::uint64_t>{} : parse_seed(o.seed);
  if (!o.seed.empty() && !seed) {
    fmt::print(stderr, "failsim run: --seed: expected an integer in [0, 2^64 - 1], found {}\n",
               o.seed);
    return BAD_INPUT;
  }
  std::vector<sim::PointerSetting> settings;
  for (const std::string& text : o.settings) {
    const auto setting = sim::parse_pointer_setting(text);
    if (!setting) {
      fmt::print(stderr, "failsim run: --set: expected POINTER=VALUE, found {}\n", text);
      return BAD_INPUT;
    }
    settings.push_back(*setting);
  }
  sim::Scenario scenario;
  try {
    if (settings.empty()) {
      scenario = sim::load_scenario(o.scenario);
    } else {
      // The substitution of sweep files (sim/sweep.hpp), on the scenario's JSON as written.
      nlohmann::json doc = sim::parse_json_text(
          sim::read_input_file(o.scenario, "a readable scenario file"), o.scenario);
      for (const auto& setting : settings) sim::apply_setting(doc, setting, o.scenario);
      scenario = sim::parse_scenario(doc, o.scenario);
    }
    if (seed) scenario.seed = *seed;
  } catch (const sim::ScenarioError& e) {
    fmt::print(stderr, "failsim run: {}\n", e.what());
    return BAD_INPUT;
  }
  const std::string directory = !o.output.empty() ? o.output : scenario.output.directory;

  sim::RunOptions options;
  options.file_label = o.scenario;
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
    result = sim::run(scenario, options);
  } catch (const sim::ScenarioError& e) {
    fmt::print(stderr, "failsim run: {}\n", e.what());
    return BAD_INPUT;
  } catch (const models::DataError& e) {
    fmt::print(stderr, "failsim run: {}\n", e.what());
    return BAD_INPUT;
  }
  if (progress) fmt::print(stderr, "\n");

  try {
    sim::write_result_directory(result, directory);
  } catch (const std::exception& e) {
    fmt::print(stderr, "failsim run: {}\n", e.what());
    return OUTPUT_FAILED;
  }
  const auto& final_eval =
      result.final_evaluation ? result.final_evaluation
      : result.recorder.evaluations().empty()
          ? std::optional<sim::EvalRecord>{}
          : std::optional<sim::EvalRecord>{result.recorder.evaluations().back()};
  if (!o.quiet) {
    fmt::print("{}: {} at t = {:.2f} s ({}), {} updates, {} gradients computed", scenario.name,
               sim::to_string(result.status), result.end_time, result.stop_reason,
               result.recorder.updates(), result.recorder.gradients_computed());
    if (final_eval) fmt::print(", test accuracy {:.4f}", final_eval->test_accuracy);
    fmt::print("\n  results in {} ({:.2f} s wall clock, {:.2f} s of it math)\n", directory,
               result.wall_seconds, result.math_seconds);
  }
  return result.status == sim::RunStatus::DEADLOCK ? RUN_FAILED : OK;
}
}  // namespace

Command add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Simulate a scenario and write its result directory");
  sub->add_option("scenario", options->scenario, "scenario file (docs/scenario-format.md)")
      ->required();
  sub->add_option("-o,--output", options->output,
                  "result directory (default: the scenario's output.directory)");
  sub->add_option("--seed", options->seed,
                  "seed of the run instead of the scenario's (recorded in result.json)");
  sub->add_flag("-q,--quiet", options->quiet, "print nothing but errors");
  sub->add_option("--set", options->settings,
                  "set a field of the scenario, e.g. --set /failures/events/0/at=40s (VALUE is "
                  "JSON if it parses as JSON, else a string); repeatable")
      ->allow_extra_args(false);
  sub->add_option("--cfg", options->simgrid_cfg,
                  "SimGrid configuration, e.g. --cfg=network/model:CM02")
      ->allow_extra_args(false);
  sub->add_option("--log", options->simgrid_log, "SimGrid logging, e.g. --log=failsim.thresh:debug")
      ->allow_extra_args(false);
  return {sub, [options] { return run_scenario(*options); }};
}

}  // namespace failsim::cli
