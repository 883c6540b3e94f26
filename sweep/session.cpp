// One `failsim sweep` invocation, step by step (see session.hpp).
#include "sweep/session.hpp"

#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "analysis/table.hpp"
#include "input/interrupt.hpp"
#include "sweep/aggregate.hpp"

namespace failsim::sweep {
namespace fs = std::filesystem;

SweepSession::SweepSession(SessionOptions options) : options_(std::move(options)) {
  const Sweep sweep = load_sweep(options_.sweep);
  plan_ = expand_sweep(sweep);
  output_ = options_.output.empty() ? sweep.output_directory : options_.output;
  dir_ = SweepDirectory{output_};
}

void SweepSession::print_plan(std::size_t jobs, std::size_t cores) const {
  // The runs' estimated wall times (one math thread each), added up; spread over the jobs, no
  // shorter than the longest run.
  double total = 0.0, longest = 0.0;
  std::size_t unknown = 0;
  for (const SweepRun& run : plan_.runs) {
    const sim::WallEstimate& wall = plan_.points[run.point].wall;
    if (!wall.known) {
      ++unknown;
      continue;
    }
    total += wall.total_seconds();
    longest = std::max(longest, wall.total_seconds());
  }
  const std::size_t at_once = std::min(jobs == 0 ? cores : jobs, plan_.runs.size());
  std::string estimate =
      fmt::format("; expected wall time of its runs: {} in all, about {} with {} at a time",
                  sim::duration_text(total),
                  sim::duration_text(std::max(
                      total / static_cast<double>(std::max<std::size_t>(at_once, 1)), longest)),
                  at_once);
  if (unknown > 0)
    estimate += fmt::format(
        " (and {} runs not counted: no stop bounds their gradients, or a platform file's speeds "
        "decide them)",
        unknown);
  fmt::print("{}: {} points, {} runs, into {}{}\n", plan_.name, plan_.points.size(),
             plan_.runs.size(), dir_.root.string(), estimate);
  for (const SweepRun& run : plan_.runs) {
    const SweepPoint& point = plan_.points[run.point];
    std::string values;
    for (std::size_t i = 0; i < plan_.paths.size(); ++i) {
      values += fmt::format("  {}={}", plan_.paths[i], value_text(point.values[i]));
    }
    fmt::print("{:>5}  {}  seed {}  {}{}\n", run.index, point.id, run.seed, plan_.bases[point.base],
               values);
  }
}

bool SweepSession::write_aggregate() const {
  SweepTally tally;
  try {
    tally = collect_sweep(plan_, dir_.root, options_.prices);
  } catch (const analysis::TableOptionError& e) {
    // An option of the table the sweep makes, not of the user's: table.md cannot be written.
    throw std::runtime_error(fmt::format("table.md: {}", e.what()));
  }
  if (!options_.quiet) {
    fmt::print(stderr, "failsim sweep: {} of {} runs have results ({} deadlocked, {} missing): {}",
               tally.complete, plan_.runs.size(), tally.deadlocked, tally.missing,
               (dir_.root / "runs.csv").string());
    if (tally.complete > 0) fmt::print(stderr, ", {}", (dir_.root / "table.md").string());
    fmt::print(stderr, "\n");
  }
  return tally.missing == 0 && tally.deadlocked == 0;
}

void SweepSession::report_missing() const {
  std::string list;
  std::size_t count = 0;
  for (std::size_t i = 0; i < plan_.runs.size(); ++i) {
    if (sweep_run_complete(dir_.root, plan_.runs[i])) continue;
    std::size_t last = i;
    while (last + 1 < plan_.runs.size() && !sweep_run_complete(dir_.root, plan_.runs[last + 1])) {
      ++last;
    }
    if (!list.empty()) list += ", ";
    list += last == i ? fmt::format("{}", i) : fmt::format("{}-{}", i, last);
    count += last - i + 1;
    i = last;
  }
  if (count == 0) return;
  fmt::print(stderr,
             "failsim sweep: no result for run{} {} (failed, or not run yet): run {} with --only "
             "INDEX, or start the sweep (or submit its array) again\n",
             count == 1 ? "" : "s", list, count == 1 ? "it" : "them");
}

bool SweepSession::collect() const {
  check_sweep_plan(plan_, dir_);
  const bool complete = write_aggregate();
  // A failed or unfinished array task's runs, say.
  if (!complete) report_missing();
  return complete;
}

bool SweepSession::run_one(std::size_t index) const {
  prepare_sweep_directory(plan_, dir_);
  const SweepRun& run = plan_.runs[index];
  if (recover_run(dir_, run)) {
    if (!options_.quiet)
      fmt::print(stderr, "failsim sweep: run {} is already done: {}\n", index,
                 dir_.result_dir(run).string());
    return true;
  }
  std::error_code ec;
  fs::create_directories(dir_.result_dir(run).parent_path(), ec);
  const std::vector<std::string> command = run_command(self_executable(), plan_, dir_, run, 0);
  const pid_t pid = start_run(command, dir_.stderr_file(run));
  int status = 0;
  bool stopped = false;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("lost the run's process");
    if (input::caught_interrupt() && !stopped) {
      stopped = true;  // Ctrl-C: the run is asked to stop, and cleaned as a failed one
      kill(pid, SIGTERM);
    }
  }
  const RunOutcome outcome = finish_run(dir_, run, status);
  if (stopped && !outcome.complete) {
    throw input::Interrupted(input::caught_interrupt(), fmt::format("before run {} ended", index));
  }
  if (outcome.failed) {
    fmt::print(stderr, "failsim sweep: run {} failed: {}\n  command: {}\n{}", index, outcome.status,
               shell_quoted(command), outcome.stderr_tail);
    return false;
  }
  if (!options_.quiet)
    fmt::print(stderr, "failsim sweep: run {} done: {}\n", index, dir_.result_dir(run).string());
  return true;
}

bool SweepSession::run_all(std::size_t jobs, std::size_t cores) const {
  const DirectoryLock lock(dir_.root);  // before anything is written (docs/sweeps.md)
  prepare_sweep_directory(plan_, dir_);
  std::vector<std::size_t> pending;
  for (const SweepRun& run : plan_.runs) {
    if (!recover_run(dir_, run)) pending.push_back(run.index);
  }
  PoolOptions pool;
  pool.jobs = jobs == 0 ? cores : jobs;
  // Runs side by side use the cores better than threads inside runs (docs/performance.md):
  // the cores are shared out among the runs at a time, at least one thread each.
  pool.threads = std::max<std::size_t>(1, cores / pool.jobs);
  pool.quiet = options_.quiet;
  pool.terminal = isatty(fileno(stderr)) != 0;
  pool.total = plan_.runs.size();
  pool.done_before = plan_.runs.size() - pending.size();
  if (!options_.quiet) {
    fmt::print(stderr,
               "failsim sweep: {}: {} runs ({} points), {} done before, {} to run, {} "
               "at a time, into {}\n",
               plan_.name, plan_.runs.size(), plan_.points.size(), pool.done_before, pending.size(),
               pool.jobs, dir_.root.string());
  }
  const auto start = std::chrono::steady_clock::now();
  const std::size_t failed = run_pool(plan_, dir_, pending, pool);
  if (!options_.quiet && !pending.empty()) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "failsim sweep: {} runs in {:.1f} s, {} failed\n", pending.size(), seconds,
               failed);
  }
  return write_aggregate() && failed == 0;
}

void SweepSession::emit_slurm(const SlurmOptions& slurm) const {
  // The plan goes where a local sweep writes it, so either may resume the other.
  SlurmJob job;
  job.plan = &plan_;
  job.failsim = self_executable();
  job.sweep = fs::absolute(options_.sweep).lexically_normal();
  job.out_dir = fs::absolute(output_).lexically_normal();
  if (!job.out_dir.has_filename()) job.out_dir = job.out_dir.parent_path();  // "DIR/"
  job.options = slurm;
  try {
    sbatch_path((job.out_dir / "slurm" / "logs").string());
  } catch (const std::invalid_argument& e) {
    throw DirectoryRefused(fmt::format("--emit slurm: {}", e.what()));
  }
  const SweepDirectory dir{job.out_dir};
  const DirectoryLock lock(dir.root);
  prepare_sweep_directory(plan_, dir);
  write_slurm_scripts(job);
  const std::size_t chunk = slurm.chunk.value_or(1);
  const std::size_t tasks = slurm_tasks(plan_.runs.size(), chunk);
  // Slurm's default MaxArraySize is 1001: task indices 0 to 1000.
  if (tasks > 1001) {
    fmt::print(stderr,
               "failsim sweep: warning: {} array tasks; Slurm's default MaxArraySize (1001) "
               "takes at most 1001: --chunk {} or more fits it, unless the cluster allows more\n",
               tasks, slurm_tasks(plan_.runs.size(), 1001));
  }
  if (options_.quiet) return;
  std::size_t done = 0;
  for (const SweepRun& run : plan_.runs) done += sweep_run_complete(dir.root, run);
  const fs::path scripts = job.out_dir / "slurm";
  fmt::print("{}: {} runs as a Slurm job array of {} task{} ({} run{} each), into {}\n", plan_.name,
             plan_.runs.size(), tasks, tasks == 1 ? "" : "s", chunk, chunk == 1 ? "" : "s",
             job.out_dir.string());
  if (done > 0) fmt::print("  {} runs already have a result: their tasks skip them\n", done);
  const std::pair<fs::path, const char*> written[] = {
      {dir.plan_file(), "the plan, and scenarios/ (each point's scenario)"},
      {scripts / "array.sbatch", "the array job: each task runs its runs with --only INDEX"},
      {scripts / "collect.sbatch", "the collection: runs.csv and table.md, after the array"},
      {scripts / "submit.sh", "submits both"},
      {scripts / "logs" / "", "the jobs' output"}};
  std::size_t width = 0;
  for (const auto& [file, what] : written) width = std::max(width, file.string().size());
  for (const auto& [file, what] : written) {
    fmt::print("  {:<{}}  {}\n", file.string(), width, what);
  }
  fmt::print("Submit with:\n  bash {}\n", shell_quoted({(scripts / "submit.sh").string()}));
}

}  // namespace failsim::sweep
