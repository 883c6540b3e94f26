// Writes a run's result directory (docs/result-format.md): result.json, timeseries.csv,
// events.csv. Each file is written to a temporary name and renamed, so a reader never sees a
// half-written file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/run.hpp"

namespace failsim::sim {

/// The whole of result.json. Everything but the top-level "wall_clock" object is a pure
/// function of the scenario and its seed.
nlohmann::json result_json(const RunResult& result);

/// timeseries.csv: one row per evaluation.
std::string timeseries_csv(const RunResult& result);

/// events.csv: one row per event.
std::string events_csv(const RunResult& result);

/// Creates `directory` if needed and writes the files the scenario's output section asks for.
/// Throws std::runtime_error naming the file when one cannot be written.
void write_result_directory(const RunResult& result, const std::string& directory);

}  // namespace failsim::sim
