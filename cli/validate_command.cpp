// `failsim validate FILE...`: check scenario files (or sweep files, each point) without running
// them, with the checks a run makes before simulating: the scenario's own, resolve()'s (data
// headers, model size, shards: sim/scenario/resolve.hpp) and SimGrid's in a child process
// (sim/engine/simgrid_probe.hpp: the settings, the platform file, the actors' stacks), with the
// --cfg settings a run would get.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "input/interrupt.hpp"
#include "input/json_input.hpp"
#include "sim/engine/simgrid_probe.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim/scenario/collective/plan.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"
#include "sweep/plan.hpp"

namespace failsim::cli {

namespace {
/// A sweep file rather than a scenario: a JSON object with "scenarios" and no "model" (every
/// sweep has its list of base scenarios; every scenario its model). Anything else is read as a
/// scenario, whose reader names what is wrong.
bool is_sweep(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("scenarios") && !doc.contains("model");
}

/// Ends the command (input::exit_interrupted) when a signal was caught during a check that
/// does not look for one: after `file`, the next file is not begun.
void stop_if_interrupted(const std::string& file) {
  if (const int signal = input::caught_interrupt()) {
    fmt::print(stderr, "failsim validate: interrupted by {} after checking {}\n",
               input::signal_name(signal), file);
    input::exit_interrupted(signal);
  }
}

/// Checks one file and prints "FILE: ok" or its error; returns OK or BAD_INPUT. Throws
/// input::Interrupted when a signal stopped a check.
int validate_file(const std::string& file, const std::vector<std::string>& simgrid_args) {
  try {
    // Read and parsed once; the document says which format it is.
    const nlohmann::json doc =
        input::parse_json_text(input::read_input_file(file, "a readable scenario file"), file);
    if (is_sweep(doc)) {
      // A sweep file is checked as `failsim sweep --dry-run` checks it: every point.
      const sweep::SweepPlan plan = sweep::expand_sweep(sweep::parse_sweep(doc, file));
      fmt::print("{}: ok (a sweep: {} runs of {} points)\n", file, plan.runs.size(),
                 plan.points.size());
      return OK;
    }
    const sim::Scenario scenario = sim::parse_scenario(doc, file);
    sim::ResolvedJob job = sim::resolve(scenario, file);
    sim::probe_simgrid_setup(simgrid_args, scenario, job, file);
    fmt::print("{}: ok\n", file);
    stop_if_interrupted(file);
    // A plan of millions of ranks takes seconds to free: freed with looks for a signal.
    if (job.collective) sim::release_groups(*job.collective);
    return OK;
  } catch (const input::InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return BAD_INPUT;
  }
}
}  // namespace

Command add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* sub =
      app.add_subcommand("validate", "Check scenario or sweep files without running them");
  auto cfg = std::make_shared<std::vector<std::string>>();
  sub->add_option("files", *files, "scenario files")->required();
  sub->add_option("--cfg", *cfg,
                  "SimGrid configuration the run would get, e.g. --cfg=contexts/stack-size:192")
      ->allow_extra_args(false);
  return {sub, [files, cfg] {
            std::vector<std::string> simgrid_args;
            for (const auto& c : *cfg) simgrid_args.push_back("--cfg=" + c);
            try {
              sim::check_simgrid_args(simgrid_args);  // once, not for each file
            } catch (const input::InputError& e) {
              fmt::print(stderr, "failsim validate: {}\n", e.what());
              return static_cast<int>(BAD_INPUT);
            }
            // Ctrl-C while a large job's plan is built ends the command with where it was.
            input::catch_interrupts();
            int status = OK;
            for (const std::string& file : *files) {
              try {
                if (validate_file(file, simgrid_args) != OK) status = BAD_INPUT;
              } catch (const input::Interrupted& e) {
                fmt::print(stderr, "failsim validate: {} (checking {})\n", e.what(), file);
                input::exit_interrupted(e.signal());
              }
              stop_if_interrupted(file);
            }
            return status;
          }};
}

}  // namespace failsim::cli
