// The scenario document: parse_scenario(), load_scenario() and to_json(). One reader per section
// (sim/scenario/<section>.cpp, declared in sections.hpp), in file order except that `recovery`
// comes before `cluster` and `failures` (its strategy decides how many server hosts there are,
// whether a storage host exists, and which targets a failure may hit, so those sections check
// against it as they are read), then the checks that involve several sections (checks.cpp). Every
// default lives in its section's file, next to the read that applies it (and in the docs page and
// the schema, which the tests compare against this parser).
#include "sim/scenario/scenario.hpp"

#include <fmt/format.h>

#include "input/json_input.hpp"
#include "input/object_reader.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
using namespace failsim::sim::detail;

namespace detail {
namespace {
const Choices<Protocol> PROTOCOLS{{"parameter-server", Protocol::PARAMETER_SERVER},
                                  {"collective", Protocol::COLLECTIVE}};
}  // namespace

void read_common_header(const ObjectReader& top, Scenario& s) {
  // "$schema" points editors at scenarios/schema.json; it does not change the run.
  top.string_or("$schema", "");
  s.protocol = top.choice_or("protocol", s.protocol, PROTOCOLS);
  s.name = top.string("name");
  if (!is_valid_name(s.name)) {
    top.at("name").fail(
        "a name of letters, digits, '.', '_' and '-', not starting with '.' or '-', of at most "
        "255 bytes (it names the default output directory)",
        describe_found(*top.find("name")));
  }
  if (const nlohmann::json* d = top.find("description")) {
    if (!d->is_string()) top.at("description").fail("a string", describe_found(*d));
    s.description = d->get<std::string>();
  }
  s.seed = top.uint64_or("seed", s.seed);
}
}  // namespace detail

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file_label) {
  const JsonLocation root{file_label, ""};
  // The protocol decides which sections there are: a collective scenario has its own reader.
  if (doc.is_object() && doc.contains("protocol")) {
    const Protocol protocol = read_choice(doc.at("protocol"), root.child("protocol"), PROTOCOLS);
    if (protocol == Protocol::COLLECTIVE) return parse_collective_scenario(doc, file_label);
  } else if (doc.is_object()) {
    // A collective scenario whose `protocol` was forgotten would otherwise be told that its
    // sections are unknown keys of the parameter-server format: name what is missing instead.
    for (const char* section : {"platform", "layout", "workload"}) {
      if (!doc.contains(section)) continue;
      throw InputError(file_label, "/protocol",
                       fmt::format("\"collective\" for a scenario with a '{}' section (a section "
                                   "of the collective protocol, docs/cluster.md) (required)",
                                   section),
                       "nothing");
    }
  }
  const ObjectReader top(
      doc, root,
      {"$schema", "protocol", "name", "description", "seed", "data", "model", "optimizer",
       "cluster", "consistency", "timing", "evaluation", "stop", "failures", "recovery", "output"});
  Scenario s;
  read_common_header(top, s);
  s.data = read_data(top, file_label);
  // The optimizer first: its batch size bounds the model's gradient parts.
  s.optimizer = read_optimizer(top);
  s.model = read_model(top, s.optimizer.batch_size);
  // The strategy before the cluster and the failures: it decides how many server hosts there
  // are, whether there is a storage host, and which targets a failure may hit.
  s.recovery = read_recovery(top);
  s.cluster = read_cluster(top, file_label, s.recovery);
  s.consistency = read_consistency(top);
  s.timing = read_timing(top);
  s.evaluation = read_evaluation(top);
  s.stop = read_stop(top);
  s.failures = read_failures(top, s.cluster, s.recovery.kind());
  s.output = read_output(top, s.name);
  check_between_sections(s, root);
  return s;
}

Scenario parse_scenario_text(const std::string& text, const std::string& file_label) {
  return parse_scenario(parse_json_text(text, file_label), file_label);
}

Scenario load_scenario(const std::string& path) {
  return parse_scenario_text(read_input_file(path, "a readable scenario file"), path);
}

nlohmann::json to_json(const Scenario& s) {
  // A parameter-server scenario does not write its protocol: it is the default, and its resolved
  // scenario stays what it was before there were two.
  if (s.protocol == Protocol::COLLECTIVE) return collective_to_json(s);
  return nlohmann::json{
      {"name", s.name},
      {"description", s.description},
      {"seed", s.seed},
      {"data", data_to_json(s.data)},
      {"model", model_to_json(s.model)},
      {"optimizer", optimizer_to_json(s.optimizer)},
      {"cluster", cluster_to_json(s.cluster, s.recovery)},
      {"consistency", consistency_to_json(s.consistency)},
      {"timing", timing_to_json(s.timing)},
      {"evaluation", evaluation_to_json(s.evaluation)},
      {"stop", stop_to_json(s.stop)},
      {"failures", failures_to_json(s.failures)},
      {"recovery", recovery_to_json(s.recovery)},
      {"output", output_to_json(s.output)},
  };
}

}  // namespace failsim::sim
