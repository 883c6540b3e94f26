// One `failsim sweep` invocation (docs/sweeps.md), given its options as plain values: the
// sweep file read and expanded into its plan, then one of its steps: list the runs (--dry-run),
// collect the results there are (--collect), run one run (--only INDEX), run every run here as
// a pool of processes, or write the Slurm scripts that run them on a cluster (--emit slurm).
// Each step reports as docs/sweeps.md shows (the listings on stdout, the rest on stderr),
// nothing but failures when quiet. A step returns whether every run it answers for has a
// result that did not deadlock; its errors are exceptions whose type says what went wrong, which
// the command line maps to exit statuses.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "sweep/plan.hpp"
#include "sweep/runner.hpp"
#include "sweep/slurm.hpp"

namespace failsim::sweep {

struct SessionOptions {
  std::string sweep;             ///< the sweep file, as given
  std::string output;            ///< the output directory; "" for the sweep's output.directory
  std::filesystem::path prices;  ///< the price file of table.md's cost columns
  bool quiet = false;            ///< report nothing but failures
};

/// The steps below throw input::InputError for a result directory or price file that cannot be
/// read, DirectoryRefused for an output directory that cannot take the sweep (another plan's,
/// one another sweep is running in, or one the Slurm scripts cannot name), and
/// std::runtime_error (std::exception) for a file that cannot be written or a run's process
/// that cannot be started or waited for.
class SweepSession {
 public:
  /// Reads and expands the sweep file: input::InputError when it, a base scenario or a point is
  /// bad. Writes nothing.
  explicit SweepSession(SessionOptions options);

  const SweepPlan& plan() const { return plan_; }
  /// The sweep's output directory.
  const std::filesystem::path& root() const { return dir_.root; }

  /// --dry-run: the plan's runs on stdout, one a line, with their seeds and varied values,
  /// after a line with the sweep's estimated wall time, in all and with `jobs` runs at a time
  /// (0: one per core of `cores`).
  void print_plan(std::size_t jobs, std::size_t cores) const;

  /// --collect: checks that the output directory holds this plan, writes runs.csv and table.md
  /// from the results there are, and lists the runs without one. True when every run has a
  /// result and none deadlocked.
  bool collect() const;

  /// --only INDEX (< plan().runs.size()): that run alone, unless it is done already. True when
  /// it has its result (a deadlocked run, one that exited non-zero, is false).
  bool run_one(std::size_t index) const;

  /// Every run without a result, `jobs` at a time (0: one per core of `cores`) with the cores
  /// shared out among them, then the collection. True when no run failed and every run has a
  /// result that did not deadlock.
  bool run_all(std::size_t jobs, std::size_t cores) const;

  /// --emit slurm: the plan into the output directory and the Slurm scripts beside it (checked
  /// options: slurm_options_error), and what was written on stdout; runs nothing.
  void emit_slurm(const SlurmOptions& slurm) const;

 private:
  /// Writes runs.csv and table.md; true when every run has a result and none deadlocked.
  bool write_aggregate() const;
  /// The runs without a result, "3, 7-9", on stderr, with how to run them again.
  void report_missing() const;

  SessionOptions options_;
  SweepPlan plan_;
  std::string output_;  ///< the output directory, as given or as the sweep names it
  SweepDirectory dir_;
};

}  // namespace failsim::sweep
