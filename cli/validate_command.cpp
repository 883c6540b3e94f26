// `failsim validate FILE...`: check scenario files without running them, with the checks a run
// makes before simulating: the scenario's own, resolve()'s (data headers, model size, shards:
// sim/scenario/resolve.hpp) and SimGrid's in a child process (sim/simgrid_probe.hpp: the
// settings, the platform file, the actors' stacks), with the --cfg settings a run would get.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/simgrid_probe.hpp"

namespace failsim::cli {

Command add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("validate", "Check scenario files without running them");
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
