// `failsim run SCENARIO [-o DIR]`: simulate one scenario and write its result directory. The
// steps are sim/run_request.hpp's (load, branches, run) and sim/output/result_writer.hpp's;
// this file parses the options, prints the progress line and the summary, and maps errors to
// the exit statuses of docs/cli.md.
#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "input/interrupt.hpp"
#include "input/json_pointer.hpp"
#include "input/printable.hpp"
#include "models/idx.hpp"
#include "sim/engine/math_pool.hpp"
#include "sim/engine/simgrid_settings.hpp"
#include "sim/output/result_writer.hpp"
#include "sim/ps/branching.hpp"
#include "sim/run_request.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/wall_estimate.hpp"

namespace failsim::cli {

namespace {
struct RunOptions {
  sim::RunRequest request;            ///< but the seed, the output and the settings, from below
  std::optional<std::string> output;  ///< -o DIR as given; unset: the scenario's directory
  std::string seed;                   ///< empty: the scenario's
  std::vector<std::string> settings;  ///< --set POINTER=VALUE, in order
  std::string threads;                ///< empty: every CPU this process may use
  bool quiet = false;
  bool every_step = false;  ///< --simulate-every-step (collective scenarios)
  bool dry_run = false;
  std::vector<std::string> simgrid_cfg;
  std::vector<std::string> simgrid_log;
  /// argv, for result.json's provenance (docs/result-format.md#provenance).
  std::vector<std::string> command_line;
};

/// --threads at most this many times the CPUs: more threads only wait for a core (the math of
/// a run has at most one job per worker in flight), and a typo of 1000 threads would reserve
/// gigabytes of stacks (docs/performance.md, "How many threads").
constexpr std::uint64_t THREADS_PER_CPU = 4;

/// A seed or a count as typed: decimal digits only, within uint64 (CLI11 would clamp an overflow
/// silently).
std::optional<std::uint64_t> parse_unsigned(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

int run_error(const std::exception& e, int status) {
  fmt::print(stderr, "failsim run: {}\n", e.what());
  return status;
}

/// "0:07", "12:30", "2:05:00": a wall-clock duration on the progress line.
std::string clock_text(double seconds) {
  const auto total = static_cast<long long>(seconds + 0.5);
  if (total >= 3600)
    return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

/// The progress line (docs/cli.md, "Progress line"): where the run is against its stop, the
/// wall clock elapsed and the time left at the simulated progress per wall-second so far, the
/// latest evaluation, and an outage mark while a server is down or training is stalled.
std::string progress_line(const sim::Progress& p, const sim::StopConfig& stop) {
  std::string line = fmt::format("  t = {:.2f} s", p.time);
  // The fraction done: the furthest of the stops that bound the run.
  double done = -1.0;
  if (stop.time) {
    line += fmt::format(" of {} s", *stop.time);
    done = std::max(done, p.time / *stop.time);
  }
  if (stop.updates) {
    line += fmt::format(", update {} of {}", p.updates, *stop.updates);
    done = std::max(done, static_cast<double>(p.updates) / static_cast<double>(*stop.updates));
  } else {
    line += fmt::format(", {} updates", p.updates);
  }
  if (stop.version) {
    line += fmt::format(", version {} of {}", p.version, *stop.version);
    done = std::max(done, static_cast<double>(p.version) / static_cast<double>(*stop.version));
  }
  if (p.evaluation) line += fmt::format(", test accuracy {:.4f}", p.evaluation->test_accuracy);
  if (stop.target_accuracy) line += fmt::format(" (target {})", *stop.target_accuracy);
  line += fmt::format("   {} elapsed", clock_text(p.wall_seconds));
  if (done > 0.0 && done < 1.0) {
    line += fmt::format(", about {} left", clock_text(p.wall_seconds * (1.0 - done) / done));
  } else if (done < 0.0) {
    line += ", time left unknown (no stop but the target)";
  }
  std::vector<std::string> down;
  if (p.stalled_since)
    down.push_back(fmt::format("training stalled since {:.2f} s", *p.stalled_since));
  if (p.server_hosts_down > 0)
    down.push_back(fmt::format("{} server host(s) down", p.server_hosts_down));
  if (p.worker_hosts_down > 0)
    down.push_back(fmt::format("{} worker host(s) down", p.worker_hosts_down));
  if (p.storage_down) down.push_back("storage down");
  if (!down.empty()) line += fmt::format("   [OUTAGE: {}]", fmt::join(down, ", "));
  return line;
}

/// The summary's line on failures, when the scenario had any or updates were rolled back: how
/// many were injected (and skipped, or not injected before the stop), the updates rolled back
/// and the gradients lost, and how long training stalled (from a server's death to its shard's
/// next update, summed over the outages: the time lost). From the recorder's events and counts.
std::string failure_summary(const sim::RunResult& r) {
  const sim::Recorder& rec = r.recorder;
  int injected = 0, skipped = 0, not_injected = 0;
  double stalled = 0.0;
  for (const sim::EventRecord& e : rec.events()) {
    using T = sim::EventType;
    injected += e.type == T::FAILURE || e.type == T::LINK_FAILURE;
    skipped += e.type == T::FAILURE_SKIPPED;
    not_injected += e.type == T::FAILURE_NOT_INJECTED;
    if (e.type == T::TRAINING_RESUMED) stalled += e.details.at("stalled_for").get<double>();
  }
  const auto open = rec.stalled_since();
  const bool rolled =
      rec.updates_rolled_back() > 0 || (r.collective && r.collective->counts.steps_rolled_back > 0);
  if (injected + skipped + not_injected == 0 && !rolled && !open) return "";
  std::string line = fmt::format("  {} failure{} injected", injected, injected == 1 ? "" : "s");
  if (skipped > 0) line += fmt::format(", {} skipped", skipped);
  if (not_injected > 0)
    line += fmt::format(", {} not injected (the run stopped first)", not_injected);
  if (r.collective) {
    // A collective run: its steps rolled back and the wall time its failures cost, by cause.
    const sim::CollectiveSummary& c = *r.collective;
    const auto lost = [&](sim::TimeCause cause) {
      return c.seconds[static_cast<std::size_t>(cause)];
    };
    line += fmt::format(
        "; {} steps rolled back; lost {:.2f} s of work, {:.2f} s detecting, {:.2f} s waiting "
        "for repairs, {:.2f} s restarting, {:.2f} s loading",
        c.counts.steps_rolled_back, lost(sim::TimeCause::LOST_WORK),
        lost(sim::TimeCause::DETECTION), lost(sim::TimeCause::REPAIR_WAIT),
        lost(sim::TimeCause::RESTART), lost(sim::TimeCause::CHECKPOINT_LOAD));
    return line + "\n";
  }
  line += fmt::format("; {} updates rolled back ({} gradients), {} gradients lost",
                      rec.updates_rolled_back(), rec.gradients_rolled_back(), rec.gradients_lost());
  line += fmt::format("; training stalled {:.2f} s", stalled);
  if (open) line += fmt::format(", and from {:.2f} s to the end", *open);
  return line + "\n";
}

/// The expected wall time by part (sim/scenario/wall_estimate.hpp), or why it is unknown.
std::string wall_time_text(const sim::WallEstimate& wall, const std::string& unknown) {
  if (!wall.known) return fmt::format("wall time: unknown ({})", unknown);
  return fmt::format(
      "wall time: {}about {} on one math thread (set-up {:.2g} s, simulation {:.2g} s, math "
      "{:.2g} s; docs/performance.md, \"Estimates\")",
      wall.at_least ? "at least " : "", sim::duration_text(wall.total_seconds()),
      wall.setup_seconds, wall.simulation_seconds, wall.math_seconds);
}

/// `--dry-run`: what the checks found out about the run, on stdout (docs/cli.md, "Dry run").
void print_estimate(const sim::RunSet& set, const sim::CheckedRun& checked) {
  const sim::Scenario& s = set.scenarios.front();
  const sim::ResolvedJob& job = checked.job;
  const sim::WorkEstimate& w = job.work;
  const sim::MemoryEstimate& m = job.memory;
  fmt::print("{}: ok, a dry run: nothing simulated, nothing written\n", set.files.front());
  fmt::print("  result directory: {}\n", fmt::join(set.directories, ", "));
  if (job.collective) {
    // A collective job: its plan (docs/cluster.md); the wall-time estimate is the parameter
    // server's and does not apply.
    const sim::CollectivePlan& p = *job.collective;
    fmt::print(
        "  job: {} ranks (dp {} x tp {} x pp {}) on {} nodes, {} micro-batches; {:.4g} "
        "flops a step, {:.4g} s of compute a step at nominal speed (bubble {:.1f}%)\n",
        p.ranks(), p.dp, p.tp, p.pp, s.collective.platform.nodes, p.micro_batches, p.step_flops,
        p.compute_seconds, 100.0 * p.bubble_fraction);
    fmt::print(
        "  memory per accelerator: {} of {} (model states {}, activations {}); a "
        "checkpoint {}\n",
        sim::format_bytes(p.memory.total()),
        sim::format_bytes(s.collective.platform.node.device_memory),
        sim::format_bytes(p.memory.model_states), sim::format_bytes(p.memory.activations),
        sim::format_bytes(p.checkpoint_bytes));
    const sim::CollectiveWork& cw = job.collective_work;
    fmt::print(
        "  this machine: {} of memory (set-up {}, {}), {:.3g} random failures expected\n",
        sim::format_bytes(cw.setup_bytes + m.resident_bytes()), sim::format_bytes(cw.setup_bytes),
        s.collective.workload.real_math ? "real math " + sim::format_bytes(m.resident_bytes())
                                        : std::string("no math"),
        cw.failures);
    fmt::print("  {}\n", wall_time_text(sim::estimate_wall_time(s, job), ""));
    return;
  }
  fmt::print(
      "  job: {} parameters in {} shard(s), {} worker(s), {} server process(es); {} "
      "training and {} test samples\n",
      job.num_params, job.shards.size(), s.cluster.num_workers(),
      s.cluster.num_servers() * s.cluster.shards, job.train.samples, job.test.samples);
  const std::string gradients =
      std::isinf(w.gradients) ? "gradients unbounded (no stop bounds them)"
      : w.gradients == 0.0    ? "gradients unknown (the platform file's speeds decide them)"
                              : fmt::format("at most {:.0f} gradients", w.paced_gradients);
  fmt::print("  work: {}, {:.0f} scheduled evaluations, {:.3g} random failures expected\n",
             gradients, w.evaluations + w.evaluations_by_updates, w.failures);
  fmt::print(
      "  memory: {} (data {}, parameters {}, batch scratch {}) and {:.0f} SimGrid actors x "
      "{} KiB stacks ({})\n",
      sim::format_bytes(m.resident_bytes()), sim::format_bytes(m.data_bytes),
      sim::format_bytes(m.model_bytes), sim::format_bytes(m.scratch_bytes), m.actors,
      checked.stacks.kib, sim::format_bytes(checked.stacks.bytes));
  fmt::print("  {}\n", wall_time_text(sim::estimate_wall_time(s, job), gradients));
}

/// Writes the result directory and prints the summary; returns the exit status.
int report(const sim::RunResult& result, const std::string& directory, const RunOptions& o) {
  const bool quiet = o.quiet;
  try {
    sim::write_result_directory(result, directory, o.command_line);
  } catch (const std::exception& e) {
    return run_error(e, OUTPUT_FAILED);
  }
  if (!quiet && result.collective) {
    // A collective run: its steps, failures and effective training time (docs/cluster.md).
    const sim::CollectiveSummary& c = *result.collective;
    fmt::print(
        "{}: {} at t = {:.2f} s ({}), {} steps kept of {} completed, {} failures, {} "
        "restarts, ETTR {:.3f}",
        result.scenario.name, sim::to_string(result.status), result.end_time, result.stop_reason,
        c.version, c.counts.steps_completed, c.counts.failures, c.counts.restarts, c.ettr);
  } else if (!quiet) {
    fmt::print("{}: {} at t = {:.2f} s ({}), {} updates, {} gradients computed",
               result.scenario.name, sim::to_string(result.status), result.end_time,
               result.stop_reason, result.recorder.updates(), result.recorder.gradients_computed());
  }
  if (!quiet) {
    if (const auto last = sim::closing_evaluation(result))
      fmt::print(", test accuracy {:.4f}", last->test_accuracy);
    fmt::print("\n{}  results in {} ({:.2f} s wall clock, {:.2f} s of it math)\n",
               failure_summary(result), directory, result.wall_seconds, result.math_seconds);
  }
  return result.status == sim::RunStatus::DEADLOCK ? RUN_FAILED : OK;
}

/// Checks the options of the command line and puts the seed, the output and the settings into
/// o.request; returns the number of math threads, or nullopt after printing what is wrong.
std::optional<int> read_command_line(RunOptions& o) {
  o.request.seed = o.seed.empty() ? std::optional<std::uint64_t>{} : parse_unsigned(o.seed);
  if (!o.seed.empty() && !o.request.seed) {
    fmt::print(stderr, "failsim run: --seed: expected an integer in [0, 2^64 - 1], found {}\n",
               input::printable_excerpt(o.seed, 200));
    return std::nullopt;
  }
  const auto cpus = static_cast<std::uint64_t>(sim::MathPool::hardware_threads());
  const auto threads =
      o.threads.empty() ? std::optional<std::uint64_t>{cpus} : parse_unsigned(o.threads);
  if (!threads || *threads < 1 || *threads > THREADS_PER_CPU * cpus) {
    fmt::print(stderr,
               "failsim run: --threads: expected an integer in [1, {}] ({} x the {} CPU{} this "
               "process may use), found {}\n",
               THREADS_PER_CPU * cpus, THREADS_PER_CPU, cpus, cpus == 1 ? "" : "s",
               input::printable_excerpt(o.threads, 200));
    return std::nullopt;
  }
  if (o.output && o.output->empty()) {
    fmt::print(stderr,
               "failsim run: -o/--output: expected a directory, found an empty string "
               "(leave -o out for the scenario's output.directory)\n");
    return std::nullopt;
  }
  o.request.output = o.output.value_or("");
  try {
    for (const std::string& setting : o.simgrid_cfg) sim::check_simgrid_setting(setting);
  } catch (const input::InputError& e) {
    run_error(e, BAD_INPUT);
    return std::nullopt;
  }
  for (const std::string& text : o.settings) {
    const auto setting = input::parse_pointer_setting(text);
    if (!setting) {
      fmt::print(stderr, "failsim run: --set: expected POINTER=VALUE, found {}\n",
                 input::printable_excerpt(text, 200));
      return std::nullopt;
    }
    o.request.settings.push_back(*setting);
  }
  return static_cast<int>(*threads);
}

/// Simulates the run set (with a progress line on a terminal), writes the result and prints the
/// summary, then waits for this process's branches; returns the exit status.
int simulate(const sim::RunSet& set, sim::RunOptions options, const RunOptions& o) {
  const bool progress = !o.quiet && isatty(fileno(stderr));
  if (progress) {
    options.on_progress = [stop = set.scenarios.front().stop](const sim::Progress& p) {
      // \x1b[K erases what a longer line before it left.
      fmt::print(stderr, "\r\x1b[K{}", progress_line(p, stop));
      std::fflush(stderr);
    };
  }
  // Said as the Interrupted below is, when the simulation cannot answer a signal in time itself.
  options.say_interrupted =
      [progress,
       directories = fmt::format("{}", fmt::join(set.directories, ", "))](const std::string& what) {
        return fmt::format("{}failsim run: {}; nothing was written to {}", progress ? "\n" : "",
                           what, directories);
      };
  if (!o.quiet) {
    options.on_estimate = [](const sim::WallEstimate& wall) {
      if (wall.known) fmt::print(stderr, "failsim run: expected {}\n", wall_time_text(wall, ""));
    };
  }
  sim::RunResult result;
  try {
    result = sim::run_set(set, options);
  } catch (const input::InputError& e) {
    return run_error(e, BAD_INPUT);
  } catch (const models::DataError& e) {
    return run_error(e, BAD_INPUT);
  } catch (const sim::ThreadsRefused& e) {
    // Found when the run's math starts, before anything is simulated or written.
    fmt::print(stderr,
               "failsim run: --threads: expected a number of threads the system starts, found "
               "{}: {}\n",
               e.asked(), e.what());
    return BAD_INPUT;
  } catch (const input::Interrupted& e) {
    if (progress) fmt::print(stderr, "\n");
    fmt::print(stderr, "failsim run: {}; nothing was written to {}\n", e.what(),
               fmt::join(set.directories, ", "));
    input::exit_interrupted(e.signal());
  }
  if (progress && result.member == 0) fmt::print(stderr, "\n");
  int status = report(result, set.directories[result.member], o);
  if (const int signal = input::caught_interrupt(); signal != 0 && status == OK) {
    // Caught while the result directory was written: the writer finished it first.
    fmt::print(stderr, "failsim run: interrupted by {} after the run ended; {} is complete\n",
               input::signal_name(signal), set.directories[result.member]);
    status = 128 + signal;
  }
  // This process's branches (if any) write their own results; the command is done when they are.
  const int branch_status = sim::wait_for_children(result.children);
  if (status == OK) status = branch_status;
  return status;
}

int run_scenario(RunOptions o) {
  const std::optional<int> threads = read_command_line(o);
  if (!threads) return BAD_INPUT;
  if (o.quiet) sim::print_warnings(false);  // -q: nothing but errors
  input::catch_interrupts();                // from here on, Ctrl-C ends the command with a message
  sim::RunSet set;
  try {
    set = sim::load_run_set(o.request);
  } catch (const input::InputError& e) {
    return run_error(e, BAD_INPUT);
  } catch (const sim::RunRequestError& e) {
    return run_error(e, BAD_INPUT);
  }

  // Every result directory must be writable before anything is simulated.
  for (const std::string& directory : set.directories) {
    try {
      sim::check_result_directory(directory);
    } catch (const std::exception& e) {
      fmt::print(stderr, "failsim run: {}; nothing was simulated\n", e.what());
      return OUTPUT_FAILED;
    }
  }

  sim::RunOptions options;
  options.threads = *threads;
  options.simulate_every_step = o.every_step;
  for (const auto& c : o.simgrid_cfg) options.simgrid_args.push_back("--cfg=" + c);
  for (const auto& l : o.simgrid_log) options.simgrid_args.push_back("--log=" + l);
  if (o.dry_run) {
    try {
      // Kept to the process's end, not freed: the process ends here, and a plan of millions of
      // ranks takes seconds to free (a signal would find nothing that looks for it).
      static const sim::CheckedRun* const checked =
          new sim::CheckedRun(sim::check_run_set(set, options));
      print_estimate(set, *checked);
      if (const int signal = input::caught_interrupt()) {
        // Caught after the last check that looks: the estimate stands, the status says so.
        fmt::print(stderr, "failsim run: interrupted by {} after the dry run's checks\n",
                   input::signal_name(signal));
        input::exit_interrupted(signal);
      }
    } catch (const input::InputError& e) {
      return run_error(e, BAD_INPUT);
    } catch (const input::Interrupted& e) {
      // Caught while the plan of a large job was built: a dry run writes nothing anyway.
      fmt::print(stderr, "failsim run: {}; a dry run, nothing was written\n", e.what());
      input::exit_interrupted(e.signal());
    }
    return OK;
  }
  return simulate(set, std::move(options), o);
}
}  // namespace

Command add_run_command(CLI::App& app, std::vector<std::string> command_line) {
  auto options = std::make_shared<RunOptions>();
  options->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand("run", "Simulate a scenario and write its result directory");
  sub->add_option("scenario", options->request.scenario, "scenario file (docs/scenario-format.md)")
      ->required();
  sub->add_option("-o,--output", options->output,
                  "result directory (default: the scenario's output.directory)");
  sub->add_option("--seed", options->seed,
                  "seed of the run instead of the scenario's (recorded in result.json)")
      ->type_name("INTEGER");
  sub->add_option("--threads", options->threads,
                  "threads computing gradients and evaluations (default: every CPU this process "
                  "may use); the results do not depend on it (docs/performance.md)")
      ->type_name("INTEGER");
  sub->add_flag("-q,--quiet", options->quiet, "print nothing but errors");
  sub->add_flag("--simulate-every-step", options->every_step,
                "collective scenarios: simulate the network of every step instead of reusing "
                "a step's times while the network is idle (the results are identical; slower)");
  sub->add_flag("--dry-run", options->dry_run,
                "make every check of a run and print an estimate of its work, memory and wall "
                "time; simulate and write nothing");
  sub->add_option("--set", options->settings,
                  "set a field of the scenario, e.g. --set /failures/events/0/at=40s (VALUE is "
                  "JSON if it parses as JSON, else a string); repeatable")
      ->allow_extra_args(false);
  sub->add_option("--branch", options->request.branches,
                  "also simulate FILE, a scenario that differs only in its name, description, "
                  "output.directory "
                  "and failures at a time, into DIR (default: its output.directory), sharing the "
                  "simulation up to the first failure that tells them apart; repeatable")
      ->allow_extra_args(false);
  sub->add_option("--cfg", options->simgrid_cfg,
                  "SimGrid configuration, e.g. --cfg=network/model:CM02")
      ->allow_extra_args(false);
  sub->add_option("--log", options->simgrid_log, "SimGrid logging, e.g. --log=failsim.thresh:debug")
      ->allow_extra_args(false);
  return {sub, [options] { return run_scenario(*options); }};
}

}  // namespace failsim::cli
