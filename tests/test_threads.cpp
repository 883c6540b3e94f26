// The math on several threads (issue 8): the pool's contract (sim/engine/math_pool.hpp), and
// results byte-identical to one thread for every example scenario, with 1, 2 and 4 threads,
// branches (fork) included.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"
#include "reproducible.hpp"
#include "sim/engine/math_pool.hpp"

namespace {

namespace fs = std::filesystem;
using failsim::sim::MathJob;
using failsim::sim::MathPool;
using failsim::testing::read_text;
using failsim::testing::reproducible_part;
using failsim::testing::run_cli;
using failsim::testing::TempDir;
using failsim::testing::write_text;

/// Squares its input, remembering which slot computed it; `hold` makes it wait for a release.
class Square : public MathJob {
 public:
  int input = 0, output = -1, slot = -1;
  std::atomic<bool>* hold = nullptr;
  std::atomic<bool> started{false};

 protected:
  void run(int s) override {
    started = true;
    while (hold != nullptr && hold->load()) std::this_thread::yield();
    output = input * input;
    slot = s;
  }
};

class Throws : public MathJob {
 protected:
  void run(int) override { throw std::runtime_error("the job failed"); }
};

TEST_CASE("the pool computes every job once in any slot and returns each result to its waiter",
          "[threads]") {
  for (const int threads : {1, 2, 4}) {
    MathPool pool(threads);
    std::vector<Square> jobs(50);
    for (int i = 0; i < 50; ++i) {
      jobs[static_cast<std::size_t>(i)].input = i;
      pool.submit(jobs[static_cast<std::size_t>(i)]);
    }
    for (int i = 49; i >= 0; --i) pool.wait(jobs[static_cast<std::size_t>(i)]);
    for (int i = 0; i < 50; ++i) {
      const Square& job = jobs[static_cast<std::size_t>(i)];
      CHECK(job.output == i * i);
      CHECK(job.slot >= 0);
      CHECK(job.slot < threads);
    }
    // Collected jobs are idle again and can be reused.
    jobs[0].input = 7;
    pool.submit(jobs[0]);
    pool.wait(jobs[0]);
    CHECK(jobs[0].output == 49);
  }
}

TEST_CASE("with one thread a job is computed by its waiter and only when waited for", "[threads]") {
  MathPool pool(1);
  Square first, second;
  first.input = 3;
  second.input = 4;
  pool.submit(first);
  pool.submit(second);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(first.started);
  // Waiting for the second computes the older one first (oldest queued first).
  pool.wait(second);
  CHECK(first.started);
  CHECK(second.output == 16);
  CHECK(second.slot == 0);
  pool.wait(first);
  CHECK(first.output == 9);
}

TEST_CASE("a job's exception reaches its waiter and the pool goes on", "[threads]") {
  for (const int threads : {1, 2}) {
    MathPool pool(threads);
    Throws bad;
    Square good;
    good.input = 5;
    pool.submit(bad);
    pool.submit(good);
    CHECK_THROWS_WITH(pool.wait(bad), "the job failed");
    pool.wait(good);
    CHECK(good.output == 25);
  }
}

TEST_CASE("abandon dequeues a job nobody started and waits for one that is running", "[threads]") {
  SECTION("queued: never computed") {
    MathPool pool(1);
    Square job;
    pool.submit(job);
    pool.abandon(job);
    Square other;
    pool.submit(other);
    pool.wait(other);  // would compute `job` first if it were still queued
    CHECK_FALSE(job.started);
    CHECK(job.output == -1);
  }
  SECTION("running: returns once it is done") {
    MathPool pool(2);
    std::atomic<bool> hold{true};
    Square job;
    job.input = 6;
    job.hold = &hold;
    pool.submit(job);
    while (!job.started) std::this_thread::yield();
    std::thread release([&hold] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      hold = false;
    });
    pool.abandon(job);
    CHECK(job.output == 36);  // finished before abandon returned: its buffers are free
    release.join();
  }
}

TEST_CASE("misuse of the pool is refused", "[threads]") {
  CHECK_THROWS_AS(MathPool(0), std::invalid_argument);
  MathPool pool(2);
  Square job;
  CHECK_THROWS_AS(pool.wait(job), std::logic_error);
  pool.submit(job);
  CHECK_THROWS_AS(pool.submit(job), std::logic_error);
  pool.wait(job);
}

TEST_CASE("after fork both processes have a working pool and the queued jobs", "[threads]") {
  MathPool pool(2);
  std::atomic<bool> hold{true};
  Square running, queued;
  running.input = 2;
  running.hold = &hold;
  queued.input = 3;
  pool.submit(running);
  while (!running.started) std::this_thread::yield();
  pool.submit(queued);  // behind `running` on the only background thread, or taken by it later
  std::thread release([&hold] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    hold = false;
  });
  // fork() stops the background thread first: it lets the running job finish.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    pool.wait(queued);
    Square fresh;
    fresh.input = 9;
    pool.submit(fresh);
    pool.wait(fresh);
    _exit(running.output == 4 && queued.output == 9 && fresh.output == 81 ? 0 : 1);
  }
  release.join();
  CHECK(running.output == 4);
  pool.wait(running);
  pool.wait(queued);
  CHECK(queued.output == 9);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

/// Every file of `b` equals `a`'s (result.json without its wall-clock timings), and neither has
/// a file the other lacks.
void check_same_results(const fs::path& a, const fs::path& b) {
  std::vector<std::string> names_a, names_b;
  for (const auto& e : fs::directory_iterator(a)) names_a.push_back(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(b)) names_b.push_back(e.path().filename().string());
  std::sort(names_a.begin(), names_a.end());
  std::sort(names_b.begin(), names_b.end());
  CHECK(names_a == names_b);
  for (const std::string& name : names_a) {
    INFO(a.string() << " vs " << b.string() << ": " << name);
    if (name == "result.json") {
      auto ja = nlohmann::json::parse(read_text(a / name));
      auto jb = nlohmann::json::parse(read_text(b / name));
      CHECK(reproducible_part(ja).dump(1) == reproducible_part(jb).dump(1));
    } else {
      CHECK(read_text(a / name) == read_text(b / name));
    }
  }
}

TEST_CASE("every example scenario gives the same results with 1 2 and 4 threads",
          "[threads][cli]") {
  const TempDir dir;
  int examples = 0;
  for (const auto& entry : fs::directory_iterator(FAILSIM_SOURCE_DIR "/scenarios/examples")) {
    if (entry.path().extension() != ".json") continue;
    ++examples;
    const std::string name = entry.path().stem().string();
    // The CNN example simulates 100 s of four workers (a minute of math): its first 2 s compute
    // gradients and evaluations concurrently just the same.
    const std::string shorter = name == "cnn-4-async" ? " --set /stop/time=2s" : "";
    for (const int threads : {1, 2, 4}) {
      const std::string out = dir.file(name + "-" + std::to_string(threads));
      const auto run = run_cli("run -q --threads " + std::to_string(threads) + shorter + " '" +
                                   entry.path().string() + "' -o '" + out + "'",
                               dir);
      REQUIRE(run.status == 0);
      if (threads > 1) check_same_results(dir.file(name + "-1"), out);
    }
  }
  CHECK(examples >= 9);
}

TEST_CASE(
    "a language model's gradients split in parts give the same results with 1 2 and 3 threads",
    "[threads][cli]") {
  // model.gradient_parts (sim/engine/gradient_parts.hpp) under both protocols: one replica whose
  // single gradient a step is all the pool has to compute, and the parameter server's two workers,
  // one killed while its parts compute (they are abandoned) and the server restarted from a
  // checkpoint. 3 parts of 8 windows are unequal (2, 3 and 3).
  const TempDir dir;
  nlohmann::json collective = nlohmann::json::parse(
      read_text(FAILSIM_SOURCE_DIR "/scenarios/cluster/lm/checkpoint-restart.json"));
  collective["model"]["gradient_parts"] = 3;
  collective["layout"]["dp"] = 1;
  collective["platform"]["nodes"] = 1;
  collective["platform"]["node"]["accelerators"] = 1;
  collective["stop"] = {{"version", 60}};
  collective["failures"]["events"] = {
      {{"target", "node"}, {"index", 0}, {"at", "0.5s"}, {"down_for", "1s"}}};
  collective["recovery"]["checkpoint"]["every_steps"] = 10;
  write_text(dir.file("collective.json"), collective.dump(2));
  nlohmann::json ps =
      nlohmann::json::parse(read_text(FAILSIM_SOURCE_DIR "/scenarios/examples/lm-ps.json"));
  ps["model"]["gradient_parts"] = 3;
  ps["optimizer"]["batch_size"] = 8;
  ps["stop"]["time"] = "4s";
  ps["failures"]["events"] = {
      {{"target", "worker"}, {"index", 1}, {"at", "1.01s"}, {"down_for", "500ms"}},
      {{"target", "server"}, {"at", "2s"}, {"down_for", 0}}};
  ps["recovery"]["checkpoint"]["every_updates"] = 20;
  write_text(dir.file("ps.json"), ps.dump(2));
  for (const std::string name : {"collective", "ps"}) {
    for (const int threads : {1, 2, 3}) {
      const std::string out = dir.file(name + "-" + std::to_string(threads));
      const auto run = run_cli("run -q --threads " + std::to_string(threads) + " '" +
                                   dir.file(name + ".json") + "' -o '" + out + "'",
                               dir);
      INFO(run.err);
      REQUIRE(run.status == 0);
      if (threads > 1) check_same_results(dir.file(name + "-1"), out);
    }
    // The parts were really summed: the whole batch as one job rounds differently.
    const std::string whole = dir.file(name + "-whole");
    const auto run = run_cli("run -q --threads 2 --set /model/gradient_parts=1 '" +
                                 dir.file(name + ".json") + "' -o '" + whole + "'",
                             dir);
    REQUIRE(run.status == 0);
    CHECK(read_text(fs::path(whole) / "timeseries.csv") !=
          read_text(fs::path(dir.file(name + "-1")) / "timeseries.csv"));
  }
}

TEST_CASE("AdamW under every parameter-server strategy gives the same results with 1 and 2 threads",
          "[threads][cli]") {
  // The examples' failures and recoveries with AdamW: its moments and steps go through
  // checkpoints (one level and several), replicas, the stateless store and an elastic resize.
  const TempDir dir;
  for (const std::string name :
       {"server-kill-checkpoint", "stateless-kill", "chain-kill", "stateless-chain-kill",
        "multilevel-checkpoint-kill", "elastic-resume"}) {
    const std::string file = FAILSIM_SOURCE_DIR "/scenarios/examples/" + name + ".json";
    for (const int threads : {1, 2}) {
      const std::string out = dir.file(name + "-" + std::to_string(threads));
      const auto run = run_cli("run -q --threads " + std::to_string(threads) +
                                   " --set /optimizer/kind=adamw '" + file + "' -o '" + out + "'",
                               dir);
      INFO(run.err);
      REQUIRE(run.status == 0);
      if (threads > 1) check_same_results(dir.file(name + "-1"), out);
    }
  }
}

TEST_CASE("branches forked mid-run with 2 threads equal their own runs on 1 thread",
          "[threads][cli]") {
  // The study's stateless CNN run, killed at 1 s or at 1.5 s: two processes after 1 s, each
  // restarting its threads while gradients and evaluations are in flight.
  const TempDir dir;
  const std::string base = FAILSIM_SOURCE_DIR "/scenarios/paper/stateless-1kill.json";
  nlohmann::json scenario = nlohmann::json::parse(read_text(base));
  scenario["stop"]["time"] = "2.5s";
  scenario["evaluation"] = {
      {"interval", "250ms"}, {"test_subset", 600}, {"final_full_test", false}};
  scenario["failures"]["detection_timeout"] = "200ms";
  scenario["failures"]["restart_delay"] = "300ms";
  scenario["failures"]["events"][0]["at"] = "1s";
  scenario["failures"]["events"][0]["down_for"] = "500ms";
  write_text(dir.file("early.json"), scenario.dump(2));
  scenario["name"] = "later";
  scenario["failures"]["events"][0]["at"] = "1.5s";
  write_text(dir.file("later.json"), scenario.dump(2));

  REQUIRE(run_cli("run -q --threads 2 '" + dir.file("early.json") + "' -o '" + dir.file("b-early") +
                      "' --branch '" + dir.file("later.json") + "=" + dir.file("b-later") + "'",
                  dir)
              .status == 0);
  for (const std::string name : {"early", "later"}) {
    REQUIRE(run_cli("run -q --threads 1 '" + dir.file(name + ".json") + "' -o '" +
                        dir.file("s-" + name) + "'",
                    dir)
                .status == 0);
    check_same_results(dir.file("s-" + name), dir.file("b-" + name));
  }
}

TEST_CASE("the thread count of a run is in [1, 4 x the CPUs]", "[threads][cli]") {
  const TempDir dir;
  const int cpus = MathPool::hardware_threads();
  const std::string most = std::to_string(4 * cpus);
  const auto run = [&](const std::string& threads) {
    return run_cli("run -q --threads " + threads + " scenarios/examples/quickstart.json -o '" +
                       dir.file("out") + "'",
                   dir);
  };
  for (const std::string& bad :
       {std::string("0"), std::string("-1"), std::string("two"), std::to_string(4 * cpus + 1),
        std::string("1024"), std::string("99999999999999999999999")}) {
    const auto r = run(bad);
    CHECK(r.status == 2);
    CHECK(r.err == "failsim run: --threads: expected an integer in [1, " + most + "] (4 x the " +
                       std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") +
                       " this process may use), found " + bad + "\n");
    CHECK_FALSE(fs::exists(dir.file("out")));
  }
  // The most it takes runs (its results are those of one thread: every thread count's are).
  CHECK(run(most).status == 0);
}

/// The soft address-space limit that leaves `room` bytes above what this process maps now.
rlim_t address_space_with_room(rlim_t room) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024 + room;
  }
  return RLIM_INFINITY;
}

TEST_CASE("a pool whose threads the system refuses stops those it started and says how many",
          "[threads]") {
  // In a child: an address-space limit 2 MiB above what it maps leaves no room for a thread's
  // stack (8 MiB by default), so the first background thread is refused.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const rlim_t limit = address_space_with_room(2 << 20);
    const rlimit as{limit, limit};
    if (setrlimit(RLIMIT_AS, &as) != 0) _exit(10);
    try {
      MathPool pool(4);
      _exit(11);  // every thread started
    } catch (const failsim::sim::ThreadsRefused& e) {
      const bool said =
          std::string(e.what()).rfind("the system started 1 of the 4 threads asked for (", 0) == 0;
      _exit(e.started() == 1 && e.asked() == 4 && said ? 0 : 12);
    }
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("failsim run: threads the system refuses are exit 2 with the count, nothing written",
          "[threads][cli]") {
  const TempDir dir;
  // Every thread's stack is as large as `ulimit -s`: with 3 GiB stacks under a 5 GiB address
  // space the first background thread fits and the second does not.
  const auto r =
      failsim::testing::run_shell("ulimit -s 3000000 && ulimit -v 5000000 && '" FAILSIM_BINARY
                                  "' run -q --threads 3 scenarios/examples/quickstart.json -o '" +
                                      dir.file("out") + "'",
                                  dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("failsim run: --threads: expected a number of threads the "
                                      "system starts, found 3: the system started 2 of the 3 "
                                      "threads asked for ("));
  CHECK_FALSE(fs::exists(dir.file("out")));
}

}  // namespace
