// `failsim validate FILE...`: check scenario files without running them.
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "sim/scenario.hpp"

namespace failsim::cli {

Command add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("validate", "Check scenario files without running them");
  sub->add_option("files", *files, "scenario files")->required();
  return {sub, [files] {
            int status = OK;
            for (const std::string& file : *files) {
              try {
                sim::load_scenario(file);
                fmt::print("{}: ok\n", file);
              } catch (const sim::ScenarioError& e) {
                fmt::print(stderr, "{}\n", e.what());
                status = BAD_INPUT;
              }
            }
            return status;
          }};
}

}  // namespace failsim::cli
