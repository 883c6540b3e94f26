// The scenarios of one `failsim run` and their result directories (see run_request.hpp).
#include "sim/run_request.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <utility>

#include <nlohmann/json.hpp>

#include "input/json_input.hpp"

namespace failsim::sim {

namespace {
/// A scenario file with the request's settings and seed.
Scenario load(const std::string& file, const RunRequest& request) {
  Scenario s;
  if (request.settings.empty()) {
    s = load_scenario(file);
  } else {
    // The substitution of sweep files (sweep/plan.hpp), on the scenario's JSON as written.
    nlohmann::json doc =
        input::parse_json_text(input::read_input_file(file, "a readable scenario file"), file);
    for (const auto& setting : request.settings) input::apply_setting(doc, setting, file);
    s = parse_scenario(doc, file);
  }
  if (request.seed) s.seed = *request.seed;
  return s;
}
}  // namespace

RunSet load_run_set(const RunRequest& request) {
  RunSet set;
  set.scenarios.push_back(load(request.scenario, request));
  set.files.push_back(request.scenario);
  set.directories.push_back(!request.output.empty() ? request.output
                                                    : set.scenarios.back().output.directory);
  for (const std::string& text : request.branches) {
    const auto equals = text.find('=');
    const std::string file = text.substr(0, equals);
    if (file.empty() || (equals != std::string::npos && equals + 1 == text.size())) {
      throw RunRequestError(fmt::format("--branch: expected FILE or FILE=DIR, found {}", text));
    }
    set.scenarios.push_back(load(file, request));
    set.files.push_back(file);
    set.directories.push_back(equals == std::string::npos ? set.scenarios.back().output.directory
                                                          : text.substr(equals + 1));
  }
  // "a", "a/" and "./a" are one directory.
  const auto same = [](const std::string& d) {
    return (std::filesystem::path(d) / "").lexically_normal();
  };
  for (std::size_t i = 0; i < set.directories.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (same(set.directories[i]) == same(set.directories[j])) {
        throw RunRequestError(fmt::format(
            "--branch: expected a result directory of its own for each scenario, found {} for "
            "both {} and {}",
            set.directories[i], set.files[j], set.files[i]));
      }
    }
  }
  return set;
}

RunResult run_set(const RunSet& set, RunOptions options) {
  options.file_label = set.files.front();
  options.branches.assign(set.scenarios.begin() + 1, set.scenarios.end());
  options.branch_labels.assign(set.files.begin() + 1, set.files.end());
  return run(set.scenarios.front(), options);
}

std::optional<EvalRecord> closing_evaluation(const RunResult& result) {
  if (result.final_evaluation) return result.final_evaluation;
  if (result.recorder.evaluations().empty()) return std::nullopt;
  return result.recorder.evaluations().back();
}

}  // namespace failsim::sim
