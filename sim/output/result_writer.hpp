// Writes a run's result directory (docs/result-format.md): result.json, timeseries.csv,
// events.csv. Each file is written to a temporary name and renamed, so a reader never sees a
// half-written file; result.json is removed first and written last, so a directory holding a
// result.json holds one run's files and no other's (docs/result-format.md, "A complete result
// directory").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/run_result.hpp"

namespace failsim::sim {

/// The whole of result.json for a run started by `command_line` (argv; empty for a library
/// call). Everything but the top-level keys of result_format::NOT_REPRODUCED_KEYS
/// ("provenance", "wall_clock") is a pure function of the scenario and its seed.
nlohmann::json result_json(const RunResult& result, const std::vector<std::string>& command_line);

/// SHA-256 of the resolved scenario (result.json's scenario_sha256): over the bytes of
/// to_json(scenario) written as compact JSON (nlohmann::json::dump() without indent: no spaces,
/// keys sorted, numbers as in result.json), which is also what result.json's "scenario" object
/// gives when read back and dumped so.
std::string scenario_sha256(const Scenario& scenario);

/// summary.best: the scheduled evaluation a run did best at, the earliest on ties. A language
/// model's (`language_model`: a model of text windows) is the one with the lowest validation
/// loss, what its users judge it by; a classifier's the one with the highest test accuracy. None
/// without an evaluation, or for a language model without a finite loss.
const EvalRecord* best_evaluation(const std::vector<EvalRecord>& evaluations, bool language_model);

/// timeseries.csv: one row per evaluation.
std::string timeseries_csv(const RunResult& result);

/// events.csv: one row per event.
std::string events_csv(const RunResult& result);

/// intervals.csv: one row per recorded interval of a host's time, by begin time.
std::string intervals_csv(const RunResult& result);

/// Creates `directory` if needed and writes the files the scenario's output section asks for:
/// first the old result.json is removed, then each data file is replaced (or removed, when this
/// run does not write it), then result.json is written. Interrupted at any point, the directory
/// has no result.json (incomplete) or this run's whole result. Throws std::runtime_error naming
/// the file when one cannot be written or removed.
void write_result_directory(const RunResult& result, const std::string& directory,
                            const std::vector<std::string>& command_line);

/// Checks before a run that its result directory can be written: `directory` is a directory
/// (or does not exist yet and its nearest existing ancestor is one) in which a file can be
/// created, tried with a real file that is removed again. Creates nothing that stays. Throws
/// std::runtime_error naming the directory and the system's reason.
void check_result_directory(const std::string& directory);

}  // namespace failsim::sim
