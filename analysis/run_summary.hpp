// Reading result directories written by `failsim run` (docs/result-format.md) into plain data
// for the tables: result.json's summary and events, and timeseries.csv's evaluations. Nothing
// here knows about tables or statistics; table.hpp computes the metrics.
//
// Unlike a scenario, a result file is our own output, read back: unknown keys and columns are
// ignored (newer writers add fields, e.g. timeseries.csv's gradient columns), but every field
// the tables use is checked for presence and type, and a bad one is a input::InputError
// naming the file, the JSON Pointer (or line and column), the expectation and the found value.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result_format/event_type.hpp"
#include "result_format/time_cause.hpp"

namespace failsim::analysis {

/// One row of timeseries.csv (a scheduled evaluation).
struct EvaluationPoint {
  double time = 0.0;           ///< s (simulated)
  std::int64_t version = 0;    ///< updates
  double test_accuracy = 0.0;  ///< fraction
  /// nat; none when the loss is not finite or the file has no test_loss column (older results).
  std::optional<double> test_loss;
  /// A language model's tokens so far; none for a classifier (an empty field) or without the
  /// column (a result written before it).
  std::optional<double> tokens;
};

/// One event of result.json's `events` list.
struct RunEvent {
  double time = 0.0;  ///< s (simulated)
  /// None for a type this build does not know (a newer writer's): such events are ignored.
  std::optional<result_format::EventType> type;
  std::string subject;
  nlohmann::json details;  ///< an object
  /// Failures (result_format::is_failure): details.down_for in s, +infinity for "forever"; 0 for
  /// other events.
  double down_for = 0.0;
};

/// One entry of result.json's `summary.hosts`.
struct HostSummary {
  std::string host;
  std::string role;  ///< "server" or "worker"
  double recovery_wait_seconds = 0.0;
  double down_seconds = 0.0;
};

/// summary.gradients.
struct GradientCounts {
  std::int64_t computed = 0;
  std::int64_t applied = 0;
  std::int64_t dropped = 0;
  std::int64_t lost = 0;
  std::int64_t pending_at_end = 0;
  std::int64_t rolled_back = 0;  ///< applied, then undone by a recovery
};

/// What the tables need from summary.collective, written by collective runs only
/// (docs/result-format.md#summarycollective).
struct CollectiveRun {
  bool real_math = false;  ///< math "real"; "none" for a time-only run
  std::int64_t ranks = 0;
  std::int64_t nodes = 0;
  /// spares.nodes: hot spares billed like the job's nodes (0 when the result has no `spares`,
  /// as a result of a build before spares).
  std::int64_t spare_nodes = 0;
  double ettr = 0.0;  ///< productive / end_time
  /// time.<cause>, s, by result_format::TimeCause; they sum to end_time.
  std::array<double, result_format::TIME_CAUSES> seconds{};
  std::int64_t steps_completed = 0;
  std::int64_t steps_rolled_back = 0;
  std::int64_t steps_kept = 0;
  double tokens_per_step = 0.0;  ///< 0 without a transformer to pose as
  double tokens_kept = 0.0;
  double samples_per_step = 0.0;
  double samples_kept = 0.0;
  std::int64_t failures = 0;
  std::int64_t restarts = 0;
  std::int64_t checkpoints = 0;
};

/// What the tables need from one result directory.
struct RunSummary {
  std::filesystem::path directory;       ///< as found (argument, or argument + relative path)
  std::string name;                      ///< scenario.name: the configuration
  std::uint64_t seed = 0;                ///< scenario.seed
  std::string status;                    ///< summary.status
  double end_time = 0.0;                 ///< summary.end_time, s
  std::optional<double> final_accuracy;  ///< summary.final.test_accuracy; none if final is null
  /// summary.final.test_loss, nat: a language model's validation loss (a classifier's
  /// cross-entropy); none when final is null, the loss null (not finite) or absent (a result
  /// written before the loss was).
  std::optional<double> final_loss;
  /// scenario.model.kind "transformer": a language model, whose loss the tables show by default.
  bool language_model = false;
  GradientCounts gradients;
  std::int64_t updates = 0;
  std::int64_t updates_rolled_back = 0;
  std::vector<HostSummary> hosts;
  std::vector<RunEvent> events;
  std::vector<EvaluationPoint> evaluations;  ///< timeseries.csv, in time order
  std::optional<CollectiveRun> collective;   ///< summary.collective; none for a PS run
};

/// Reads `directory`/result.json and `directory`/timeseries.csv. Throws input::InputError.
RunSummary load_run(const std::filesystem::path& directory);

/// Parses result.json text into `run` (all but `directory` and `evaluations`); `file_label`
/// names the file in errors. Throws input::InputError.
void parse_result_json(const std::string& text, const std::string& file_label, RunSummary& run);

/// Parses timeseries.csv text: columns found by header name (time, version, test_accuracy are
/// required; test_loss and tokens read when present, a number each, tokens possibly empty;
/// others ignored), every row with as many fields as the header, times non-decreasing. Throws
/// input::InputError with the line and column.
std::vector<EvaluationPoint> parse_timeseries(const std::string& text,
                                              const std::string& file_label);

/// The result directories under `roots`, in order: a root holding result.json is itself one;
/// any other directory is searched recursively (without following symbolic links, without
/// descending into a result directory), its finds sorted by path. A directory reached twice
/// (the same canonical path) is listed once, at its first place. Each is returned with the
/// index of the first root it was found under. Throws input::InputError for a root that is not
/// a directory or holds no result directory.
struct FoundDirectory {
  std::filesystem::path path;
  std::size_t root_index = 0;
};
std::vector<FoundDirectory> find_result_directories(
    const std::vector<std::filesystem::path>& roots);

}  // namespace failsim::analysis
