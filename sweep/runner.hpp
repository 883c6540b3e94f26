// Running a sweep's plan (sweep/plan.hpp) in its output directory (docs/sweeps.md): the
// directory's layout, the check that it holds this plan and no other, and the runs themselves,
// each a child process `failsim run SCENARIO --seed K -o PARTIAL -q` of this very executable
// (one SimGrid engine per process), N at a time.
//
// Resumability rests on one rule: a run's result directory appears whole or not at all. The
// child writes into a hidden sibling (runs/<point>/.seed-<k>.partial), result.json last, and
// the sweep renames it into place. So after a kill at any moment a run is either complete
// (runs/<point>/seed-<k>/result.json exists) and skipped on the next start, or it left a
// partial directory that the next start removes (or moves into place, if the child had
// finished) before running it again.
//
// The per-run unit (prepare, start_run, finish_run) is what `failsim sweep --only INDEX` uses,
// so a cluster's array task runs one run exactly as the local pool does.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/plan.hpp"

namespace failsim::sweep {

/// The files of a sweep's output directory.
struct SweepDirectory {
  std::filesystem::path root;

  std::filesystem::path plan_file() const { return root / "sweep.json"; }
  std::filesystem::path scenario_file(const SweepPoint& point) const {
    return root / sweep::point_scenario_file(point);
  }
  std::filesystem::path result_dir(const SweepRun& run) const { return root / run.directory; }
  /// Where the child writes: a hidden sibling of the result directory (same file system, so
  /// the rename into place is atomic).
  std::filesystem::path partial_dir(const SweepRun& run) const;
  /// The child's standard error, read for the report of a failed run, then removed.
  std::filesystem::path stderr_file(const SweepRun& run) const;
};

/// The output directory cannot take this sweep (exit status 2): it holds another plan's results,
/// or another sweep is running in it. what() names the directory, says what is wrong and how to
/// proceed.
class DirectoryRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Makes `dir` ready for `plan`: creates it; refuses (DirectoryRefused) a sweep.json of a different
/// plan, or a runs/ folder without sweep.json; writes sweep.json if it is absent, and each
/// point's scenario file if it is absent or different, atomically. std::runtime_error when a
/// file cannot be written.
void prepare_sweep_directory(const SweepPlan& plan, const SweepDirectory& dir);

/// Checks that `dir` holds sweep.json of `plan` (DirectoryRefused otherwise, also when absent).
void check_sweep_plan(const SweepPlan& plan, const SweepDirectory& dir);

/// Holds an exclusive lock on the output directory (flock, released by the kernel when the
/// process dies, even by SIGKILL) so two local sweeps never run into one directory. Taken
/// before the directory is prepared: of two sweeps started at once on a fresh directory, one
/// writes its plan and runs, the other is refused before it writes anything.
class DirectoryLock {
 public:
  /// Creates the directory (with its parents) if needed. Throws DirectoryRefused when another
  /// process holds it, std::runtime_error when the directory cannot be created or opened.
  explicit DirectoryLock(const std::filesystem::path& directory);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

/// Tidies what an interrupted attempt of `run` left: a partial directory holding result.json
/// (the child had finished) is moved into place, any other is removed, as is a result
/// directory without result.json and a stale stderr file. Returns whether the run is complete.
bool recover_run(const SweepDirectory& dir, const SweepRun& run);

/// The command line of a run: `EXE run SCENARIO --seed K -o PARTIAL -q`, with `--threads T`
/// when `threads` > 0 (0: the child's default, every CPU it may use).
std::vector<std::string> run_command(const std::string& exe, const SweepPlan& plan,
                                     const SweepDirectory& dir, const SweepRun& run,
                                     std::size_t threads);

/// A command line as a user would paste it into a shell.
std::string shell_quoted(const std::vector<std::string>& command);

/// This executable's path (/proc/self/exe), for the children's command lines.
std::string self_executable();

/// Starts `command` (whose first word is this executable) as a child: standard input and
/// output /dev/null, standard error to `stderr_path`, killed by the kernel if the sweep dies
/// (PR_SET_PDEATHSIG), so a killed sweep leaves no orphan writing into its directory. Returns
/// its pid; std::runtime_error when it cannot be started.
pid_t start_run(const std::vector<std::string>& command, const std::filesystem::path& stderr_path);

/// What became of a run whose child exited.
struct RunOutcome {
  bool complete = false;    ///< its result directory is in place
  bool failed = false;      ///< non-zero exit or killed (a deadlock is complete and failed)
  std::string status;       ///< "exit status 2", "killed by signal 9 (Killed)", ...
  std::string stderr_tail;  ///< the last lines of the child's standard error
};

/// After `run`'s child ended with `wait_status` (waitpid's): moves its result directory into
/// place when the child wrote one (result.json present), else removes the partial directory;
/// reads and removes the stderr file.
RunOutcome finish_run(const SweepDirectory& dir, const SweepRun& run, int wait_status);

/// How the pool reports.
struct PoolOptions {
  std::size_t jobs = 1;
  std::size_t threads = 0;  ///< each child's --threads (0: its default)
  bool quiet = false;       ///< only failures are reported
  bool terminal = false;    ///< stderr is a terminal: one rewritten progress line
  std::size_t total = 0;    ///< runs of the plan (done before + to run), for "done/total"
  std::size_t done_before = 0;
};

/// Runs `pending` (indices into plan.runs) with at most options.jobs children at a time,
/// reporting progress and each failed run (its command line and the tail of its stderr) on
/// stderr. Returns how many runs failed.
std::size_t run_pool(const SweepPlan& plan, const SweepDirectory& dir,
                     const std::vector<std::size_t>& pending, const PoolOptions& options);

}  // namespace failsim::sweep
