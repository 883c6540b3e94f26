// `failsim run`'s result directory under adversity: an output that cannot be written is found
// before simulating, `-o ''` is refused, and a run killed at any step of writing its result
// directory leaves either the old run's whole result or no result.json, never a mix
// (sim/output/result_writer.hpp). The kills and failures are real: strace injects them at the
// writer's own system calls.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "cli_harness.hpp"
#include "reproducible.hpp"

using failsim::testing::read_text;
using failsim::testing::reproducible_part;
using failsim::testing::run_cli;
using failsim::testing::run_shell;
using failsim::testing::TempDir;
namespace fs = std::filesystem;

namespace {
const std::string QUICKSTART = "scenarios/examples/quickstart.json";

/// The seed result.json records ("" when there is no result.json).
std::string recorded_seed(const fs::path& dir) {
  const std::string text = read_text(dir / "result.json");
  const auto at = text.find("\"seed\": ");
  if (at == std::string::npos) return "";
  return text.substr(at + 8, text.find_first_of(",\n", at) - at - 8);
}

bool same_files(const fs::path& a, const fs::path& b) {
  for (const char* f : {"result.json", "timeseries.csv", "events.csv"}) {
    // result.json differs in its provenance and wall-clock timings only: compare without them.
    std::string x = read_text(a / f), y = read_text(b / f);
    if (std::string(f) == "result.json" && !x.empty() && !y.empty()) {
      x = reproducible_part(nlohmann::json::parse(x)).dump();
      y = reproducible_part(nlohmann::json::parse(y)).dump();
    }
    if (x != y) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("failsim run finds an unwritable result directory before simulating", "[cli][output]") {
  TempDir dir;
  // A run of 1,000 simulated seconds would take minutes: the error must come first.
  const std::string longer = " -q --set /stop/time=1000s";
  std::vector<std::string> unwritable{"/proc", "/proc/sys/failsim-result", "/sys/failsim-result"};
  if (geteuid() != 0) {  // root writes through permissions; /proc and /sys refuse even root
    const fs::path locked = dir.file("locked");
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    unwritable.push_back(locked.string());
  }
  const std::string file = dir.file("a-file");
  failsim::testing::write_text(file, "not a directory");
  unwritable.push_back(file + "/result");
  for (const std::string& out : unwritable) {
    INFO(out);
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_cli("run " + QUICKSTART + longer + " -o '" + out + "'", dir);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.status == 3);
    CHECK_THAT(r.err, Catch::StartsWith("failsim run: " + out + ": cannot ") &&
                          Catch::EndsWith("; nothing was simulated\n"));
    CHECK(seconds < 10);
  }
}

TEST_CASE("failsim run -o '' is refused, not taken as the scenario's directory", "[cli][output]") {
  TempDir dir;
  const auto r = run_cli("run " + QUICKSTART + " -q -o ''", dir);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "failsim run: -o/--output: expected a directory, found an empty string (leave -o out for "
        "the scenario's output.directory)\n");
}

TEST_CASE("a run killed at any step of writing its result directory never leaves a mix",
          "[cli][output]") {
  TempDir dir;
  const fs::path old_run = dir.file("old"), new_run = dir.file("new");
  REQUIRE(run_cli("run " + QUICKSTART + " -q --seed 1 -o '" + old_run.string() + "'", dir).status ==
          0);
  REQUIRE(run_cli("run " + QUICKSTART + " -q --seed 2 -o '" + new_run.string() + "'", dir).status ==
          0);
  REQUIRE(recorded_seed(old_run) == "1");
  // The main thread's unlink and rename calls: the write check's unlink, then the writer's
  // unlink of result.json, its unlink of intervals.csv (not written: output.intervals is off)
  // and its three renames. Each is hit in turn, one past the last too.
  int killed = 0;
  for (const std::string call : {"unlink", "rename"}) {
    for (int n = 1; n <= 4; ++n) {
      for (const std::string action : {"signal=SIGKILL", "error=ENOSPC"}) {
        INFO(call << " " << n << " " << action);
        const fs::path target = dir.file(call + std::to_string(n) + action.substr(0, 5));
        fs::copy(old_run, target);
        const auto r = run_shell("strace -qq -o /dev/null -e trace=" + call +
                                     " -e signal=none -e inject=" + call + ":" + action +
                                     ":when=" + std::to_string(n) + " '" FAILSIM_BINARY "' run " +
                                     QUICKSTART + " -q --seed 2 -o '" + target.string() + "'",
                                 dir);
        REQUIRE(r.status != 127);  // strace is installed by scripts/setup.sh
        killed += r.status == 128 + 9 ? 1 : 0;
        const std::string seed = recorded_seed(target);
        if (seed == "1") {
          CHECK(same_files(target, old_run));
        } else if (seed == "2") {
          CHECK(same_files(target, new_run));
          CHECK(r.status == 0);
        } else {
          CHECK(seed.empty());  // incomplete: no result.json, and the run said so
          CHECK(r.status != 0);
        }
      }
    }
  }
  CHECK(killed == 6);  // 3 unlinks and 3 renames were hit
}
