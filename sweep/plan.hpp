// Sweep files (docs/sweeps.md): one or more base scenarios, the fields to vary by JSON Pointer
// (lists, inclusive ranges, zipped entries, the full grid over entries) and the seeds, expanded
// into a plan of points (one scenario each) and runs (point x seed). Parsing, expansion and
// validation are engine-free and write nothing, so a bad sweep is refused before any run
// starts. Running the plan is sweep/runner.hpp's business (or sweep/slurm.hpp's on a cluster);
// aggregating its result directories is sweep/aggregate.hpp's. The JSON Pointer substitution
// is input/json_pointer.hpp's, shared with `failsim run --set POINTER=VALUE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/wall_estimate.hpp"

#include "input/input_error.hpp"

namespace failsim::sweep {

/// One varied field of a vary entry (a plain entry has one, a zip several).
struct VariedPath {
  std::string pointer;                 ///< RFC 6901 pointer into the scenario JSON
  std::string label;                   ///< its word in point names, e.g. "at"
  std::string where;                   ///< its place in the sweep file, e.g. "/vary/0/zip/1"
  std::vector<nlohmann::json> values;  ///< in order; for a range, computed and checked
  /// The values' words in point names, one per value ("names"); empty: each value's own text.
  std::vector<std::string> names;
};

/// One entry of "vary": its paths vary together (one value index for all of them).
struct VaryEntry {
  std::string where;  ///< "/vary/<k>"
  std::vector<VariedPath> paths;
  std::size_t size() const { return paths.front().values.size(); }
};

/// A base scenario as the sweep file names it.
struct BaseScenario {
  std::string written;  ///< as written in the sweep file (relative to it)
  std::string path;     ///< the file as opened: the sweep file's directory / written
  nlohmann::json doc;   ///< its JSON, as read (not yet validated: its points are)
};

/// A parsed sweep file (docs/sweeps.md), not yet expanded.
struct Sweep {
  std::string file;  ///< the sweep file's label in messages (the path as given)
  std::string name;
  std::string description;
  std::vector<BaseScenario> scenarios;
  std::optional<std::vector<std::uint64_t>> seeds;  ///< nullopt: each point's own seed
  std::vector<VaryEntry> vary;
  std::string output_directory;  ///< relative to the working directory
  /// The target validation loss (nat) of runs.csv's and table.md's time and tokens to it
  /// (`target_loss`); none: no such columns.
  std::optional<double> target_loss;
  /// `failsim plot`'s figures of the runs, drawn into DIR/figures once the aggregate is written
  /// (`figures`); empty: none.
  std::vector<std::string> figures;
};

/// Reads and checks a sweep file: keys, types, pointers (syntax, and that each one fits every
/// base scenario), values, ranges, seeds. Throws InputError naming the sweep file, the JSON
/// Pointer in it, the expectation and the found value.
Sweep load_sweep(const std::string& path);

/// As load_sweep, from a parsed document; base scenario paths resolve against `file_label`'s
/// directory.
Sweep parse_sweep(const nlohmann::json& doc, const std::string& file_label);

/// One point of the grid: a base scenario with one value per varied path.
struct SweepPoint {
  std::size_t index = 0;
  std::string id;        ///< the scenario name: base name + "_<label>-<value>" per varied path
  std::size_t base = 0;  ///< index into Sweep::scenarios
  std::vector<nlohmann::json> values;  ///< one per SweepPlan::paths
  nlohmann::json scenario;             ///< the resolved scenario (sim::to_json), a valid one
  std::uint64_t scenario_seed = 1;     ///< its own seed, used when the sweep gives none
  sim::WallEstimate wall;              ///< one run's expected wall time (wall_estimate.hpp)
};

/// One run: a point with a seed.
struct SweepRun {
  std::size_t index = 0;
  std::size_t point = 0;
  std::uint64_t seed = 0;
  std::string directory;  ///< relative to the sweep's output directory: runs/<id>/seed-<seed>
};

/// The expanded sweep: what sweep.json holds.
struct SweepPlan {
  std::string name;
  std::vector<std::string> paths;   ///< every varied pointer, in vary order (runs.csv columns)
  std::vector<std::string> labels;  ///< each path's label (VariedPath::label), for figures
  std::vector<std::string> bases;   ///< Sweep::scenarios[i].written
  std::vector<SweepPoint> points;   ///< bases outermost, then vary entries in order
  std::vector<SweepRun> runs;       ///< points outermost, then seeds
  /// Sweep::target_loss and Sweep::figures: how the results are shown, not which runs are made
  /// (not in sweep.json, so changing them and collecting again is the same plan).
  std::optional<double> target_loss;
  std::vector<std::string> figures;
};

/// Expands the grid and validates every point as a scenario (sim::parse_scenario), before
/// anything is run or written. The first invalid point is a InputError at the sweep file's
/// vary entry of the offending field (or "/vary"), naming the point, its values, the base file
/// and the scenario's own error; two points with one name is an error too.
SweepPlan expand_sweep(const Sweep& sweep);

/// Where point `point`'s scenario file goes, relative to the output directory.
std::string point_scenario_file(const SweepPoint& point);

/// The plan as written to sweep.json: name, paths, bases, points (with their resolved scenarios)
/// and runs. A pure function of the sweep file and its base scenarios, so a second start of the
/// same sweep writes the same document and an edited one a different document.
nlohmann::json plan_json(const SweepPlan& plan);

/// A value as runs.csv and messages show it: a string as is, anything else as compact JSON.
std::string value_text(const nlohmann::json& value);

}  // namespace failsim::sweep
