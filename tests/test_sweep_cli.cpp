// End-to-end: `failsim sweep` and `failsim run --set` on real files: the example sweep, resuming
// after SIGKILL (of the process group, then of the sweep alone), a failed run, the refusal of a
// directory of another plan, --only and --collect, bad sweep files, and the shell-loop example
// against its sweep file.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Starts `failsim ARGS...` from the source directory as the leader of a new process group (so
/// the test can kill the sweep with all its children), stderr to `err_file`.
pid_t spawn(const std::vector<std::string>& args, const std::string& err_file) {
  std::vector<std::string> words{FAILSIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(FAILSIM_SOURCE_DIR) != 0) _exit(126);
    if (freopen(err_file.c_str(), "w", stderr) == nullptr) _exit(126);
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so a kill right after fork finds the group
  return pid;
}

/// The complete result directories of a sweep directory: runs/<point>/seed-<k> with result.json.
std::vector<fs::path> complete_runs(const fs::path& sweep_dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(sweep_dir / "runs", ec)) return out;
  for (const auto& point : fs::directory_iterator(sweep_dir / "runs")) {
    for (const auto& run : fs::directory_iterator(point.path())) {
      const std::string name = run.path().filename().string();
      if (name.rfind("seed-", 0) == 0 && fs::exists(run.path() / "result.json")) {
        out.push_back(run.path());
      }
    }
  }
  return out;
}

/// Runs whose process had finished (its result.json written, in runs/<point>/.seed-<k>.partial)
/// when the sweep was killed before it moved them into place: a restarted sweep keeps them.
std::size_t finished_unmoved_runs(const fs::path& sweep_dir) {
  std::size_t count = 0;
  std::error_code ec;
  if (!fs::is_directory(sweep_dir / "runs", ec)) return count;
  for (const auto& point : fs::directory_iterator(sweep_dir / "runs")) {
    for (const auto& run : fs::directory_iterator(point.path())) {
      const std::string name = run.path().filename().string();
      if (name.rfind(".seed-", 0) == 0 && name.size() > 8 &&
          name.compare(name.size() - 8, 8, ".partial") == 0 &&
          fs::exists(run.path() / "result.json")) {
        ++count;
      }
    }
  }
  return count;
}

/// Waits (at most `seconds`) until `done()`; returns whether it happened.
template <class F>
bool wait_until(F done, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

/// How many live (not zombie) processes are in process group `group`, from /proc: an orphan
/// reaped late by an init that does not reap stays a zombie, which is no run writing anything.
int live_processes_in_group(pid_t group) {
  int live = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text(entry.path() / "stat");
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 2));
    std::string state;
    long parent = 0, pgrp = 0;
    fields >> state >> parent >> pgrp;
    if (pgrp == group && state != "Z" && state != "X") ++live;
  }
  return live;
}

/// Every file and directory under `root` whose name starts with '.': temporaries.
std::vector<std::string> hidden_entries(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename().string().front() == '.') out.push_back(e.path().string());
  }
  return out;
}

/// Identity of a file: inode and modification time (unchanged if the run was not redone).
std::pair<ino_t, std::int64_t> identity(const fs::path& file) {
  struct stat st {};
  REQUIRE(stat(file.c_str(), &st) == 0);
  return {st.st_ino,
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// A small sweep of the quickstart scenario written into `dir`: `values` of the batch size,
/// seeds 1 and 2.
std::string quick_sweep(const TempDir& dir, const std::string& name, const std::string& values) {
  const std::string file = dir.file(name + ".json");
  write_text(file, R"({"name": ")" + name + R"(",
    "scenarios": [")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json"],
    "seeds": [1, 2],
    "vary": [{"path": "/optimizer/batch_size", "values": )" +
                       values + "}]}");
  return file;
}

}  // namespace

TEST_CASE(
    "failsim sweep: the quickstart example, killed by SIGKILL and restarted, skips completed "
    "runs and ends byte for byte as an uninterrupted sweep",
    "[cli][sweep]") {
  TempDir dir;
  const std::string sweep = "scenarios/sweeps/quickstart.json";
  const fs::path ref = dir.file("ref"), resumed = dir.file("resumed");

  // The uninterrupted sweep: the example as the docs show it.
  const auto r = run_cli("sweep " + sweep + " -j 2 -o '" + ref.string() + "'", dir);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("18 runs (6 points), 0 done before, 18 to run, 2 at a time"));
  CHECK(complete_runs(ref).size() == 18);
  CHECK(count_lines(read_text(ref / "runs.csv")) == 1 + 18);
  const std::string table = read_text(ref / "table.md");
  // Names as they are: an underscore inside a word is no Markdown emphasis.
  CHECK_THAT(table, Catch::Contains("| quickstart_lr-0.05_count-3 | 3 |"));
  CHECK(count_lines(table.substr(0, table.find("\n\n") + 1)) == 2 + 6);  // header, rule, 6 points
  CHECK(hidden_entries(ref).empty());

  // 1. Kill the sweep and its children (the process group) once some runs are done.
  const std::vector<std::string> args{"sweep", sweep, "-j", "2", "-o", resumed.string()};
  pid_t pid = spawn(args, dir.file("err1.txt"));
  REQUIRE(wait_until([&] { return complete_runs(resumed).size() >= 4; }, 60));
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  // A signal is delivered asynchronously: a child may still finish its last rename after its
  // parent is reaped. Count the runs only once the whole group is gone.
  REQUIRE(wait_until([&] { return live_processes_in_group(pid) == 0; }, 10));
  const std::vector<fs::path> first = complete_runs(resumed);
  INFO(first.size() << " runs were complete at the first kill");
  REQUIRE(first.size() < 18);
  // No partial or corrupt file where a reader looks: every visible run directory is complete,
  // the plan and the point scenarios are whole JSON.
  for (const auto& run : first) {
    for (const char* file : {"result.json", "timeseries.csv", "events.csv"}) {
      CHECK(fs::exists(run / file));
    }
    CHECK_NOTHROW(json::parse(read_text(run / "result.json")));
  }
  CHECK_NOTHROW(json::parse(read_text(resumed / "sweep.json")));
  for (const auto& s : fs::directory_iterator(resumed / "scenarios")) {
    if (s.path().filename().string().front() != '.') CHECK_NOTHROW(json::parse(read_text(s)));
  }
  std::map<fs::path, std::pair<ino_t, std::int64_t>> before;
  for (const auto& run : first) before[run] = identity(run / "result.json");
  // A run may have finished just before the kill without being moved into place yet.
  const std::size_t done_before = first.size() + finished_unmoved_runs(resumed);

  // 2. Start again and kill the sweep alone: its children die with it (no orphan keeps writing).
  pid = spawn(args, dir.file("err2.txt"));
  // A loaded machine may have let the first sweep finish 17 runs before the kill landed.
  const std::size_t second = std::min<std::size_t>(done_before + 2, 18);
  REQUIRE(wait_until([&] { return complete_runs(resumed).size() >= second; }, 60));
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  CHECK(wait_until([&] { return live_processes_in_group(pid) == 0; }, 10));  // no orphan left
  CHECK_THAT(read_text(dir.file("err2.txt")),
             Catch::Contains(std::to_string(done_before) + " done before"));

  // 3. Start again and let it finish.
  const auto last = run_cli("sweep " + sweep + " -j 2 -o '" + resumed.string() + "'", dir);
  REQUIRE(last.status == 0);
  CHECK(complete_runs(resumed).size() == 18);
  for (const auto& [run, id] : before) {
    INFO(run);
    CHECK(identity(run / "result.json") == id);  // not redone
  }
  for (const char* file : {"runs.csv", "table.md", "sweep.json"}) {
    INFO(file);
    CHECK(read_text(resumed / file) == read_text(ref / file));
  }
  CHECK(hidden_entries(resumed).empty());

  // Started once more, it has nothing to do, and writes the same aggregate.
  const auto again = run_cli("sweep " + sweep + " -o '" + resumed.string() + "'", dir);
  CHECK(again.status == 0);
  CHECK_THAT(again.err, Catch::Contains("18 done before, 0 to run"));
  CHECK(read_text(resumed / "runs.csv") == read_text(ref / "runs.csv"));
}

TEST_CASE(
    "failsim sweep: a failed run is reported with its command line, the others go on, "
    "exit 1",
    "[cli][sweep]") {
  TempDir dir;
  // tests/fixtures/truncated-data.json passes the plan's checks (they read the IDX headers only)
  // and fails when its runs load the data: exit status 2 of those runs.
  const std::string file = dir.file("fails.json");
  write_text(file, R"({"name": "fails", "seeds": [1, 2], "scenarios": [
    ")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json",
    ")" FAILSIM_SOURCE_DIR R"(/tests/fixtures/truncated-data.json"]})");
  const fs::path out = dir.file("out");
  const auto r = run_cli("sweep '" + file + "' -j 2 -q -o '" + out.string() + "'", dir);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("failsim sweep: run 2 (truncated-data seed 1) "
                                    "failed: exit status 2") &&
                        Catch::Contains("command: " FAILSIM_BINARY " run ") &&
                        Catch::Contains("scenarios/truncated-data.json --seed 1 -o ") &&
                        Catch::Contains("  | failsim run: ") &&
                        Catch::Contains("truncated IDX data") &&
                        Catch::Contains("run 3 (truncated-data seed 2) failed"));
  CHECK(complete_runs(out).size() == 2);
  const std::string csv = read_text(out / "runs.csv");
  CHECK_THAT(csv, Catch::Contains("\n2,truncated-data,") && Catch::Contains(",2,missing,,,"));
  CHECK_THAT(read_text(out / "table.md"), Catch::Contains("quickstart"));
  CHECK(hidden_entries(out).empty());

  // Started again: the complete runs are kept, the failed ones are tried again.
  const auto again = run_cli("sweep '" + file + "' -j 2 -o '" + out.string() + "'", dir);
  CHECK(again.status == 1);
  CHECK_THAT(again.err, Catch::Contains("2 done before, 2 to run"));
  CHECK(read_text(out / "runs.csv") == csv);
}

TEST_CASE("runs.csv reads into pandas with numbers as numbers, as docs/sweeps.md shows",
          "[cli][sweep][python]") {
  TempDir dir;
  if (failsim::testing::run_shell("/usr/bin/python3 -c 'import pandas'", dir).status != 0) {
    FAILSIM_SKIP("python3-pandas is not installed (scripts/setup.sh installs it)");
  }
  // failure-time-softmax in small: one strategy, two failure times, two seeds.
  const std::string file = dir.file("small.json");
  write_text(file, R"({"name": "small", "seeds": {"from": 1, "to": 2},
    "scenarios": [")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/server-kill-checkpoint.json"],
    "vary": [{"path": "/failures/events/0/at", "values": ["0.5s", "1500ms"]}]})");
  const fs::path out = dir.file("out");
  const auto r = run_cli("sweep '" + file + "' -j 2 -q -o '" + out.string() + "'", dir);
  REQUIRE(r.status == 0);

  // The program of docs/sweeps.md as a user would run it, on this sweep.
  const std::string docs = read_text(FAILSIM_SOURCE_DIR "/docs/sweeps.md");
  const std::size_t begin = docs.find("```python\n");
  REQUIRE(begin != std::string::npos);
  std::string program = docs.substr(begin + 10, docs.find("```\n", begin + 10) - begin - 10);
  const std::string path = "results/sweeps/failure-time-softmax/runs.csv";
  REQUIRE(program.find(path) != std::string::npos);
  program.replace(program.find(path), path.size(), (out / "runs.csv").string());
  program +=
      "assert runs[at].dtype == 'float64', runs[at].dtype\n"
      "assert runs['final_accuracy'].dtype == 'float64'\n"
      "assert runs['updates'].dtype == 'int64' and runs['seed'].dtype == 'int64'\n"
      "print('rows', len(runs), 'at', sorted(runs[at].unique()), 'text',\n"
      "      sorted(runs['events_at'].unique()))\n";
  write_text(dir.file("read.py"), program);
  const auto py =
      failsim::testing::run_shell("/usr/bin/python3 '" + dir.file("read.py") + "'", dir);
  INFO(py.err);
  REQUIRE(py.status == 0);
  CHECK_THAT(py.out, Catch::Contains("events_at_s") &&
                         Catch::Contains("rows 4 at [0.5, 1.5] text ['0.5s', '1500ms']"));
}

TEST_CASE("failsim sweep refuses a point that cannot run before any run starts", "[cli][sweep]") {
  // batch_size 3000 is more than a worker's share of quickstart's data (4000 samples / 2
  // workers): resolve() refuses point 1, so the sweep runs nothing, --dry-run included.
  TempDir dir;
  const std::string file = quick_sweep(dir, "bad-point", "[32, 3000]");
  const fs::path out = dir.file("out");
  for (const std::string extra : {"", " --dry-run"}) {
    INFO(extra);
    const auto r = run_cli("sweep '" + file + "' -q -o '" + out.string() + "'" + extra, dir);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("/vary/0: expected values that make a valid scenario of "
                                      "every point, found point 1") &&
                          Catch::Contains("/optimizer/batch_size: expected at most the smallest "
                                          "worker shard (4000 training samples / 2 workers = "
                                          "2000), found 3000"));
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("failsim sweep refuses a directory of another plan, or one another sweep runs in",
          "[cli][sweep]") {
  TempDir dir;
  const std::string file = quick_sweep(dir, "plan", "[32]");
  const fs::path out = dir.file("out");
  REQUIRE(run_cli("sweep '" + file + "' -q -o '" + out.string() + "'", dir).status == 0);
  const std::string plan = read_text(out / "sweep.json");
  const std::string csv = read_text(out / "runs.csv");

  // The sweep file edited: another plan.
  quick_sweep(dir, "plan", "[32, 64]");
  const auto r = run_cli("sweep '" + file + "' -o '" + out.string() + "'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(out.string() +
                                    "/sweep.json: expected the plan of this sweep "
                                    "file (4 runs), found another plan (1 point there, 2 here)") &&
                        Catch::Contains("another output directory (-o DIR), or delete"));
  CHECK(read_text(out / "sweep.json") == plan);
  CHECK(read_text(out / "runs.csv") == csv);
  CHECK_FALSE(fs::exists(out / "scenarios" / "quickstart_batch_size-64.json"));
  CHECK(run_cli("sweep '" + file + "' --collect -o '" + out.string() + "'", dir).status == 2);

  // A base scenario edited: the plan holds each point's resolved scenario, so it differs too.
  std::string base = read_text(FAILSIM_SOURCE_DIR "/scenarios/examples/quickstart.json");
  write_text(dir.file("base.json"), base);
  const std::string on_copy = dir.file("copy.json");
  write_text(on_copy, R"({"name": "copy", "scenarios": ["base.json"]})");
  const fs::path copy_out = dir.file("copy-out");
  REQUIRE(run_cli("sweep '" + on_copy + "' -q -o '" + copy_out.string() + "'", dir).status == 0);
  base.replace(base.find("\"2s\""), 4, "\"3s\"");
  write_text(dir.file("base.json"), base);
  const auto edited = run_cli("sweep '" + on_copy + "' -o '" + copy_out.string() + "'", dir);
  CHECK(edited.status == 2);
  CHECK_THAT(edited.err, Catch::Contains("found another plan (the scenario of point 0 "
                                         "(\"quickstart\") differs: was its base scenario, "
                                         "base.json, edited?)"));

  // runs/ without a plan: results of an unknown plan.
  fs::remove(out / "sweep.json");
  const auto orphan = run_cli("sweep '" + file + "' -o '" + out.string() + "'", dir);
  CHECK(orphan.status == 2);
  CHECK_THAT(orphan.err, Catch::Contains("found runs/ without one"));
  CHECK_FALSE(fs::exists(out / "sweep.json"));

  // Two sweeps into one directory at once: the second is refused while the first runs.
  const std::string slow = quick_sweep(dir, "slow", "[16, 32, 64, 128]");
  const fs::path busy = dir.file("busy");
  const pid_t pid =
      spawn({"sweep", slow, "-j", "1", "-q", "-o", busy.string()}, dir.file("err-first.txt"));
  REQUIRE(wait_until([&] { return !complete_runs(busy).empty(); }, 60));
  const auto second = run_cli("sweep '" + slow + "' -o '" + busy.string() + "'", dir);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(second.status == 2);
  CHECK_THAT(second.err, Catch::Contains("found another failsim sweep at work there"));

  // The lock comes before the plan is written: a fresh directory another process holds is left
  // untouched (two sweeps started at once could otherwise write one plan and run the other's).
  const fs::path fresh = dir.file("fresh");
  fs::create_directories(fresh);
  for (const std::string extra : {"", " --emit slurm"}) {
    INFO(extra);
    const auto refused =
        failsim::testing::run_shell("flock '" + fresh.string() + "' '" FAILSIM_BINARY "' sweep '" +
                                        slow + "' -q -o '" + fresh.string() + "'" + extra,
                                    dir);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.err, Catch::Contains("found another failsim sweep at work there"));
    CHECK(fs::is_empty(fresh));
  }
}

TEST_CASE(
    "failsim sweep --only runs one run as an array task would, and --collect writes the "
    "aggregate of the runs there are",
    "[cli][sweep]") {
  TempDir dir;
  const std::string file = quick_sweep(dir, "tasks", "[32, 64]");
  const fs::path full = dir.file("full"), tasks = dir.file("tasks");
  REQUIRE(run_cli("sweep '" + file + "' -q -o '" + full.string() + "'", dir).status == 0);

  const auto only = [&](int index) {
    return run_cli(
        "sweep '" + file + "' --only " + std::to_string(index) + " -o '" + tasks.string() + "'",
        dir);
  };
  REQUIRE(only(2).status == 0);
  CHECK(complete_runs(tasks).size() == 1);
  CHECK_FALSE(fs::exists(tasks / "runs.csv"));  // --only writes no aggregate
  const auto partial = run_cli("sweep '" + file + "' --collect -o '" + tasks.string() + "'", dir);
  CHECK(partial.status == 1);  // runs are missing
  CHECK_THAT(partial.err, Catch::Contains("1 of 4 runs have results (0 deadlocked, 3 missing)"));
  CHECK(count_lines(read_text(tasks / "runs.csv")) == 5);
  for (int i : {0, 1, 3}) REQUIRE(only(i).status == 0);
  CHECK_THAT(only(1).err, Catch::Contains("run 1 is already done"));
  REQUIRE(run_cli("sweep '" + file + "' --collect -o '" + tasks.string() + "'", dir).status == 0);
  for (const char* f : {"runs.csv", "table.md", "sweep.json"}) {
    INFO(f);
    CHECK(read_text(tasks / f) == read_text(full / f));
  }
  CHECK(hidden_entries(tasks).empty());

  const auto out_of_range = only(4);
  CHECK(out_of_range.status == 2);
  CHECK_THAT(out_of_range.err, Catch::Contains("--only: expected a run index in [0, 3], found 4"));
  const auto both = run_cli("sweep '" + file + "' --only 1 --collect -o x", dir);
  CHECK(both.status == 2);
  CHECK_THAT(both.err, Catch::StartsWith("failsim sweep: expected at most one of --only and "
                                         "--collect, found both\nusage: failsim sweep SWEEP "));
}

TEST_CASE(
    "failsim sweep: a bad sweep file or point is exit 2 and writes nothing, and --dry-run "
    "lists the runs",
    "[cli][sweep]") {
  TempDir dir;
  const fs::path out = dir.file("out");
  const std::string bad = quick_sweep(dir, "bad", "[32, 0]");
  const auto r = run_cli("sweep '" + bad + "' -o '" + out.string() + "'", dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("failsim sweep: " + bad +
                                    ": /vary/0: expected values that "
                                    "make a valid scenario") &&
                        Catch::Contains("point 1 (") &&
                        Catch::Contains("/optimizer/batch_size: expected an integer >= 1"));
  CHECK_FALSE(fs::exists(out));

  const auto help = run_cli("sweep --help", dir);
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Catch::Contains("Usage") && Catch::Contains("--only") &&
                           Catch::Contains("--collect") && Catch::Contains("--dry-run"));

  const auto missing = run_cli("sweep '" + dir.file("nope.json") + "'", dir);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("nope.json: expected a readable sweep file"));

  const auto dry =
      run_cli("sweep scenarios/sweeps/failure-time.json --dry-run -o '" + out.string() + "'", dir);
  CHECK(dry.status == 0);
  CHECK_THAT(dry.out, Catch::StartsWith("failure-time: 30 points, 150 runs, into " + out.string() +
                                        "; expected wall time of its runs: ") &&
                          Catch::Contains("\n  149  paper-stateless-1kill_at-190s  seed 5  "
                                          "../paper/stateless-1kill.json  "
                                          "/failures/events/0/at=190s\n"));
  // The estimate: every run's, added up, and spread over the runs at a time.
  CHECK_THAT(
      dry.out.substr(0, dry.out.find('\n')),
      Catch::Matches(".* runs: [0-9.]+ (s|min [0-9]+ s) in all, about [0-9.]+ (s|min [0-9]+ s) "
                     "with [0-9]+ at a time"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("failsim run --set changes a field as a sweep does, and a bad one is exit 2",
          "[cli][sweep]") {
  TempDir dir;
  const fs::path out = dir.file("out");
  const auto r = run_cli(
      "run scenarios/examples/server-kill-checkpoint.json -q --set /failures/events/0/at=1s "
      "--set /name=moved --set '/optimizer={\"learning_rate\": 0.1}' -o '" +
          out.string() + "'",
      dir);
  REQUIRE(r.status == 0);
  const json result = json::parse(read_text(out / "result.json"));
  CHECK(result["scenario"]["name"] == "moved");
  CHECK(result["scenario"]["failures"]["events"][0]["at"] == 1.0);
  CHECK(result["scenario"]["optimizer"]["learning_rate"] == 0.1);
  CHECK(result["scenario"]["optimizer"]["batch_size"] == 32);  // the object replaced: default

  const fs::path none = dir.file("none");
  const auto bad = [&](const std::string& set) {
    return run_cli(
        "run scenarios/examples/quickstart.json --set " + set + " -o '" + none.string() + "'", dir);
  };
  const auto parent = bad("/failures/events/0/at=1s");
  CHECK(parent.status == 2);
  CHECK_THAT(parent.err, Catch::Contains("quickstart.json: /failures/events/0/at: expected a "
                                         "field of the scenario whose parent exists (--set "
                                         "POINTER=VALUE), found the top level has no member "
                                         "'failures'"));
  const auto typo = bad("/optimizer/lerning_rate=0.1");
  CHECK(typo.status == 2);
  CHECK_THAT(typo.err, Catch::Contains("did you mean 'learning_rate'?"));
  const auto syntax = bad("optimizer=1");
  CHECK(syntax.status == 2);
  CHECK_THAT(syntax.err, Catch::Contains("\"optimizer\" (no leading '/')"));
  const auto no_value = bad("/optimizer");
  CHECK(no_value.status == 2);
  CHECK_THAT(no_value.err, Catch::Contains("--set: expected POINTER=VALUE, found /optimizer"));
  CHECK_FALSE(fs::exists(none));
}

TEST_CASE("scenarios/sweeps/failure-time.sh runs exactly the runs of failure-time.json",
          "[cli][sweep]") {
  TempDir dir;
  // A stand-in failsim that logs its command lines: the script's loop is checked, not the runs.
  const std::string stub = dir.file("failsim-stub"), log = dir.file("log.txt");
  write_text(stub, "#!/bin/sh\necho \"$*\" >> '" + log + "'\n");
  fs::permissions(stub, fs::perms::owner_all);
  const std::string command = "cd '" FAILSIM_SOURCE_DIR "' && FAILSIM='" + stub +
                              "' bash scenarios/sweeps/failure-time.sh '" + dir.file("out") + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  std::set<std::string> script_runs;
  std::istringstream lines(read_text(log));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("run ", 0) != 0) continue;
    const std::size_t name = line.find("--set /name=") + 12;
    const std::size_t seed = line.find("--seed ") + 7;
    script_runs.insert(line.substr(name, line.find(' ', name) - name) + " seed " +
                       line.substr(seed, line.find(' ', seed) - seed));
  }
  CHECK_THAT(read_text(log), Catch::Contains("table "));

  const auto dry = run_cli("sweep scenarios/sweeps/failure-time.json --dry-run", dir);
  REQUIRE(dry.status == 0);
  std::set<std::string> sweep_runs;
  std::istringstream plan(dry.out);
  std::string header;
  std::getline(plan, header);
  for (std::string line; std::getline(plan, line);) {
    std::istringstream words(line);
    std::string index, id, seed_word, seed;
    words >> index >> id >> seed_word >> seed;
    sweep_runs.insert(id + " seed " + seed);
  }
  CHECK(sweep_runs.size() == 150);
  CHECK(script_runs == sweep_runs);
}
