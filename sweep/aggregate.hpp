// The aggregate of a sweep (docs/sweeps.md): runs.csv, one row per run of the plan with its
// varied values and summary figures, and table.md, the `failsim table` of its points (mean and
// 95% CI over seeds). Both are computed from whatever result directories exist, so the same
// code collects a local sweep, an interrupted one and one run elsewhere (a cluster's array
// tasks), and two collections of the same results are the same bytes. Engine-free.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_summary.hpp"
#include "sweep/plan.hpp"

namespace failsim::sweep {

/// Whether `run`'s result directory under `directory` is complete. `failsim run` writes
/// result.json last, and the sweep moves a run's directory into place only once it is there.
bool sweep_run_complete(const std::filesystem::path& directory, const SweepRun& run);

/// Each run's summary, read from its result directory under `directory`; nullopt for a run
/// without one yet. Throws input::InputError for a result directory that cannot be read.
std::vector<std::optional<analysis::RunSummary>> load_sweep_results(
    const SweepPlan& plan, const std::filesystem::path& directory);

/// The column of each varied path of `plan` in runs.csv, in path order: the path's last two keys
/// that are not array indices, joined by `_` (`/recovery/checkpoint/every_steps`:
/// `checkpoint_every_steps`; `/recovery`: `recovery`), characters other than letters, digits
/// and `_` made `_`; more keys while the name is another path's or another column's.
std::vector<std::string> varied_column_names(const SweepPlan& plan);

/// runs.csv: a header, then one row per run of the plan in plan order: index, point, base, one
/// column per varied path (varied_column_names; `<name>_<unit>` after it for a path written with
/// units), seed, status ("missing" when the run has no result directory; its figures are then
/// empty), the summary figures (metric columns of the tables' list, analysis::all_metric_columns,
/// by key: the parameter-server ones when the plan has a parameter-server point, a language
/// model's loss, perplexity and time and tokens to the plan's target loss when it has a
/// language-model point, the collective ones when it has a collective point) and the result
/// directory (relative to the sweep's directory).
std::string runs_csv(const SweepPlan& plan,
                     const std::vector<std::optional<analysis::RunSummary>>& results);

/// How many runs of the plan have a result, how many of those did not finish well (status
/// "deadlock"), and how many have none.
struct SweepTally {
  std::size_t complete = 0;
  std::size_t deadlocked = 0;
  std::size_t missing = 0;
};

/// Writes `directory`/runs.csv and `directory`/table.md (the table of every run with a result,
/// points in plan order; table.md is removed when no run has one), each atomically. `prices` is
/// the price file of the table's cost columns. Throws input::InputError for a result directory
/// or price file that cannot be read, std::runtime_error for a file that cannot be written.
SweepTally collect_sweep(const SweepPlan& plan, const std::filesystem::path& directory,
                         const std::filesystem::path& prices);

}  // namespace failsim::sweep
