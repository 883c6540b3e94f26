// Running a sweep's plan: directory layout, plan check, child processes, progress (see
// sweep_runner.hpp).
#include "sweep/runner.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "input/atomic_file.hpp"
#include "input/interrupt.hpp"
#include "sweep/aggregate.hpp"

namespace failsim::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// "runs/<point>/seed-3" -> "runs/<point>/.seed-3<suffix>"
fs::path hidden_sibling(const fs::path& path, const std::string& suffix) {
  return path.parent_path() / fmt::format(".{}{}", path.filename().string(), suffix);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// What the existing plan is and how it differs from this one, for the refusal message: "another
/// plan (point 3 is ... there, ... here)", or what the file is when it is no plan of this sweep.
std::string plan_difference(const json& fresh, const json& existing) {
  if (!existing.is_object() || existing.value("format", "") != "failsim-sweep-plan") {
    return "a file that is not a failsim sweep plan";
  }
  if (existing.value("name", "") != fresh["name"].get<std::string>()) {
    return fmt::format("the plan of sweep \"{}\"", existing.value("name", ""));
  }
  const auto another = [](const std::string& how) { return "another plan (" + how + ")"; };
  const json& a = fresh["points"];
  const json* b = existing.contains("points") ? &existing["points"] : nullptr;
  if (b == nullptr || !b->is_array()) return another("no points");
  for (std::size_t i = 0; i < std::min(a.size(), b->size()); ++i) {
    const json& p = (*b)[i];
    if (p.value("id", "") != a[i]["id"].get<std::string>()) {
      return another(fmt::format("point {} is \"{}\" there, \"{}\" here", i, p.value("id", ""),
                                 a[i]["id"].get<std::string>()));
    }
    if (!p.contains("scenario") || p["scenario"] != a[i]["scenario"]) {
      return another(
          fmt::format("the scenario of point {} (\"{}\") differs: was its base "
                      "scenario, {}, edited?",
                      i, a[i]["id"].get<std::string>(), a[i]["base"].get<std::string>()));
    }
  }
  if (a.size() != b->size()) {
    return another(
        fmt::format("{} point{} there, {} here", b->size(), b->size() == 1 ? "" : "s", a.size()));
  }
  const json* runs = existing.contains("runs") ? &existing["runs"] : nullptr;
  if (runs == nullptr || !runs->is_array() || runs->size() != fresh["runs"].size()) {
    return another(fmt::format("{} runs there, {} here",
                               runs && runs->is_array() ? runs->size() : 0, fresh["runs"].size()));
  }
  return another("other seeds or paths");
}

std::string minutes(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string describe_wait(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), name ? name : "?");
  }
  return fmt::format("wait status {}", status);
}

/// The last `lines` lines of `text`, each indented, at most ~2000 characters.
std::string tail(const std::string& text, std::size_t lines) {
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  const std::size_t from = all.size() > lines ? all.size() - lines : 0;
  for (std::size_t i = from; i < all.size(); ++i) {
    std::string line = all[i];
    if (line.size() > 300) line = line.substr(0, 297) + "...";
    out += "  | " + line + "\n";
  }
  return out;
}

void remove_all_or_throw(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot be removed ({})", path.string(), ec.message()));
  }
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot be moved to {} ({})", from.string(), to.string(), ec.message()));
  }
}

}  // namespace

fs::path SweepDirectory::partial_dir(const SweepRun& run) const {
  return hidden_sibling(result_dir(run), ".partial");
}

fs::path SweepDirectory::stderr_file(const SweepRun& run) const {
  return hidden_sibling(result_dir(run), ".stderr");
}

void check_sweep_plan(const SweepPlan& plan, const SweepDirectory& dir) {
  const json fresh = sweep::plan_json(plan);
  std::error_code ec;
  if (!fs::exists(dir.plan_file(), ec)) {
    throw DirectoryRefused(fmt::format(
        "{}: expected the plan of this sweep (sweep.json), found no such file: nothing was run "
        "into {}",
        dir.plan_file().string(), dir.root.string()));
  }
  json existing = json::parse(read_text(dir.plan_file()), nullptr, false);
  // A plan written before sweep.json held the labels (which name nothing a run depends on) is
  // still this plan: its runs are resumed (its figures use the default labels).
  if (existing.is_object() && !existing.contains("labels")) existing["labels"] = fresh["labels"];
  if (existing == fresh) return;
  throw DirectoryRefused(fmt::format(
      "{}: expected the plan of this sweep file ({} runs), found {}. The results in {} belong to "
      "that plan and must not be mixed with this one's: give this sweep another output "
      "directory (-o DIR), or delete {} to start afresh",
      dir.plan_file().string(), plan.runs.size(),
      existing.is_discarded() ? "a file that is not JSON" : plan_difference(fresh, existing),
      dir.root.string(), dir.root.string()));
}

void prepare_sweep_directory(const SweepPlan& plan, const SweepDirectory& dir) {
  std::error_code ec;
  fs::create_directories(dir.root, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot create directory: {}", dir.root.string(), ec.message()));
  }
  if (fs::exists(dir.plan_file(), ec)) {
    check_sweep_plan(plan, dir);
  } else {
    if (fs::exists(dir.root / "runs", ec)) {
      throw DirectoryRefused(fmt::format(
          "{}: expected a sweep's output directory with its plan (sweep.json), found runs/ "
          "without one: results of an unknown plan. Give this sweep another output directory "
          "(-o DIR), or delete {} to start afresh",
          dir.root.string(), dir.root.string()));
    }
    input::write_atomically(dir.plan_file(), sweep::plan_json(plan).dump(2) + "\n");
  }
  for (const SweepPoint& point : plan.points) {
    const fs::path file = dir.scenario_file(point);
    const std::string text = point.scenario.dump(2) + "\n";
    if (fs::exists(file, ec) && read_text(file) == text) continue;
    fs::create_directories(file.parent_path(), ec);
    input::write_atomically(file, text);
  }
}

DirectoryLock::DirectoryLock(const fs::path& directory) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot create directory: {}", directory.string(), ec.message()));
  }
  // O_CLOEXEC: the children must not inherit the lock, or an orphan would hold it.
  fd_ = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    throw std::runtime_error(
        fmt::format("{}: cannot be opened ({})", directory.string(), std::strerror(errno)));
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) {
      throw DirectoryRefused(fmt::format(
          "{}: expected a sweep directory no other process is running in, found another "
          "failsim sweep at work there: wait for it to end, or give another output directory "
          "(-o DIR)",
          directory.string()));
    }
    throw std::runtime_error(
        fmt::format("{}: cannot be locked ({})", directory.string(), std::strerror(error)));
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) close(fd_);
}

bool recover_run(const SweepDirectory& dir, const SweepRun& run) {
  std::error_code ec;
  fs::remove(dir.stderr_file(run), ec);
  const fs::path final_dir = dir.result_dir(run);
  const fs::path partial = dir.partial_dir(run);
  if (sweep::sweep_run_complete(dir.root, run)) {
    remove_all_or_throw(partial);
    return true;
  }
  // A result directory without result.json is not one the sweep made: rerun it.
  if (fs::exists(final_dir, ec)) remove_all_or_throw(final_dir);
  if (fs::is_regular_file(partial / "result.json", ec)) {
    // The child had finished (result.json is written last) when the sweep was killed.
    rename_or_throw(partial, final_dir);
    return true;
  }
  remove_all_or_throw(partial);
  return false;
}

std::vector<std::string> run_command(const std::string& exe, const SweepPlan& plan,
                                     const SweepDirectory& dir, const SweepRun& run,
                                     std::size_t threads) {
  std::vector<std::string> command{exe,
                                   "run",
                                   dir.scenario_file(plan.points[run.point]).string(),
                                   "--seed",
                                   std::to_string(run.seed),
                                   "-o",
                                   dir.partial_dir(run).string(),
                                   "-q"};
  if (threads > 0) {
    command.push_back("--threads");
    command.push_back(std::to_string(threads));
  }
  return command;
}

std::string shell_quoted(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& word : command) {
    if (!out.empty()) out += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789._-/=+:,@") == std::string::npos;
    if (plain) {
      out += word;
    } else {
      out += '\'';
      for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

std::string self_executable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : exe.string();
}

pid_t start_run(const std::vector<std::string>& command, const fs::path& stderr_path) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> words = command;
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string err_path = stderr_path.string();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    throw std::runtime_error(fmt::format("cannot start a run ({})", std::strerror(errno)));
  }
  if (pid == 0) {
    // Die with the sweep: a killed sweep must leave no orphan writing into its directory.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open("/dev/null", O_WRONLY);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    // /proc/self/exe is this very binary even if its file was replaced by a rebuild meanwhile.
    execv("/proc/self/exe", argv.data());
    const char message[] = "failsim sweep: cannot execute /proc/self/exe\n";
    [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
  return pid;
}

RunOutcome finish_run(const SweepDirectory& dir, const SweepRun& run, int wait_status) {
  RunOutcome outcome;
  outcome.status = describe_wait(wait_status);
  std::error_code ec;
  outcome.stderr_tail = tail(read_text(dir.stderr_file(run)), 12);
  fs::remove(dir.stderr_file(run), ec);
  const fs::path partial = dir.partial_dir(run);
  const bool exited_ok = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  if (fs::is_regular_file(partial / "result.json", ec)) {
    if (fs::exists(dir.result_dir(run), ec)) remove_all_or_throw(dir.result_dir(run));
    rename_or_throw(partial, dir.result_dir(run));
    outcome.complete = true;
  } else {
    remove_all_or_throw(partial);
    if (exited_ok) outcome.status += ", but no result.json was written";
  }
  outcome.failed = !exited_ok || !outcome.complete;
  return outcome;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// run_pool's loop and its state: the children running, the counts the progress line shows,
/// whether an interrupt is stopping the pool.
class Pool {
 public:
  Pool(const SweepPlan& plan, const SweepDirectory& dir, const std::vector<std::size_t>& pending,
       const PoolOptions& options)
      : plan_(plan),
        dir_(dir),
        pending_(pending),
        options_(options),
        show_progress_(options.terminal && !options.quiet) {}

  /// Runs every pending run; returns how many failed. Throws input::Interrupted after an
  /// interrupt, once the running children have ended.
  std::size_t run() {
    while ((next_ < pending_.size() && !stopping_) || !running_.empty()) {
      stop_runs();
      start_runs();
      if (show_progress_ && !stopping_) progress_line();
      if (running_.empty()) continue;
      int status = 0;
      const pid_t pid = wait_for_one(status);
      if (pid > 0) reap(pid, status);
    }
    if (stopping_) {
      clear_line();
      throw input::Interrupted(input::caught_interrupt(),
                               fmt::format("with {} of {} runs done",
                                           options_.done_before + completed_, options_.total));
    }
    if (show_progress_) {
      progress_line();
      fmt::print(stderr, "\n");
    }
    return failed_;
  }

 private:
  struct Running {
    std::size_t run;
    std::vector<std::string> command;
    Clock::time_point started;
  };

  void progress_line() {
    const double elapsed = seconds_since(start_);
    const std::size_t remaining = pending_.size() - finished_;
    std::string eta = "estimating time left";
    if (finished_ > 0) {
      eta = "about " + minutes(elapsed / double(finished_) * double(remaining)) + " left";
    }
    // \x1b[K erases what a longer line before it left (on a terminal only: show_progress_).
    fmt::print(stderr, "\r\x1b[K  {}/{} runs done, {} failed, {} elapsed, {}",
               options_.done_before + finished_, options_.total, failed_, minutes(elapsed), eta);
    std::fflush(stderr);
    line_shown_ = true;
  }

  void clear_line() {
    if (line_shown_) fmt::print(stderr, "\r\x1b[K");
    line_shown_ = false;
  }

  /// Ctrl-C or SIGTERM (input/interrupt.hpp): no run is started after it, the running ones are
  /// asked to stop (SIGTERM), and what they leave is cleaned as for a failed run, so the sweep
  /// resumes exactly where it stopped.
  void stop_runs() {
    if (stopping_ || input::caught_interrupt() == 0) return;
    stopping_ = true;
    for (const auto& [pid, r] : running_) kill(pid, SIGTERM);
  }

  /// Starts pending runs until options_.jobs children run (none once stopping).
  void start_runs() {
    while (!stopping_ && running_.size() < options_.jobs && next_ < pending_.size()) {
      const SweepRun& run = plan_.runs[pending_[next_++]];
      std::error_code ec;
      fs::create_directories(dir_.result_dir(run).parent_path(), ec);
      if (ec) {
        throw std::runtime_error(fmt::format("{}: cannot create directory: {}",
                                             dir_.result_dir(run).parent_path().string(),
                                             ec.message()));
      }
      Running r{run.index, run_command(exe_, plan_, dir_, run, options_.threads), Clock::now()};
      const pid_t pid = start_run(r.command, dir_.stderr_file(run));
      running_.emplace(pid, std::move(r));
    }
  }

  /// The next child that ended and its wait status, or 0 when none did for now (a poll that
  /// ended to redraw the progress line, a signal).
  pid_t wait_for_one(int& status) {
    pid_t pid = 0;
    if (show_progress_) {
      // Poll, so the elapsed time and the estimate tick while runs are long.
      const auto last_draw = Clock::now();
      while ((pid = waitpid(-1, &status, WNOHANG)) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (seconds_since(last_draw) >= 1.0 || (input::caught_interrupt() && !stopping_)) break;
      }
      if (pid == 0) return 0;
    } else {
      pid = waitpid(-1, &status, 0);
    }
    if (pid < 0) {
      if (errno == EINTR) return 0;
      throw std::runtime_error(fmt::format("lost the runs' processes ({})", std::strerror(errno)));
    }
    return pid;
  }

  /// Finishes the run of child `pid` (if it is one of ours) and reports it: a failure always, a
  /// success on its own line when no progress line is drawn.
  void reap(pid_t pid, int status) {
    const auto it = running_.find(pid);
    if (it == running_.end()) return;  // not a run of ours
    const Running done = std::move(it->second);
    running_.erase(it);
    const SweepRun& run = plan_.runs[done.run];
    const RunOutcome outcome = finish_run(dir_, run, status);
    ++finished_;
    if (outcome.complete) ++completed_;
    if (stopping_) return;  // ended by the interrupt: not a failure to report
    if (outcome.failed) {
      ++failed_;
      clear_line();
      fmt::print(stderr, "failsim sweep: run {} ({} seed {}) failed: {}{}\n  command: {}\n{}",
                 run.index, plan_.points[run.point].id, run.seed, outcome.status,
                 outcome.complete ? " (its result directory is kept: " + run.directory + ")" : "",
                 shell_quoted(done.command), outcome.stderr_tail);
    } else if (!options_.quiet && !options_.terminal) {
      fmt::print(stderr, "  {}/{} done: {} ({:.1f} s)\n", options_.done_before + finished_,
                 options_.total, run.directory, seconds_since(done.started));
    }
  }

  const SweepPlan& plan_;
  const SweepDirectory& dir_;
  const std::vector<std::size_t>& pending_;
  const PoolOptions& options_;
  const bool show_progress_;
  const Clock::time_point start_ = Clock::now();
  const std::string exe_ = self_executable();
  std::map<pid_t, Running> running_;
  std::size_t next_ = 0, finished_ = 0, failed_ = 0;
  std::size_t completed_ = 0;  // of the finished runs, those whose result directory is in place
  bool line_shown_ = false;
  bool stopping_ = false;
};

}  // namespace

std::size_t run_pool(const SweepPlan& plan, const SweepDirectory& dir,
                     const std::vector<std::size_t>& pending, const PoolOptions& options) {
  return Pool(plan, dir, pending, options).run();
}

}  // namespace failsim::sweep
