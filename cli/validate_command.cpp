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
#include "input/json_input.hpp"
#include "sim/engine/simgrid_probe.hpp"
#include "sim/engine/simgrid_settings.hpp"
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
            int status = OK;
            for (const std::string& file : *files) {
              try {
                // Read and parsed once; the document says which format it is.
                const nlohmann::json doc = input::parse_json_text(
                    input::read_input_file(file, "a readable scenario file"), file);
                if (is_sweep(doc)) {
                  // A sweep file is checked as `failsim sweep --dry-run` checks it: every point.
                  const sweep::SweepPlan plan = sweep::expand_sweep(sweep::parse_sweep(doc, file));
                  fmt::print("{}: ok (a sweep: {} runs of {} points)\n", file, plan.runs.size(),
                             plan.points.size());
                  continue;
                }
                const sim::Scenario scenario = sim::parse_scenario(doc, file);
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
