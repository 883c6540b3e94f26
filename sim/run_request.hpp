// What `failsim run` is asked (docs/cli.md), as plain values, and the steps that do it: load
// the scenario and each --branch scenario alike (--set on their JSON as written, then --seed),
// give each its own result directory, and simulate them together (sim/ps/branching.hpp). Writing
// each process's result directory is sim/output/result_writer.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "input/json_pointer.hpp"
#include "sim/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

struct RunRequest {
  std::string scenario;                         ///< the scenario file, as given
  std::string output;                           ///< its result directory; "" for output.directory
  std::optional<std::uint64_t> seed;            ///< every scenario's seed instead of its own
  std::vector<input::PointerSetting> settings;  ///< set in every scenario's JSON, in order
  std::vector<std::string> branches;            ///< "FILE" or "FILE=DIR", as --branch takes them
};

/// The request's scenarios cannot make one run (exit status 2): a malformed --branch, or two
/// scenarios with one result directory. what() names the option, the expectation and the found
/// value.
class RunRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The scenarios of a request, index for index: [0] the scenario, then the branches in order.
struct RunSet {
  std::vector<Scenario> scenarios;
  std::vector<std::string> files;        ///< their files, as given (the labels of messages)
  std::vector<std::string> directories;  ///< their result directories, no two the same
  /// The --set settings they were loaded with: an error at a place one of them set is the
  /// setting's (input::blamed_setting).
  std::vector<input::PointerSetting> settings;
};

/// Loads the request's scenarios, each branch after the ones before it. Throws input::InputError
/// for a bad scenario file or setting, RunRequestError for a malformed branch or a shared result
/// directory ("a", "a/" and "./a" are one).
RunSet load_run_set(const RunRequest& request);

/// Simulates the set with `options` (its file label and branches are the set's). Each process
/// that returns holds one scenario's result, `directories[result.member]` its directory, and
/// must wait for RunResult::children. Throws as run() does.
RunResult run_set(const RunSet& set, RunOptions options);

/// The checks run_set makes before it simulates (sim::check_run), with the same errors, and
/// nothing else: `failsim run --dry-run`.
CheckedRun check_run_set(const RunSet& set, RunOptions options);

/// The evaluation a run ends with: its final evaluation if it has one, else its last scheduled
/// one, else none.
std::optional<EvalRecord> closing_evaluation(const RunResult& result);

}  // namespace failsim::sim
