// `failsim sweep SWEEP.json [-j N] [-o DIR] [-q] [--dry-run | --only INDEX | --collect |
// --emit slurm]`: expand a sweep file into runs, run them as parallel child processes, resume an
// interrupted sweep, and write runs.csv and table.md (docs/sweeps.md), or write the scripts that
// run it on a Slurm cluster. The format and its expansion are in sweep/plan.hpp, the processes and
// the directory in sweep/runner.hpp, the Slurm scripts in sweep/slurm.hpp, the aggregate
// in sweep/aggregate.hpp; this file reads the options and puts them in order.
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "analysis/table.hpp"
#include "cli/commands.hpp"
#include "sim/math_pool.hpp"
#include "sweep/aggregate.hpp"
#include "sweep/plan.hpp"
#include "sweep/runner.hpp"
#include "sweep/slurm.hpp"

#ifndef FAILSIM_DEFAULT_PRICES
#error "FAILSIM_DEFAULT_PRICES (the source tree's analysis/prices.json) must be defined"
#endif

namespace failsim::cli {
// The sweep library does the work; this file is its command line.
using namespace failsim::sweep;

namespace {
namespace fs = std::filesystem;

struct SweepOptions {
  std::string sweep;
  std::string output;
  std::size_t jobs = 0;  ///< 0: one per core
  bool quiet = false;
  bool dry_run = false;
  std::optional<std::size_t> only;
  bool collect = false;
  std::string emit;  ///< "slurm", or "" to run the sweep here
  SlurmOptions slurm;
};

std::size_t cores() { return static_cast<std::size_t>(sim::MathPool::hardware_threads()); }

/// Writes runs.csv and table.md; exit status 0 when every run has a result and none
/// deadlocked, 1 otherwise, 2/3 when a result or the output cannot be read/written.
int collect(const sweep::SweepPlan& plan, const SweepDirectory& dir, bool quiet) {
  sweep::SweepTally tally;
  try {
    tally = sweep::collect_sweep(plan, dir.root, FAILSIM_DEFAULT_PRICES);
  } catch (const input::InputError& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return BAD_INPUT;
  } catch (const analysis::TableOptionError& e) {
    fmt::print(stderr, "failsim sweep: table.md: {}\n", e.what());
    return OUTPUT_FAILED;
  } catch (const std::exception& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return OUTPUT_FAILED;
  }
  if (!quiet) {
    fmt::print(stderr, "failsim sweep: {} of {} runs have results ({} deadlocked, {} missing): {}",
               tally.complete, plan.runs.size(), tally.deadlocked, tally.missing,
               (dir.root / "runs.csv").string());
    if (tally.complete > 0) fmt::print(stderr, ", {}", (dir.root / "table.md").string());
    fmt::print(stderr, "\n");
  }
  return tally.missing == 0 && tally.deadlocked == 0 ? OK : RUN_FAILED;
}

/// After --collect: the runs without a result, "3, 7-9", on stderr (a failed or unfinished array
/// task's runs, say), with how to run them again.
void report_missing(const sweep::SweepPlan& plan, const SweepDirectory& dir) {
  std::string list;
  std::size_t count = 0;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    if (sweep::sweep_run_complete(dir.root, plan.runs[i])) continue;
    std::size_t last = i;
    while (last + 1 < plan.runs.size() &&
           !sweep::sweep_run_complete(dir.root, plan.runs[last + 1])) {
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

void print_plan(const sweep::SweepPlan& plan, const SweepDirectory& dir) {
  fmt::print("{}: {} points, {} runs, into {}\n", plan.name, plan.points.size(), plan.runs.size(),
             dir.root.string());
  for (const sweep::SweepRun& run : plan.runs) {
    const sweep::SweepPoint& point = plan.points[run.point];
    std::string values;
    for (std::size_t i = 0; i < plan.paths.size(); ++i) {
      values += fmt::format("  {}={}", plan.paths[i], sweep::value_text(point.values[i]));
    }
    fmt::print("{:>5}  {}  seed {}  {}{}\n", run.index, point.id, run.seed, plan.bases[point.base],
               values);
  }
}

/// `--only INDEX`: one run, as an array task of a cluster would run it.
int run_one(const sweep::SweepPlan& plan, const SweepDirectory& dir, std::size_t index,
            bool quiet) {
  const sweep::SweepRun& run = plan.runs[index];
  if (recover_run(dir, run)) {
    if (!quiet)
      fmt::print(stderr, "failsim sweep: run {} is already done: {}\n", index,
                 dir.result_dir(run).string());
    return OK;
  }
  std::error_code ec;
  fs::create_directories(dir.result_dir(run).parent_path(), ec);
  const std::vector<std::string> command = run_command(self_executable(), plan, dir, run, 0);
  const pid_t pid = start_run(command, dir.stderr_file(run));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("lost the run's process");
  }
  const RunOutcome outcome = finish_run(dir, run, status);
  if (outcome.failed) {
    fmt::print(stderr, "failsim sweep: run {} failed: {}\n  command: {}\n{}", index, outcome.status,
               shell_quoted(command), outcome.stderr_tail);
    return RUN_FAILED;
  }
  if (!quiet)
    fmt::print(stderr, "failsim sweep: run {} done: {}\n", index, dir.result_dir(run).string());
  return OK;
}

/// `--emit slurm`: the plan into its output directory (as a local sweep writes it, so either may
/// resume the other) and the Slurm scripts beside it; runs nothing.
int emit_slurm(const sweep::SweepPlan& plan, const SweepOptions& o, const std::string& output) {
  SlurmJob job;
  job.plan = &plan;
  job.failsim = self_executable();
  job.sweep = fs::absolute(o.sweep).lexically_normal();
  job.out_dir = fs::absolute(output).lexically_normal();
  if (!job.out_dir.has_filename()) job.out_dir = job.out_dir.parent_path();  // "DIR/"
  job.options = o.slurm;
  try {
    sbatch_path((job.out_dir / "slurm" / "logs").string());
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "failsim sweep: --emit slurm: {}\n", e.what());
    return BAD_INPUT;
  }
  const SweepDirectory dir{job.out_dir};
  try {
    prepare_sweep_directory(plan, dir);
    write_slurm_scripts(job);
  } catch (const DirectoryRefused& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return BAD_INPUT;
  } catch (const std::exception& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return OUTPUT_FAILED;
  }
  const std::size_t chunk = o.slurm.chunk.value_or(1);
  const std::size_t tasks = slurm_tasks(plan.runs.size(), chunk);
  // Slurm's default MaxArraySize is 1001: task indices 0 to 1000.
  if (tasks > 1001) {
    fmt::print(stderr,
               "failsim sweep: warning: {} array tasks; Slurm's default MaxArraySize (1001) "
               "takes at most 1001: --chunk {} or more fits it, unless the cluster allows more\n",
               tasks, slurm_tasks(plan.runs.size(), 1001));
  }
  if (o.quiet) return OK;
  std::size_t done = 0;
  for (const sweep::SweepRun& run : plan.runs) done += sweep::sweep_run_complete(dir.root, run);
  const fs::path slurm = job.out_dir / "slurm";
  fmt::print("{}: {} runs as a Slurm job array of {} task{} ({} run{} each), into {}\n", plan.name,
             plan.runs.size(), tasks, tasks == 1 ? "" : "s", chunk, chunk == 1 ? "" : "s",
             job.out_dir.string());
  if (done > 0) fmt::print("  {} runs already have a result: their tasks skip them\n", done);
  const std::pair<fs::path, const char*> written[] = {
      {dir.plan_file(), "the plan, and scenarios/ (each point's scenario)"},
      {slurm / "array.sbatch", "the array job: each task runs its runs with --only INDEX"},
      {slurm / "collect.sbatch", "the collection: runs.csv and table.md, after the array"},
      {slurm / "submit.sh", "submits both"},
      {slurm / "logs" / "", "the jobs' output"}};
  std::size_t width = 0;
  for (const auto& [file, what] : written) width = std::max(width, file.string().size());
  for (const auto& [file, what] : written) {
    fmt::print("  {:<{}}  {}\n", file.string(), width, what);
  }
  fmt::print("Submit with:\n  bash {}\n", shell_quoted({(slurm / "submit.sh").string()}));
  return OK;
}

int run_sweep(const SweepOptions& o) {
  if (o.collect + o.dry_run + o.only.has_value() > 1) {
    fmt::print(stderr, "failsim sweep: expected at most one of --dry-run, --only and --collect\n");
    return BAD_INPUT;
  }
  if (!o.emit.empty()) {
    const char* clash = o.dry_run   ? "--dry-run"
                        : o.only    ? "--only"
                        : o.collect ? "--collect"
                        : o.jobs    ? "-j"
                                    : nullptr;
    if (clash != nullptr) {
      fmt::print(stderr,
                 "failsim sweep: --emit {}: expected no {} with it: it runs nothing, it writes "
                 "the scripts that run the sweep\n",
                 o.emit, clash);
      return BAD_INPUT;
    }
    if (const std::string error = slurm_options_error(o.slurm); !error.empty()) {
      fmt::print(stderr, "failsim sweep: {}\n", error);
      return BAD_INPUT;
    }
  } else if (const std::string given = o.slurm.first_given(); !given.empty()) {
    fmt::print(stderr,
               "failsim sweep: {}: expected with --emit slurm only (an option of the Slurm "
               "scripts), found it without\n",
               given);
    return BAD_INPUT;
  }
  sweep::SweepPlan plan;
  std::string output;
  try {
    const sweep::Sweep sweep = sweep::load_sweep(o.sweep);
    plan = sweep::expand_sweep(sweep);
    output = o.output.empty() ? sweep.output_directory : o.output;
  } catch (const input::InputError& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return BAD_INPUT;
  }
  if (!o.emit.empty()) return emit_slurm(plan, o, output);
  const SweepDirectory dir{output};
  if (o.only && *o.only >= plan.runs.size()) {
    fmt::print(stderr, "failsim sweep: --only: expected a run index in [0, {}], found {}\n",
               plan.runs.size() - 1, *o.only);
    return BAD_INPUT;
  }
  if (o.dry_run) {
    print_plan(plan, dir);
    return OK;
  }

  try {
    if (o.collect) {
      check_sweep_plan(plan, dir);
      const int status = collect(plan, dir, o.quiet);
      if (status == RUN_FAILED) report_missing(plan, dir);
      return status;
    }
    prepare_sweep_directory(plan, dir);
    if (o.only) return run_one(plan, dir, *o.only, o.quiet);

    const DirectoryLock lock(dir.root);
    std::vector<std::size_t> pending;
    for (const sweep::SweepRun& run : plan.runs) {
      if (!recover_run(dir, run)) pending.push_back(run.index);
    }
    PoolOptions pool;
    pool.jobs = o.jobs == 0 ? cores() : o.jobs;
    // Runs side by side use the cores better than threads inside runs (docs/performance.md):
    // the cores are shared out among the runs at a time, at least one thread each.
    pool.threads = std::max<std::size_t>(1, cores() / pool.jobs);
    pool.quiet = o.quiet;
    pool.terminal = isatty(fileno(stderr)) != 0;
    pool.total = plan.runs.size();
    pool.done_before = plan.runs.size() - pending.size();
    if (!o.quiet) {
      fmt::print(stderr,
                 "failsim sweep: {}: {} runs ({} points), {} done before, {} to run, {} "
                 "at a time, into {}\n",
                 plan.name, plan.runs.size(), plan.points.size(), pool.done_before, pending.size(),
                 pool.jobs, dir.root.string());
    }
    const auto start = std::chrono::steady_clock::now();
    const std::size_t failed = run_pool(plan, dir, pending, pool);
    if (!o.quiet && !pending.empty()) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print(stderr, "failsim sweep: {} runs in {:.1f} s, {} failed\n", pending.size(), seconds,
                 failed);
    }
    const int status = collect(plan, dir, o.quiet);
    return status != OK ? status : failed > 0 ? RUN_FAILED : OK;
  } catch (const DirectoryRefused& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return BAD_INPUT;
  } catch (const std::exception& e) {
    fmt::print(stderr, "failsim sweep: {}\n", e.what());
    return OUTPUT_FAILED;
  }
}
}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run a sweep file's grid of scenarios and seeds as parallel processes, resumably");
  sub->add_option("sweep", options->sweep, "sweep file (docs/sweeps.md)")->required();
  sub->add_option("-o,--output", options->output,
                  "output directory (default: the sweep's output.directory)");
  sub->add_option("-j,--jobs", options->jobs, "runs at a time (default: one per core)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("-q,--quiet", options->quiet, "print nothing but errors");
  sub->add_flag("--dry-run", options->dry_run,
                "check the sweep and print its runs; write and run nothing");
  sub->add_option("--only", options->only,
                  "run only the run of this index (0-based, as in sweep.json), e.g. in an array "
                  "task of a cluster scheduler; no aggregate");
  sub->add_flag("--collect", options->collect,
                "run nothing: write runs.csv and table.md from the results there are");
  sub->add_option("--emit", options->emit,
                  "run nothing: write the plan and the scripts that run the sweep on a cluster "
                  "scheduler (slurm: a job array and a collection step, in DIR/slurm)")
      ->check(CLI::IsMember({"slurm"}));
  add_slurm_options(*sub, options->slurm);
  return {sub, [options] { return run_sweep(*options); }};
}

}  // namespace failsim::cli
