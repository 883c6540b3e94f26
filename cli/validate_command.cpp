// `failsim validate FILE...`: check scenario files (or sweep files, each point) without running
// them, with the checks a run makes before simulating: the scenario's own, resolve()'s (data
// headers, model size, shards: sim/scenario/resolve.hpp) and SimGrid's in a child process
// (sim/simgrid_probe.hpp: the settings, the platform file, the actors' stacks), with the --cfg
// settings a run would get.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "input/json_input.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/simgrid_probe.hpp"
#include "sweep/plan.hpp"

namespace failsim::cli {

namespace {
/// A sweep file rather than a scenario: a JSON object with "scenarios" and no "model" (every
/// sweep has its list of base scenarios; every scenario its model). Anything else, unreadable
/// files included, is read as a scenario, whose reader names what is wrong.
bool is_sweep_file(const std::string& file) {
  try {
    const nlohmann::json doc =
        input::parse_json_text(input::read_input_file(file, "a readable scenario file"), file);
    return doc.is_object() && doc.contains("scenarios") && !doc.contains("model");
  } catch (const input::InputError&) {
    return false;
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
            int status = OK;
            for (const std::string& file : *files) {
              try {
                if (is_sweep_file(file)) {
                  // A sweep file is checked as `failsim sweep --dry-run` checks it: every point.
                  const sweep::SweepPlan plan = sweep::expand_sweep(sweep::load_sweep(file));
                  fmt::print("{}: ok (a sweep: {} runs of {} points)\n", file, plan.runs.size(),
                             plan.points.size());
                  continue;
                }
                const sim::Scenario scenario = sim::load_scenario(file);
                const sim::ResolvedJob job = sim::resolve(scenario, file);
                sim::probe_simgrid_setup(simgrid_args, scenario, job, file);
                fmt::print("{}: ok\n", file);
              } catch (const input::InputError& e) {
                fmt::print(stderr, "{}\n", e.what());
                status = BAD_INPUT;
              }
            }
            return status;
          }};
}

}  // namespace failsim::cli
