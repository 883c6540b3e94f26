// `failsim sweep SWEEP.json [-j N] [-o DIR] [-q] [--dry-run | --only INDEX | --collect |
// --emit slurm]`: expand a sweep file into runs, run them as parallel child processes, resume an
// interrupted sweep, and write runs.csv and table.md (docs/sweeps.md), or write the scripts that
// run it on a Slurm cluster. The steps are sweep/session.hpp's (the format in sweep/plan.hpp, the
// processes in sweep/runner.hpp, the scripts in sweep/slurm.hpp, the aggregate in
// sweep/aggregate.hpp); this file reads the options, calls the step they ask for and maps its
// outcome and errors to the exit statuses of docs/cli.md.
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/python_script.hpp"
#include "input/interrupt.hpp"
#include "input/option_checks.hpp"
#include "sim/engine/math_pool.hpp"
#include "sweep/session.hpp"

#ifndef FAILSIM_DEFAULT_PRICES
#error "FAILSIM_DEFAULT_PRICES (the source tree's analysis/prices.json) must be defined"
#endif

namespace failsim::cli {

namespace {
struct SweepOptions {
  sweep::SessionOptions session;
  std::size_t jobs = 0;  ///< 0: one per core
  bool dry_run = false;
  std::optional<std::size_t> only;
  bool collect = false;
  std::string emit;  ///< "slurm", or "" to run the sweep here
  sweep::SlurmOptions slurm;
};

/// The sweep file's `figures`, drawn by `failsim plot` from the runs there are into DIR/figures
/// once the aggregate is written (docs/sweeps.md); OK when it asks for none or no run has a
/// result (no table.md), else plot's exit status.
int draw_figures(const sweep::SweepSession& session) {
  const std::vector<std::string>& figures = session.plan().figures;
  std::error_code ec;
  if (figures.empty() || !std::filesystem::exists(session.root() / "table.md", ec)) return OK;
  std::string list;
  for (const std::string& f : figures) list += (list.empty() ? "" : ",") + f;
  return run_analysis_script(
      "plot.py", "failsim sweep",
      {session.root().string(), "--figures", list, "-o", (session.root() / "figures").string()});
}

int sweep_error(const std::exception& e, int status) {
  fmt::print(stderr, "failsim sweep: {}\n", e.what());
  return status;
}

int run_sweep(SweepOptions o) {
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
    if (const std::string error = sweep::slurm_options_error(o.slurm); !error.empty()) {
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
  o.session.prices = FAILSIM_DEFAULT_PRICES;
  std::optional<sweep::SweepSession> session;
  try {
    session.emplace(o.session);
  } catch (const input::InputError& e) {
    return sweep_error(e, BAD_INPUT);
  }
  try {
    if (!o.emit.empty()) {
      session->emit_slurm(o.slurm);
      return OK;
    }
    const std::size_t runs = session->plan().runs.size();
    if (o.only && *o.only >= runs) {
      fmt::print(stderr, "failsim sweep: --only: expected a run index in [0, {}], found {}\n",
                 runs - 1, *o.only);
      return BAD_INPUT;
    }
    const auto cores = static_cast<std::size_t>(sim::MathPool::hardware_threads());
    if (o.dry_run) {
      session->print_plan(o.jobs, cores);
      return OK;
    }
    input::catch_interrupts();  // Ctrl-C stops the runs and says how to resume
    const bool complete = o.collect ? session->collect()
                          : o.only  ? session->run_one(*o.only)
                                    : session->run_all(o.jobs, cores);
    // --only writes no aggregate, so it draws nothing either.
    if (const int drawn = o.only ? OK : draw_figures(*session); drawn != OK) return drawn;
    return complete ? OK : RUN_FAILED;
  } catch (const input::InputError& e) {
    return sweep_error(e, BAD_INPUT);
  } catch (const sweep::DirectoryRefused& e) {
    return sweep_error(e, BAD_INPUT);
  } catch (const input::Interrupted& e) {
    fmt::print(stderr,
               "failsim sweep: {}; the runs it stopped left nothing, and the same command "
               "resumes the sweep\n",
               e.what());
    return 128 + e.signal();
  } catch (const std::exception& e) {
    return sweep_error(e, OUTPUT_FAILED);
  }
}
}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run a sweep file's grid of scenarios and seeds as parallel processes, resumably");
  sub->add_option("sweep", options->session.sweep, "sweep file (docs/sweeps.md)")->required();
  sub->add_option("-o,--output", options->session.output,
                  "output directory (default: the sweep's output.directory)");
  sub->add_option("-j,--jobs", options->jobs, "runs at a time (default: one per core)")
      ->check(input::whole_number<std::size_t>(1));
  sub->add_flag("-q,--quiet", options->session.quiet, "print nothing but errors");
  CLI::Option* dry_run = sub->add_flag("--dry-run", options->dry_run,
                                       "check the sweep and print its runs; write and run nothing");
  CLI::Option* only =
      sub->add_option("--only", options->only,
                      "run only the run of this index (0-based, as in sweep.json), e.g. in an "
                      "array task of a cluster scheduler; no aggregate")
          ->check(input::whole_number<std::size_t>(0))
          ->excludes(dry_run);
  sub->add_flag("--collect", options->collect,
                "run nothing: write runs.csv and table.md from the results there are")
      ->excludes(dry_run)
      ->excludes(only);
  sub->add_option("--emit", options->emit,
                  "run nothing: write the plan and the scripts that run the sweep on a cluster "
                  "scheduler (slurm: a job array and a collection step, in DIR/slurm)")
      ->check(input::one_of({"slurm"}));
  sweep::add_slurm_options(*sub, options->slurm);
  return {sub, [options] { return run_sweep(*options); }};
}

}  // namespace failsim::cli
