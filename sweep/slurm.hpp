// `failsim sweep SWEEP.json --emit slurm` (docs/sweeps.md#on-a-slurm-cluster): the scripts that
// run a sweep's plan on a Slurm cluster instead of this machine. The plan and the output
// directory are the local runner's (sweep/runner.hpp), so a cluster run and a local run
// share one directory format and one resume rule:
//
//   DIR/slurm/array.sbatch    a job array; task I runs the runs I*K .. I*K+K-1 of the plan, each
//                             with `failsim sweep SWEEP -o DIR --only INDEX` (a complete run is
//                             skipped, so resubmitting the array resumes the sweep)
//   DIR/slurm/collect.sbatch  `failsim sweep SWEEP -o DIR --collect`: runs.csv and table.md
//   DIR/slurm/submit.sh       sbatch the array, then the collection with afterany:ARRAY, so it
//                             runs (and reports the runs without a result) even if tasks failed
//   DIR/slurm/logs/           each job's output
//
// The scripts name the failsim binary, the sweep file and DIR by absolute paths: a job's working
// directory is wherever sbatch was called, and may be another machine's.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sweep/plan.hpp"

namespace failsim::sweep {

/// The options of `--emit slurm` (each nullopt/empty when not given).
struct SlurmOptions {
  std::optional<std::size_t> chunk;        ///< runs per array task (default 1)
  std::optional<std::string> partition;    ///< #SBATCH --partition
  std::optional<std::string> time;         ///< #SBATCH --time, per task
  std::optional<std::string> account;      ///< #SBATCH --account
  std::optional<std::size_t> array_limit;  ///< at most this many tasks at once (--array=...%M)
  std::vector<std::string> sbatch;         ///< further #SBATCH lines, e.g. "--mem=2G"

  /// The first option given, as the command line names it ("--chunk"), or "" when none is.
  std::string first_given() const;
};

/// Registers --chunk, --partition, --time, --account, --array-limit and --sbatch on `sweep`.
void add_slurm_options(CLI::App& sweep, SlurmOptions& options);

/// Why `options` cannot make scripts, as "--time: expected ..., found ...", or "" when they can.
std::string slurm_options_error(const SlurmOptions& options);

/// What the scripts are made of: the plan, and the absolute paths they name.
struct SlurmJob {
  const SweepPlan* plan = nullptr;
  std::string failsim;            ///< the failsim executable
  std::filesystem::path sweep;    ///< the sweep file
  std::filesystem::path out_dir;  ///< the sweep's output directory
  SlurmOptions options;
};

/// Array tasks for `runs` runs of `chunk` runs each: ceil(runs / chunk).
std::size_t slurm_tasks(std::size_t runs, std::size_t chunk);

/// The three scripts' text.
std::string array_script(const SlurmJob& job);
std::string collect_script(const SlurmJob& job);
std::string submit_script(const SlurmJob& job);

/// The file `pattern` (a Slurm file name pattern such as "array-%A-%a.out", or "") in the
/// directory `dir`, as an #SBATCH line's value: '%' in `dir` doubled (Slurm's file name patterns
/// read it), the whole in double quotes when it holds a space. Throws std::invalid_argument for a
/// directory sbatch cannot take (one holding '"', '\\' or a line break).
std::string sbatch_path(const std::string& dir, const std::string& pattern = "");

/// Writes DIR/slurm/{array.sbatch,collect.sbatch,submit.sh} (atomically, executable) and makes
/// DIR/slurm/logs/ (Slurm writes no log into a missing directory). std::runtime_error when a file
/// or directory cannot be written.
void write_slurm_scripts(const SlurmJob& job);

}  // namespace failsim::sweep
