// `failsim validate FILE...`: check scenario files without running them, with the checks a run
// makes before simulating: the scenario's own, resolve()'s (data headers, model size, shards:
// sim/scenario/resolve.hpp) and SimGrid loading a platform file in a child process
// (sim/simgrid_probe.hpp).
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/simgrid_probe.hpp"

namespace failsim::cli {

Command add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("validate", "Check scenario files without running them");
  sub->add_option("files", *files, "scenario files")->required();
  return {sub, [files] {
            int status = OK;
            for (const std::string& file : *files) {
              try {
                const sim::Scenario scenario = sim::load_scenario(file);
                sim::resolve(scenario, file);
                sim::probe_simgrid_setup({}, scenario.cluster, file);
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
