// The scenarios of one `failsim run` and their result directories (see run_request.hpp).
#include "sim/run_request.hpp"

#include <fmt/core.h>

#include <algorithm>
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
    try {
      s = parse_scenario(doc, file);
    } catch (const input::InputError& e) {
      // A value a --set put there is the --set's to answer for, not the file's.
      if (auto blamed = input::blamed_setting(e, request.settings)) throw *blamed;
      throw;
    }
  }
  if (request.seed) s.seed = *request.seed;
  return s;
}
}  // namespace

RunSet load_run_set(const RunRequest& request) {
  RunSet set;
  set.settings = request.settings;
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

namespace {
/// `options` for the set: its file labels and branches.
RunOptions with_set(const RunSet& set, RunOptions options) {
  options.file_label = set.files.front();
  options.branches.assign(set.scenarios.begin() + 1, set.scenarios.end());
  options.branch_labels.assign(set.files.begin() + 1, set.files.end());
  return options;
}

/// Calls `step`; an InputError at a place of a scenario file that a --set set is the setting's.
template <class Step>
auto blaming_settings(const RunSet& set, Step step) {
  try {
    return step();
  } catch (const input::InputError& e) {
    const bool of_a_file =
        std::find(set.files.begin(), set.files.end(), e.file()) != set.files.end();
    if (of_a_file) {
      if (auto blamed = input::blamed_setting(e, set.settings)) throw *blamed;
    }
    throw;
  }
}
}  // namespace

RunResult run_set(const RunSet& set, RunOptions options) {
  const RunOptions o = with_set(set, std::move(options));
  return blaming_settings(set, [&] { return run(set.scenarios.front(), o); });
}

CheckedRun check_run_set(const RunSet& set, RunOptions options) {
  const RunOptions o = with_set(set, std::move(options));
  return blaming_settings(set, [&] { return check_run(set.scenarios.front(), o); });
}

std::optional<EvalRecord> closing_evaluation(const RunResult& result) {
  if (result.final_evaluation) return result.final_evaluation;
  if (result.recorder.evaluations().empty()) return std::nullopt;
  return result.recorder.evaluations().back();
}

}  // namespace failsim::sim
