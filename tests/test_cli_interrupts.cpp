// Ctrl-C and SIGTERM on `failsim run` and `failsim sweep` (docs/cli.md, "Interruptions"): a real
// Ctrl-C typed on a pseudo-terminal (script(1) runs the command on one and forwards ^C from its
// input), the message and the exit status 128 + N, nothing half-written, and a sweep that
// resumes exactly. The sweep's progress line is rendered as a terminal shows it: no characters
// of a longer line stay behind a shorter one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"

using failsim::testing::read_text;
using failsim::testing::run_cli;
using failsim::testing::run_shell;
using failsim::testing::TempDir;
namespace fs = std::filesystem;

namespace {
/// `failsim ARGS` on a pseudo-terminal, with Ctrl-C typed after `seconds`; stdout holds
/// everything the terminal showed.
failsim::testing::CliOutcome on_terminal_with_ctrl_c(const std::string& args, double seconds,
                                                     const TempDir& dir) {
  return run_shell("(sleep " + std::to_string(seconds) +
                       "; printf '\\003') | script -qfec \"'" FAILSIM_BINARY "' " + args +
                       "\" /dev/null",
                   dir);
}

/// The lines a terminal shows for `text`: \r returns to the line's start, ESC [ K erases to its
/// end, other characters overwrite.
std::vector<std::string> rendered_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t col = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r') {
      col = 0;
    } else if (c == '\n') {
      lines.push_back(line);
      line.clear();
      col = 0;
    } else if (c == '\x1b' && text.compare(i, 3, "\x1b[K") == 0) {
      line.resize(col);
      i += 2;
    } else {
      if (col < line.size()) {
        line[col] = c;
      } else {
        line.push_back(c);
      }
      ++col;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

/// What was last written on each line: after its last \r, without ESC [ K.
std::vector<std::string> last_writes(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::string last = line;
    while (!last.empty() && last.back() == '\r') last.pop_back();
    last = last.substr(last.rfind('\r') == std::string::npos ? 0 : last.rfind('\r') + 1);
    for (auto at = last.find("\x1b[K"); at != std::string::npos; at = last.find("\x1b[K"))
      last.erase(at, 3);
    lines.push_back(last);
  }
  return lines;
}

/// Every state of the progress line, as written: what follows each "\r ESC [ K".
std::vector<std::string> progress_writes(const std::string& out) {
  std::vector<std::string> writes;
  for (std::size_t at = out.find("\r\x1b[K"); at != std::string::npos;) {
    const std::size_t next = out.find_first_of("\r\n", at + 4);
    writes.push_back(out.substr(at + 4, next - at - 4));
    at = out.find("\r\x1b[K", next);
  }
  return writes;
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
}  // namespace

TEST_CASE("Ctrl-C on failsim run: exit 130, where it was, nothing written, the line ended",
          "[cli][interrupt]") {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = on_terminal_with_ctrl_c(
      "run scenarios/examples/quickstart.json --set "
      "/stop/time=10000s -o '" +
          out + "'",
      2, dir);
  CHECK(r.status == 130);
  // The progress line ("  t = ... test accuracy ...   ") is ended before the message (the
  // terminal writes \n as \r\n). The output is long: only its end is matched.
  const std::string message = "\r\nfailsim run: interrupted by SIGINT at simulated time ";
  const auto at = r.out.rfind(message);
  REQUIRE(at != std::string::npos);
  CHECK_THAT(r.out.substr(0, at), Catch::Contains("test accuracy"));
  CHECK_THAT(r.out.substr(at + message.size()),
             Catch::Matches("[0-9]+\\.[0-9]{2} s; nothing was written to " + out + "\r\n"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("failsim run's progress line: the stop, the time, an outage mark, nothing stale",
          "[cli][interrupt]") {
  TempDir dir;
  // On a pseudo-terminal (script(1)), without Ctrl-C: the line is written at every evaluation
  // (every 100 ms simulated) and ended before the summary.
  const auto r = run_shell("script -qfec \"'" FAILSIM_BINARY
                           "' run scenarios/examples/server-kill-checkpoint.json --threads 1 -o '" +
                               dir.file("out") + "'\" /dev/null",
                           dir);
  REQUIRE(r.status == 0);
  const std::vector<std::string> writes = progress_writes(r.out);
  REQUIRE(writes.size() >= 60);
  // Before the failure at 2 s, during the outage (server killed, replaced at 3.5 s), after it.
  const auto at_time = [&](const std::string& t) {
    for (const std::string& w : writes)
      if (w.rfind("  t = " + t + " s", 0) == 0) return w;
    return std::string("no line at " + t);
  };
  CHECK_THAT(at_time("1.00"),
             Catch::Matches("  t = 1\\.00 s of 6 s, 500 updates, test accuracy 0\\.[0-9]{4}   "
                            "[0-9]+:[0-9]{2} elapsed, about [0-9]+:[0-9]{2} left"));
  CHECK_THAT(at_time("2.50"), Catch::EndsWith("   [OUTAGE: training stalled since 2.00 s]") &&
                                  Catch::Contains(", 1000 updates, "));
  CHECK_THAT(at_time("4.00"), !Catch::Contains("OUTAGE"));
  // As a terminal shows it: the shorter line after the outage keeps nothing of the longer one.
  const auto shown = rendered_lines(r.out), written = last_writes(r.out);
  REQUIRE(shown.size() == written.size());
  for (std::size_t i = 0; i < shown.size(); ++i) CHECK(trimmed(shown[i]) == trimmed(written[i]));
  CHECK_THAT(r.out, Catch::Contains("\r\nserver-kill-checkpoint: completed at t = 6.00 s"));
}

TEST_CASE("failsim run's progress line for a collective run: steps and the outage",
          "[cli][interrupt]") {
  TempDir dir;
  // dp64-7b: an evaluation every 5 min; node 3 fails at 20 min, training resumes after 50 min.
  const auto r = run_shell("script -qfec \"'" FAILSIM_BINARY
                           "' run scenarios/cluster/dp64-7b.json --threads 1 -o '" +
                               dir.file("out") + "'\" /dev/null",
                           dir);
  REQUIRE(r.status == 0);
  const std::vector<std::string> writes = progress_writes(r.out);
  // The line shows the simulated time when it is written (a step's end, after the evaluations
  // of its time): the first line at or after each moment.
  const auto from_time = [&](double t) {
    for (const std::string& w : writes) {
      if (w.rfind("  t = ", 0) == 0 && std::stod(w.substr(6)) >= t) return w;
    }
    return std::string("no line from ") + std::to_string(t);
  };
  CHECK_THAT(from_time(600), Catch::Contains(" s of 10800 s, ") &&
                                 Catch::Contains(" updates, test accuracy 0.") &&
                                 !Catch::Contains("OUTAGE"));
  CHECK_THAT(from_time(1500), Catch::EndsWith("[OUTAGE: training stalled since 1200.00 s]"));
  CHECK_THAT(from_time(3600), !Catch::Contains("OUTAGE"));
  CHECK_THAT(r.out, Catch::Contains("\r\ndp64-7b: completed at t = 10800.00 s (time), "));
}

namespace {
/// `failsim run ARGS -o OUT` in the background, SIGTERM after 2 s: status 143, one line that says
/// where the run was, nothing in OUT.
void check_sigterm_ends_run(const std::string& args) {
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_shell(
      "('" FAILSIM_BINARY "' run " + args + " -o '" + out + "' & sleep 2; kill -TERM $!; wait $!)",
      dir);
  CHECK(r.status == 143);
  CHECK_THAT(r.err, Catch::Matches("failsim run: interrupted by SIGTERM at simulated time "
                                   "[0-9]+\\.[0-9]{2} s; nothing was written to " +
                                   out + "\n"));
  CHECK_FALSE(fs::exists(out));
}
}  // namespace

TEST_CASE("SIGTERM on failsim run: exit 143 with the same message", "[cli][interrupt]") {
  check_sigterm_ends_run("scenarios/examples/quickstart.json -q --set /stop/time=10000s");
}

TEST_CASE("SIGTERM while background flows run: exit 143, one line, no SimGrid backtrace",
          "[cli][interrupt]") {
  // A checkpoint every step, each written to a slow file system in the background: at any
  // moment some of its flows are in flight. The job unwinding holds their sets; dropping a
  // running comm's handle made SimGrid print a backtrace per flow.
  check_sigterm_ends_run(
      "scenarios/cluster/multi-level.json -q --threads 1 --set /stop/time=1000h --set "
      "/failures/events=[] --set /recovery/multi_level/every_steps=1 --set "
      "/platform/file_system/write_bandwidth=1GBps");
}

TEST_CASE("Ctrl-C during a background snapshot checkpoint of 1,024 ranks: one line, no backtrace",
          "[cli][interrupt]") {
  // A real Ctrl-C (issue 34): hybrid-1024's snapshot checkpoint after every step, written at
  // 1 GB/s (about 1,100 s of simulated time against a step of about 27 s), so one flow per rank
  // is in flight at any moment. Each one dropped unfinished made SimGrid print a backtrace.
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = on_terminal_with_ctrl_c(
      "run scenarios/cluster/hybrid-1024.json -q --threads 1 --set /stop/time=1000h --set "
      "/failures/stochastic=[] --set /recovery/checkpoint/every_steps=1 --set "
      "/platform/file_system/write_bandwidth=1GBps -o '" +
          out + "'",
      2, dir);
  CHECK(r.status == 130);
  // Everything the terminal showed (stdout and stderr): its echo of Ctrl-C, then the message.
  CHECK_THAT(r.out, Catch::Matches("(\\^C)?failsim run: interrupted by SIGINT at simulated time "
                                   "[0-9]+\\.[0-9]{2} s; nothing was written to " +
                                   out + "\r\n"));
  CHECK_FALSE(fs::exists(out));
}

namespace {
/// A time-only collective job of 655,360 ranks (10 nodes of 65,536 accelerators, data parallel),
/// about the largest within the set-up's limits (15.6 GiB and 2 minutes estimated, most of both
/// for its first step): its plan and its platform take seconds to build.
const char* const LARGEST_JOB = R"({
  "protocol": "collective", "name": "largest-job", "seed": 1,
  "platform": {
    "node": {"accelerators": 65536, "accelerator_speed": "312Tf", "device_memory": "80GB",
             "host_memory": "1TiB", "intra_bandwidth": "300GBps", "intra_latency": "1us",
             "nics": 4, "nic_bandwidth": "200Gbps", "nic_latency": "2us"},
    "nodes": 10,
    "topology": {"kind": "fat-tree", "nodes_per_leaf": 16, "spines": 4},
    "file_system": {"write_bandwidth": "20GBps", "read_bandwidth": "40GBps"}
  },
  "layout": {"dp": 655360, "tp": 1, "pp": 1, "zero_stage": 1, "micro_batches": 1},
  "workload": {"transformer": {"parameters": 1e9, "layers": 8, "hidden": 1024, "sequence": 1,
                               "global_batch_tokens": 655360},
               "achieved_fraction": 0.4, "math": "none"},
  "stop": {"time": "1h"},
  "recovery": {"strategy": "checkpoint-restart", "checkpoint": {"every_steps": 0}}
})";

/// `failsim ARGS` sent SIGTERM after `seconds`, in an address space of 4 GiB at most (should the
/// signal go unanswered, the set-up must not take the machine's memory); stderr ends with the
/// line "answered in N ms": from the signal to the process's end.
failsim::testing::CliOutcome sigterm_after(const std::string& args, double seconds,
                                           const TempDir& dir) {
  return run_shell("(ulimit -v 4194304; '" FAILSIM_BINARY "' " + args + " & pid=$!; sleep " +
                       std::to_string(seconds) +
                       "; kill -TERM $pid; start=$(date +%s%N); wait $pid; status=$?; "
                       "end=$(date +%s%N); echo \"answered in $(( (end - start) / 1000000 )) "
                       "ms\" >&2; exit $status)",
                   dir);
}

/// The milliseconds of sigterm_after's last line, -1 if there is none.
long answered_ms(const std::string& err) {
  const std::string mark = "answered in ";
  const auto at = err.rfind(mark);
  return at == std::string::npos ? -1 : std::stol(err.substr(at + mark.size()));
}
}  // namespace

TEST_CASE("SIGTERM during a collective run's set-up: exit 143 within a second, where it was",
          "[cli][interrupt]") {
  TempDir dir;
  const std::string scenario = dir.file("big.json"), out = dir.file("out");
  failsim::testing::write_text(scenario, LARGEST_JOB);
  // The plan and the platform of 655,360 ranks take seconds (sim/scenario/collective/work.hpp):
  // the signal comes while they are built, long before the first simulated event.
  const auto r = sigterm_after("run '" + scenario + "' -q -o '" + out + "'", 1.0, dir);
  CHECK(r.status == 143);
  CHECK_THAT(r.err, Catch::Matches("failsim run: interrupted by SIGTERM while [a-z' -]+, at "
                                   "[a-z]+ [0-9,]+ of [0-9,]+; nothing was written to " +
                                   out + "\nanswered in [0-9]+ ms\n"));
  CHECK(answered_ms(r.err) >= 0);
  CHECK(answered_ms(r.err) <= 1000);
  CHECK_FALSE(fs::exists(out));

  // A dry run and validate build the plan only: under a second for this job (0.35 s and 0.49 s
  // on the idle development machine), so validate is given it 20 times and stops in one of them.
  const auto dry = sigterm_after("run '" + scenario + "' --dry-run -o '" + out + "'", 2.0, dir);
  CHECK(dry.status == 0);
  CHECK_THAT(dry.out,
             Catch::Contains("this machine: 15.6 GiB of memory (set-up 15.6 GiB, no math"));
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += " '" + scenario + "'";
  const auto validate = sigterm_after("validate" + twenty, 1.0, dir);
  CHECK(validate.status == 143);
  // In a copy's plan or SimGrid's probe of its settings, or between two copies.
  CHECK_THAT(
      validate.err,
      Catch::Matches("failsim validate: interrupted by SIGTERM (while [A-Za-z' ,0-9-]+ "
                     "\\(checking " +
                     scenario + "\\)|after checking " + scenario + ")\nanswered in [0-9]+ ms\n"));
  CHECK(answered_ms(validate.err) <= 1000);
  // The copies checked before the signal, each "ok"; none after.
  CHECK_THAT(validate.out, Catch::Matches("(" + scenario + ": ok\n){0,19}"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("SIGTERM inside a long simulated instant: the guard ends the run within a second",
          "[cli][interrupt]") {
  // 65,536 ranks on one node: the second step's flows (every flow: --simulate-every-step; the
  // first step is measured from one ring of them, representatives.hpp) end at one instant,
  // which SimGrid takes seconds to finish (65,536 endpoint actors woken at once) with no return
  // to failsim's own looks.
  TempDir dir;
  std::string job = LARGEST_JOB;
  const auto set = [&job](const std::string& from, const std::string& to) {
    const auto at = job.find(from);
    REQUIRE(at != std::string::npos);
    job.replace(at, from.size(), to);
  };
  set("\"nodes\": 10,", "\"nodes\": 1,");
  set("\"dp\": 655360,", "\"dp\": 65536,");
  set("\"global_batch_tokens\": 655360", "\"global_batch_tokens\": 65536");
  set("\"stop\": {\"time\": \"1h\"}", "\"stop\": {\"updates\": 12}");
  const std::string scenario = dir.file("instant.json"), out = dir.file("out");
  failsim::testing::write_text(scenario, job);
  // Each step's instant lasts about a second after a set-up of one or two (12 steps: longer than
  // the 6 s the signal may wait; all shorter on a faster or idler machine): the signal comes
  // later and later until it falls inside an instant. Every other one is answered cleanly too.
  const std::string inside =
      "failsim run: interrupted by SIGTERM at simulated time [0-9.]+ s or "
      "later, inside a simulated instant SimGrid had not finished "
      "\\(docs/cli.md, \"Interruptions\"\\); nothing was written to " +
      out + "\nanswered in [0-9]+ ms\n";
  bool caught_inside = false;
  for (double after = 1.0; after <= 6.0 && !caught_inside; after += 0.25) {
    const auto r = sigterm_after(
        "run '" + scenario + "' -q --threads 1 --simulate-every-step -o '" + out + "'", after, dir);
    INFO("SIGTERM after " << after << " s: " << r.err);
    REQUIRE(r.status == 143);  // the run takes longer than 6 s: never ends before the signal
    CHECK(answered_ms(r.err) >= 0);
    CHECK(answered_ms(r.err) <= 1000);
    CHECK_FALSE(fs::exists(out));
    caught_inside = Catch::Matches(inside).match(r.err);
  }
  CHECK(caught_inside);
}

TEST_CASE("Ctrl-C on failsim sweep: exit 130, the count, and the same command resumes exactly",
          "[cli][interrupt][sweep]") {
  TempDir dir;
  // 6 runs of about 1.5 s each, 2 at a time: Ctrl-C after 1 s comes while the first ones run.
  const std::string sweep = dir.file("six.json");
  failsim::testing::write_text(sweep, R"({"name": "six", "seeds": [1, 2, 3],
    "scenarios": [")" FAILSIM_SOURCE_DIR R"(/scenarios/examples/quickstart.json"],
    "vary": [{"path": "/stop/time", "values": ["50s"]},
             {"path": "/optimizer/batch_size", "values": [32, 64]}]})");
  const fs::path ref = dir.file("ref"), out = dir.file("out");
  REQUIRE(run_cli("sweep '" + sweep + "' -j 2 -q -o '" + ref.string() + "'", dir).status == 0);

  const auto r =
      on_terminal_with_ctrl_c("sweep '" + sweep + "' -j 2 -o '" + out.string() + "'", 1, dir);
  CHECK(r.status == 130);
  const std::string message = "failsim sweep: interrupted by SIGINT with ";
  const auto at = r.out.rfind(message);
  REQUIRE(at != std::string::npos);
  CHECK_THAT(r.out.substr(at + message.size()),
             Catch::Matches("[0-5] of 6 runs done; the runs it stopped left nothing, and the same "
                            "command resumes the sweep\\r\\n"));
  // Every line as the terminal shows it is what was written on it last: nothing stale.
  const auto shown = rendered_lines(r.out), written = last_writes(r.out);
  REQUIRE(shown.size() == written.size());
  for (std::size_t i = 0; i < shown.size(); ++i) CHECK(trimmed(shown[i]) == trimmed(written[i]));

  const auto resumed = run_cli("sweep '" + sweep + "' -j 2 -o '" + out.string() + "'", dir);
  CHECK(resumed.status == 0);
  CHECK_THAT(resumed.err, Catch::Contains(" done before, "));
  for (const char* file : {"runs.csv", "table.md", "sweep.json"}) {
    INFO(file);
    CHECK(read_text(out / file) == read_text(ref / file));
  }
}
