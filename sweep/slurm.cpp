// The Slurm scripts of a sweep (see sweep_slurm.hpp).
#include "sweep/slurm.hpp"

#include <fmt/core.h>

#include <regex>
#include <stdexcept>
#include <system_error>

#include "input/atomic_file.hpp"
#include "input/option_checks.hpp"
#include "sweep/runner.hpp"

namespace failsim::sweep {
namespace fs = std::filesystem;

namespace {

/// The #SBATCH options the scripts set themselves: another value would break the layout (the
/// array's range, where the logs go, the collection's dependency).
const std::vector<std::string> RESERVED_SBATCH = {
    "-a", "--array", "-o", "--output", "-e", "--error", "-d", "--dependency", "-J", "--job-name"};

/// The option name of an #SBATCH argument: "--mem" of "--mem=2G", "-o" of "-o/x" or "-o x".
std::string sbatch_option_name(const std::string& text) {
  if (text.rfind("--", 0) == 0) return text.substr(0, text.find_first_of("= \t"));
  return text.substr(0, 2);
}

/// The #SBATCH lines common to both jobs: partition, time, account, the user's own.
std::string common_directives(const SlurmOptions& o) {
  std::string out;
  if (o.partition) out += fmt::format("#SBATCH --partition={}\n", *o.partition);
  if (o.time) out += fmt::format("#SBATCH --time={}\n", *o.time);
  if (o.account) out += fmt::format("#SBATCH --account={}\n", *o.account);
  for (const std::string& line : o.sbatch) out += fmt::format("#SBATCH {}\n", line);
  return out;
}

std::string log_path(const SlurmJob& job, const std::string& name) {
  return sbatch_path((job.out_dir / "slurm" / "logs").string(), name);
}

/// The shell variables every script starts from, each one quoted for bash.
std::string variables(const SlurmJob& job) {
  return fmt::format("failsim={}\nsweep={}\ndir={}\n", shell_quoted({job.failsim}),
                     shell_quoted({job.sweep.string()}), shell_quoted({job.out_dir.string()}));
}

std::size_t chunk_of(const SlurmJob& job) { return job.options.chunk.value_or(1); }

void make_executable(const fs::path& file) {
  std::error_code ec;
  fs::permissions(file,
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec |
                      fs::perms::owner_read | fs::perms::owner_write,
                  fs::perm_options::add, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot be made executable ({})", file.string(), ec.message()));
  }
}

}  // namespace

std::string SlurmOptions::first_given() const {
  if (chunk) return "--chunk";
  if (partition) return "--partition";
  if (time) return "--time";
  if (account) return "--account";
  if (array_limit) return "--array-limit";
  if (!sbatch.empty()) return "--sbatch";
  return "";
}

void add_slurm_options(CLI::App& sweep, SlurmOptions& o) {
  const std::string group = "Slurm (with --emit slurm)";
  sweep.add_option("--chunk", o.chunk, "runs per array task (default 1)")
      ->check(input::whole_number<std::size_t>(1))
      ->group(group);
  sweep.add_option("--partition", o.partition, "the jobs' partition (#SBATCH --partition)")
      ->group(group);
  sweep
      .add_option("--time", o.time,
                  "time limit of each array task and of the collection, as Slurm writes it "
                  "(MINUTES, HOURS:MINUTES:SECONDS, DAYS-HOURS, ...)")
      ->group(group);
  sweep.add_option("--account", o.account, "the account the jobs are charged to")->group(group);
  sweep
      .add_option("--array-limit", o.array_limit,
                  "at most this many array tasks running at once (--array=...%M)")
      ->check(input::whole_number<std::size_t>(1))
      ->group(group);
  sweep
      .add_option("--sbatch", o.sbatch,
                  "a further #SBATCH option of both jobs, e.g. --sbatch=--mem=2G; repeatable")
      ->group(group);
}

std::string slurm_options_error(const SlurmOptions& o) {
  // Slurm's time formats (sbatch(1), --time).
  static const std::regex time_re(
      R"(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+|UNLIMITED|INFINITE)",
      std::regex::icase);
  static const std::regex name_re(R"([A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*)");
  if (o.partition && !std::regex_match(*o.partition, name_re)) {
    return fmt::format(
        "--partition: expected a partition name (letters, digits, '_', '.', '-'), or a "
        "comma-separated list of them, found \"{}\"",
        *o.partition);
  }
  if (o.time && !std::regex_match(*o.time, time_re)) {
    return fmt::format(
        "--time: expected a Slurm time limit: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, "
        "DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS or UNLIMITED (e.g. 30, "
        "2:00:00, 1-12), found \"{}\"",
        *o.time);
  }
  if (o.account && !std::regex_match(*o.account, name_re)) {
    return fmt::format(
        "--account: expected an account name (letters, digits, '_', '.', '-'), found \"{}\"",
        *o.account);
  }
  for (const std::string& line : o.sbatch) {
    if (line.empty() || line[0] != '-' || line.find_first_of("\n\r") != std::string::npos) {
      return fmt::format(
          "--sbatch: expected an sbatch option on one line, such as --sbatch=--mem=2G, found "
          "\"{}\"",
          line);
    }
    const std::string name = sbatch_option_name(line);
    for (const std::string& reserved : RESERVED_SBATCH) {
      if (name == reserved) {
        return fmt::format(
            "--sbatch: expected an option the scripts do not set themselves (not --array, "
            "--output, --error, --dependency or --job-name), found \"{}\"",
            line);
      }
    }
  }
  return "";
}

std::size_t slurm_tasks(std::size_t runs, std::size_t chunk) { return (runs + chunk - 1) / chunk; }

std::string sbatch_path(const std::string& dir, const std::string& pattern) {
  if (dir.find_first_of("\"\\\n\r") != std::string::npos) {
    throw std::invalid_argument(fmt::format(
        "{}: expected a directory an #SBATCH line can name, found '\"', '\\' or a line break in "
        "it",
        dir));
  }
  std::string out;
  for (char c : dir) out += c == '%' ? std::string("%%") : std::string(1, c);
  if (!pattern.empty()) out += "/" + pattern;
  if (out.find_first_of(" \t") != std::string::npos) out = "\"" + out + "\"";
  return out;
}

std::string array_script(const SlurmJob& job) {
  const SweepPlan& plan = *job.plan;
  const std::size_t runs = plan.runs.size(), chunk = chunk_of(job);
  const std::size_t tasks = slurm_tasks(runs, chunk);
  std::string limit;
  if (job.options.array_limit) limit = fmt::format("%{}", *job.options.array_limit);
  return fmt::format(
      R"(#!/bin/bash
# failsim sweep "{name}" as a Slurm job array: {runs} runs, {chunk} per task, {tasks} tasks.
# Written by `failsim sweep --emit slurm` (docs/sweeps.md#on-a-slurm-cluster). Submit it with
# submit.sh beside it, which also queues the collection step. Task I runs the runs I*{chunk} to
# I*{chunk}+{last_offset} of the plan (DIR/sweep.json), one after the other, each with
# `failsim sweep SWEEP -o DIR --only INDEX`: a run that is already complete is skipped, so
# submitting the array again resumes the sweep. The task's exit status is the worst of its runs'.
#SBATCH --job-name=failsim-{name}
#SBATCH --array=0-{last_task}{limit}
#SBATCH --output={log}
{directives}
set -u
{variables}runs={runs}
chunk={chunk}
task=${{SLURM_ARRAY_TASK_ID:?is not set: this is a Slurm array job, submit it with sbatch}}
first=$((task * chunk))
last=$((first + chunk - 1))
if ((last >= runs)); then last=$((runs - 1)); fi
echo "failsim sweep {name}: array task $task of job ${{SLURM_ARRAY_JOB_ID:-?}} on $(hostname): runs $first to $last"
status=0
for ((index = first; index <= last; index++)); do
  "$failsim" sweep "$sweep" -o "$dir" --only "$index"
  code=$?
  if ((code > status)); then status=$code; fi
done
exit "$status"
)",
      fmt::arg("name", plan.name), fmt::arg("runs", runs), fmt::arg("chunk", chunk),
      fmt::arg("tasks", tasks), fmt::arg("last_offset", chunk - 1),
      fmt::arg("last_task", tasks - 1), fmt::arg("limit", limit),
      fmt::arg("log", log_path(job, "array-%A-%a.out")),
      fmt::arg("directives", common_directives(job.options)),
      fmt::arg("variables", variables(job)));
}

std::string collect_script(const SlurmJob& job) {
  return fmt::format(
      R"(#!/bin/bash
# The collection step of failsim sweep "{name}" on Slurm: runs.csv and table.md of DIR from the
# runs that have a result (`failsim sweep SWEEP -o DIR --collect`). submit.sh queues it after the
# array job with --dependency=afterany, so it runs even when array tasks failed; it then lists the
# runs without a result and exits with status 1. It may also be run (or submitted) by hand at any
# time: it runs nothing and changes no run.
#SBATCH --job-name=failsim-{name}-collect
#SBATCH --output={log}
{directives}
set -u
{variables}"$failsim" sweep "$sweep" -o "$dir" --collect
)",
      fmt::arg("name", job.plan->name), fmt::arg("log", log_path(job, "collect-%j.out")),
      fmt::arg("directives", common_directives(job.options)),
      fmt::arg("variables", variables(job)));
}

std::string submit_script(const SlurmJob& job) {
  const std::size_t tasks = slurm_tasks(job.plan->runs.size(), chunk_of(job));
  return fmt::format(
      R"(#!/bin/bash
# Submits failsim sweep "{name}" to Slurm: the array job ({tasks} tasks), then the collection
# step, which waits for every task to end, failed or not (--dependency=afterany). Arguments of
# this script are passed to both sbatch commands (sbatch options, e.g. --qos=long). Submitting
# again after a partial or a complete sweep resumes it: complete runs are not run again.
set -euo pipefail
slurm_dir={slurm_dir}
out_dir={out}
array=$(sbatch --parsable "$@" "$slurm_dir/array.sbatch")
array=${{array%%;*}}  # --parsable prints JOBID or JOBID;CLUSTER
collect=$(sbatch --parsable "$@" --dependency="afterany:$array" "$slurm_dir/collect.sbatch")
collect=${{collect%%;*}}
echo "failsim sweep {name}: array job $array ({tasks} tasks), collection job $collect"
echo "  logs in $slurm_dir/logs; once job $collect has ended: $out_dir/runs.csv and table.md"
)",
      fmt::arg("name", job.plan->name), fmt::arg("tasks", tasks),
      fmt::arg("slurm_dir", shell_quoted({(job.out_dir / "slurm").string()})),
      fmt::arg("out", shell_quoted({job.out_dir.string()})));
}

void write_slurm_scripts(const SlurmJob& job) {
  const fs::path slurm = job.out_dir / "slurm";
  std::error_code ec;
  fs::create_directories(slurm / "logs", ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot create directory: {}", (slurm / "logs").string(), ec.message()));
  }
  const std::pair<const char*, std::string> files[] = {{"array.sbatch", array_script(job)},
                                                       {"collect.sbatch", collect_script(job)},
                                                       {"submit.sh", submit_script(job)}};
  for (const auto& [name, text] : files) {
    input::write_atomically(slurm / name, text);
    make_executable(slurm / name);
  }
}

}  // namespace failsim::sweep
