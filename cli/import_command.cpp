// `failsim import megatron [OPTIONS] -- ARGS...`: a collective scenario from a Megatron-LM command
// line (import/megatron.hpp, docs/cli.md "failsim import megatron"). ARGS come after "--", so
// that CLI11 takes Megatron-LM's hundreds of options as arguments instead of refusing them as
// unknown options of failsim's. The scenario is read back by failsim's own scenario reader before
// it is written, to stdout or -o FILE (replaced, as `failsim table -o` and `report -o` replace
// theirs); the options the importer did not use are listed on stderr.
#include <fmt/core.h>
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "import/megatron.hpp"
#include "input/atomic_file.hpp"
#include "input/input_error.hpp"
#include "input/option_checks.hpp"
#include "sim/scenario/collective/node_preset.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::cli {

namespace {
namespace fs = std::filesystem;

struct ImportOptions {
  std::vector<std::string> args;
  std::string output;      ///< "": stdout
  std::int64_t nodes = 0;  ///< 0: from torchrun's --nnodes
  bool no_failures = false;
  import::MegatronImportOptions import;
};

int run_import(const ImportOptions& o) {
  import::MegatronImportOptions options = o.import;
  try {
    if (options.achieved_fraction > 1.0) {
      throw input::InputError("--achieved-fraction", "",
                              "a fraction of the accelerators' peak in (0, 1]",
                              fmt::format("{}", options.achieved_fraction));
    }
    // A node file goes into the scenario as an absolute path: the scenario may be written to
    // another directory, and its paths are relative to its own.
    if (options.node.ends_with(".json")) {
      options.node = fs::absolute(options.node).lexically_normal().string();
    }
    options.accelerators_per_node = sim::read_node_preset(options.node, "--node").accelerators;
    if (o.nodes > 0) options.nodes = o.nodes;
    options.failures = !o.no_failures;
    const import::MegatronImport imported = import::import_megatron(o.args, options);
    const std::string text = imported.scenario.dump(2) + "\n";
    // What failsim's reader refuses (a name, a count beyond its ranges) is said before anything
    // is written; the plan's checks (memory, placement) are `failsim validate`'s.
    sim::parse_scenario_text(text, "the scenario to write");
    if (!imported.ignored.empty()) {
      fmt::print(stderr, "failsim import megatron: ignored: {}\n",
                 fmt::join(imported.ignored, ", "));
    }
    if (o.output.empty()) {
      fmt::print("{}", text);
    } else {
      input::write_atomically(o.output, text);
    }
    return OK;
  } catch (const input::InputError& e) {
    fmt::print(stderr, "failsim import megatron: {}\n", e.what());
    return BAD_INPUT;
  } catch (const std::runtime_error& e) {  // write_atomically's: the file named, and why
    fmt::print(stderr, "failsim import megatron: {}\n", e.what());
    return OUTPUT_FAILED;
  }
}
}  // namespace

Command add_import_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "import", "Scenarios from other tools' inputs: failsim import megatron -- ARGS...");
  sub->require_subcommand(1);
  CLI::App* megatron = sub->add_subcommand(
      "megatron",
      "A collective scenario from a Megatron-LM command line: torchrun's, pretrain_gpt.py and its "
      "options, after --");
  auto o = std::make_shared<ImportOptions>();
  megatron
      ->add_option("args", o->args,
                   "after --: [torchrun OPTIONS] pretrain_gpt.py OPTIONS, or pretrain_gpt.py's "
                   "OPTIONS alone (then --nodes)")
      ->required();
  megatron->add_option("-o,--output", o->output,
                       "the scenario file, replaced if it exists (default: stdout)");
  megatron
      ->add_option("--nodes", o->nodes,
                   "the job's nodes (default: torchrun's --nnodes; required without torchrun)")
      ->check(input::whole_number<std::int64_t>(1));
  megatron
      ->add_option("--node", o->import.node,
                   "platform.node: a preset of scenarios/cluster/nodes or a node file")
      ->capture_default_str();
  megatron->add_option("--name", o->import.name, "the scenario's name")->capture_default_str();
  megatron
      ->add_option("--achieved-fraction", o->import.achieved_fraction,
                   "workload.achieved_fraction, the kernels' fraction of peak (MFU)")
      ->capture_default_str()
      ->check(input::positive("a fraction of peak"));
  megatron->add_flag(
      "--no-failures", o->no_failures,
      "no failures section (default: Llama 3's interruption rate on every accelerator)");
  return {sub, [o] { return run_import(*o); }};
}

}  // namespace failsim::cli
