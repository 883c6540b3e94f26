// The vocabulary of result files (result_format/): event types against their spellings and against
// the docs that list them, process and link names made and parsed, the failure window; and
// its Python twin analysis/failsim_results.py against the C++ it mirrors (the failure windows
// of one result directory, the Student t quantiles of analysis/stats.cpp), by running python3.
// Engine-free.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/daly_optimum.hpp"
#include "analysis/natural_order.hpp"
#include "analysis/run_summary.hpp"
#include "analysis/stats.hpp"
#include "analysis/table.hpp"
#include "cli_harness.hpp"
#include "result_format/event_type.hpp"
#include "result_format/failure_window.hpp"
#include "result_format/process_name.hpp"
#include "result_format/reproducible.hpp"
#include "result_format/sha256.hpp"
#include "result_format/time_cause.hpp"
#include "temp_dir.hpp"

using failsim::result_format::EventType;
using failsim::testing::read_text;
using failsim::testing::run_shell;
using failsim::testing::TempDir;
using failsim::testing::write_text;

namespace {

/// The first column of every Markdown table whose header's first cell is `type` in `markdown`.
std::set<std::string> documented_types(const std::string& markdown) {
  std::set<std::string> types;
  std::istringstream lines(markdown);
  bool in_table = false;
  std::string previous;
  for (std::string line; std::getline(lines, line); previous = line) {
    // A header is the row above the separator row (a body row may start "| `type` |" too).
    if (line.starts_with("| ---")) {
      in_table = previous.starts_with("| `type` |");
      continue;
    }
    if (!line.starts_with("|")) in_table = false;
    if (!in_table || !line.starts_with("| `")) continue;
    const std::size_t end = line.find('`', 3);
    types.insert(line.substr(3, end - 3));
  }
  return types;
}

std::set<std::string> enum_spellings() {
  std::set<std::string> spellings;
  for (const auto& e : failsim::result_format::event_types()) spellings.emplace(e.spelling);
  return spellings;
}

/// The interpreter the Python tools run with (as failsim plot: FAILSIM_PYTHON, else
/// /usr/bin/python3).
std::string python() {
  const char* env = std::getenv("FAILSIM_PYTHON");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
}

/// Runs `code` with analysis/ (failsim_results.py) importable; its standard output.
std::string run_python(const std::string& code, const TempDir& dir) {
  write_text(dir.file("check.py"), "import sys\nsys.path.insert(0, '" FAILSIM_SOURCE_DIR
                                   "/analysis')\nimport failsim_results\n" +
                                       code);
  // Appended, not a chain of operator+: GCC 12 warns falsely (-Wrestrict) on "'" + string.
  std::string command = python();
  command.insert(0, 1, '\'');
  command += "' '" + dir.file("check.py") + "'";
  const auto ran = run_shell(command, dir);
  INFO(ran.err);
  REQUIRE(ran.status == 0);
  return ran.out;
}

}  // namespace

TEST_CASE("every event type has one spelling that reads back as it", "[results]") {
  const auto all = failsim::result_format::event_types();
  CHECK(all.size() == enum_spellings().size());  // no spelling twice
  for (const auto& e : all) {
    INFO(e.spelling);
    CHECK(failsim::result_format::spelling(e.type) == e.spelling);
    CHECK(failsim::result_format::parse_event_type(e.spelling) == e.type);
  }
  CHECK(failsim::result_format::spelling(EventType::LINK_FAILURE) == "link_failure");
  CHECK(failsim::result_format::spelling(EventType::TRAINING_RESUMED) == "training_resumed");
  CHECK_FALSE(failsim::result_format::parse_event_type("target_reached"));
  CHECK_FALSE(failsim::result_format::parse_event_type("Failure"));
  CHECK_FALSE(failsim::result_format::parse_event_type(""));
}

TEST_CASE("docs/result-format.md and docs/failures.md list exactly the event types of the enum",
          "[results][docs]") {
  const std::set<std::string> spellings = enum_spellings();
  for (const char* page : {"docs/result-format.md", "docs/failures.md"}) {
    INFO(page);
    const std::set<std::string> documented =
        documented_types(read_text(std::string(FAILSIM_SOURCE_DIR) + "/" + page));
    for (const std::string& s : spellings) {
      INFO("recorded, not documented: " << s);
      CHECK(documented.count(s) == 1);
    }
    for (const std::string& d : documented) {
      INFO("documented, not an event type: " << d);
      CHECK(spellings.count(d) == 1);
    }
  }
}

TEST_CASE("process names: made in a scope, a server's scope parsed back", "[results]") {
  using failsim::result_format::ProcessScope;
  using failsim::result_format::scoped_name;
  using failsim::result_format::server_name;
  using failsim::result_format::server_scope;
  CHECK(server_name(3) == "server-3");
  CHECK(failsim::result_format::replica_name(1) == "replica-1");
  CHECK(failsim::result_format::worker_name(12) == "worker-12");
  CHECK(ProcessScope{}.prefix().empty());
  CHECK(scoped_name({0, 1}, "storage") == "shard-1.storage");
  CHECK(scoped_name({2, std::nullopt}, "server-0") == "gen-2.server-0");
  CHECK(scoped_name({2, 0}, server_name(4)) == "gen-2.shard-0.server-4");

  for (const ProcessScope& scope :
       {ProcessScope{}, ProcessScope{0, 1}, ProcessScope{3, std::nullopt}, ProcessScope{2, 10}}) {
    const std::string name = scoped_name(scope, server_name(7));
    INFO(name);
    REQUIRE(server_scope(name));
    CHECK(*server_scope(name) == scope);
    CHECK(server_scope(name)->prefix() + "server-7" == name);
  }
  // Names of other processes, or that only look like a server's.
  for (const char* other :
       {"worker-1", "replica", "none", "replica-0", "shard-1.replica-0", "shard-1-server-0",
        "server-", "server-x", "server-1.ack", "server--1", "server-+1", "shard-1.shard-2.server-0",
        "shard-1.gen-2.server-0", "gen-.server-0", "xserver-1"}) {
    INFO(other);
    CHECK_FALSE(server_scope(other));
  }
}

TEST_CASE("link names: a host's link and back", "[results]") {
  CHECK(failsim::result_format::link_name("worker-0") == "worker-0-link");
  CHECK(failsim::result_format::link_host("worker-0-link") == "worker-0");
  CHECK(failsim::result_format::link_host("server-1") == "server-1");
  CHECK(failsim::result_format::link_host("-link") == "-link");
}

TEST_CASE("a failure window: failures and link failures, clipped to the run's end", "[results]") {
  using failsim::result_format::failure_window;
  using failsim::result_format::is_failure;
  CHECK(is_failure(EventType::FAILURE));
  CHECK(is_failure(EventType::LINK_FAILURE));
  CHECK_FALSE(is_failure(EventType::FAILURE_SKIPPED));
  CHECK_FALSE(is_failure(EventType::HOST_LOST));

  const auto host = failure_window(EventType::FAILURE, 30.0, "server-0", 20.0, 100.0);
  CHECK(host.begin == 30.0);
  CHECK(host.end == 50.0);
  CHECK(host.host == "server-0");
  CHECK_FALSE(host.link);
  const auto link = failure_window(EventType::LINK_FAILURE, 90.0, "worker-1-link", 20.0, 100.0);
  CHECK(link.host == "worker-1");
  CHECK(link.link);
  CHECK(link.end == 100.0);
  const auto forever = failure_window(EventType::FAILURE, 10.0, "worker-0",
                                      std::numeric_limits<double>::infinity(), 100.0);
  CHECK(forever.end == 100.0);
  const auto crash = failure_window(EventType::FAILURE, 10.0, "worker-0", 0.0, 100.0);
  CHECK(crash.end == crash.begin);
}

namespace {

/// A result with every kind of failure and events around them (docs/result-format.md).
const char* const RESULT = R"({
  "format": "failsim-result", "format_version": 1,
  "scenario": {"name": "windows", "seed": 1},
  "summary": {
    "status": "completed", "end_time": 100.0, "final": null,
    "gradients": {"computed": 10, "applied": 10, "dropped": 0, "lost": 0, "pending_at_end": 0,
                  "rolled_back": 0},
    "updates": 10, "updates_rolled_back": 0,
    "hosts": [{"host": "server-0", "role": "server", "recovery_wait_seconds": 0.0,
               "down_seconds": 20.0}]
  },
  "events": [
    {"time": 0.0, "type": "start", "subject": "", "details": {"workers": 2, "params": 3}},
    {"time": 10.1, "type": "failure", "subject": "worker-0",
     "details": {"cause": "event 0", "down_for": 0.0, "process": "worker-0"}},
    {"time": 30.000000000000004, "type": "failure", "subject": "server-0",
     "details": {"cause": "stochastic", "down_for": 20.3, "process": "server-0"}},
    {"time": 31.0, "type": "failure_skipped", "subject": "server-0",
     "details": {"cause": "stochastic", "reason": "host already down"}},
    {"time": 40.0, "type": "link_failure", "subject": "worker-1-link",
     "details": {"cause": "event 1", "down_for": 5.5}},
    {"time": 45.5, "type": "link_up", "subject": "worker-1-link", "details": {}},
    {"time": 50.3, "type": "host_up", "subject": "server-0", "details": {}},
    {"time": 60.0, "type": "link_failure", "subject": "server-0-link",
     "details": {"cause": "event 2", "down_for": "forever"}},
    {"time": 70.0, "type": "a_newer_writers_event", "subject": "", "details": {}},
    {"time": 95.0, "type": "failure", "subject": "worker-1",
     "details": {"cause": "event 3", "down_for": 10.0, "process": "worker-1"}},
    {"time": 99.0, "type": "failure", "subject": "worker-2",
     "details": {"cause": "event 4", "down_for": "forever", "process": "none"}},
    {"time": 100.0, "type": "stop", "subject": "", "details": {"reason": "time"}}
  ]
})";

}  // namespace

TEST_CASE("analysis/failsim_results.py finds the failure windows of a result as the tables do",
          "[results][python]") {
  TempDir dir;
  write_text(dir.file("run/result.json"), RESULT);
  failsim::analysis::RunSummary run;
  failsim::analysis::parse_result_json(RESULT, "result.json", run);
  const auto windows = failsim::analysis::failure_windows(run);
  REQUIRE(windows.size() == 6);

  const std::string out = run_python(
      "import json\n"
      "result = json.load(open('" +
          dir.file("run/result.json") +
          "'))\n"
          "for w in failsim_results.failure_windows(result['events'], "
          "result['summary']['end_time']):\n"
          "    print(repr(w.begin), repr(w.end), w.host, int(w.link))\n",
      dir);
  std::istringstream lines(out);
  std::size_t i = 0;
  for (std::string begin, end, host; lines >> begin >> end >> host; ++i) {
    int link = 0;
    lines >> link;
    INFO("window " << i << ": " << begin << " " << end << " " << host << " " << link);
    REQUIRE(i < windows.size());
    CHECK(std::strtod(begin.c_str(), nullptr) == windows[i].begin);
    CHECK(std::strtod(end.c_str(), nullptr) == windows[i].end);
    CHECK(host == windows[i].host);
    CHECK((link == 1) == windows[i].link);
  }
  CHECK(i == windows.size());
}

TEST_CASE("analysis/failsim_results.py rejects a bad failure event as plot.py reports it",
          "[results][python]") {
  TempDir dir;
  const std::string out = run_python(
      "for events in ([{'type': 'failure', 'subject': 'h', 'details': {}}],\n"
      "               [{'type': 'link_failure', 'time': 1.0, 'subject': 'h-link',\n"
      "                 'details': {'down_for': '20s'}}],\n"
      "               [{'type': 'failure', 'time': True, 'subject': 'h'}]):\n"
      "    try:\n"
      "        failsim_results.failure_windows([{'type': 'start'}] + events, 10.0)\n"
      "    except ValueError as e:\n"
      "        print(e)\n",
      dir);
  CHECK(out ==
        "/events/1: expected /time, found none\n"
        "expected /events/1/details/down_for to be a number or \"forever\", found \"20s\"\n"
        "/events/1: expected /time to be a number, found true\n");
}

TEST_CASE("time causes: one spelling each that reads back, and the Python twin's list is the same",
          "[results][python]") {
  using failsim::result_format::TimeCause;
  const auto all = failsim::result_format::time_causes();
  REQUIRE(all.size() == failsim::result_format::TIME_CAUSES);
  std::string expected;
  for (std::size_t k = 0; k < all.size(); ++k) {
    INFO(all[k].spelling);
    CHECK(static_cast<std::size_t>(all[k].cause) == k);  // the table is in enum order
    CHECK(failsim::result_format::spelling(all[k].cause) == all[k].spelling);
    CHECK(failsim::result_format::parse_time_cause(all[k].spelling) == all[k].cause);
    expected += std::string(all[k].spelling) + "=" + std::string(all[k].label) + "\n";
  }
  CHECK(failsim::result_format::spelling(TimeCause::CHECKPOINT_STALL) == "checkpoint_stall");
  CHECK_FALSE(failsim::result_format::parse_time_cause("lost"));
  TempDir dir;
  CHECK(run_python("for key, label in failsim_results.TIME_CAUSES:\n    print(f'{key}={label}')\n",
                   dir) == expected);
}

TEST_CASE("analysis/failsim_results.py's Student t quantiles are analysis/stats.cpp's",
          "[results][python]") {
  TempDir dir;
  const std::string out = run_python(
      "print(' '.join(repr(failsim_results.t975(df)) for df in range(1, 301)))\n"
      "try:\n"
      "    failsim_results.t975(0)\n"
      "except ValueError as e:\n"
      "    print(e)\n",
      dir);
  std::istringstream values(out);
  for (int df = 1; df <= 300; ++df) {
    INFO("df " << df);
    std::string text;
    REQUIRE(values >> text);
    const double t = failsim::analysis::t_quantile_975(df);
    // The same constants and the same expansion; only the compilers' rounding may differ.
    CHECK(std::fabs(std::strtod(text.c_str(), nullptr) - t) <= 1e-14 * t);
  }
  std::string rest;
  std::getline(values >> std::ws, rest);
  CHECK(rest == "t975: df must be >= 1, got 0");
}

TEST_CASE("SHA-256: the standard's test vectors, and hashlib's digest at every padding length",
          "[results][sha256]") {
  using failsim::result_format::sha256_hex;
  // FIPS 180-4 examples (NIST CSRC): one block, two blocks, a million bytes.
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Every length around the block and padding boundaries (55, 56, 63, 64, 119, 120, ...).
  TempDir dir;
  const std::string out = run_python(
      "import hashlib\n"
      "print(' '.join(hashlib.sha256(bytes(range(n))).hexdigest() for n in range(200)))\n",
      dir);
  std::istringstream digests(out);
  for (int n = 0; n < 200; ++n) {
    std::string bytes;
    for (int i = 0; i < n; ++i) bytes += static_cast<char>(i);
    std::string expected;
    REQUIRE(digests >> expected);
    INFO("length " << n);
    CHECK(sha256_hex(bytes) == expected);
  }
}

TEST_CASE("analysis/failsim_results.py leaves out the keys result_format leaves out",
          "[results][python]") {
  TempDir dir;
  const std::string out = run_python(
      "print(' '.join(failsim_results.NOT_REPRODUCED_KEYS))\n"
      "print(sorted(failsim_results.reproducible_part({'a': 1, 'provenance': 2, "
      "'wall_clock': 3})))\n",
      dir);
  std::string cpp;
  for (const auto key : failsim::result_format::NOT_REPRODUCED_KEYS) {
    if (!cpp.empty()) cpp += ' ';
    cpp += key;
  }
  CHECK(out == cpp + "\n['a']\n");
}

TEST_CASE("Daly's optimum: the table's and the figure's, the same in C++ and Python",
          "[results][python]") {
  using failsim::analysis::daly_optimum;
  // Daly's closed form by hand: delta 6, M 500 (x = 0.006), and delta >= 2M gives M.
  CHECK(daly_optimum(6.0, 500.0) == Approx(73.5113).epsilon(1e-5));
  CHECK(daly_optimum(300.0, 100.0) == 100.0);
  CHECK(daly_optimum(200.0, 100.0) == 100.0);
  TempDir dir;
  const std::string out = run_python(
      "import daly\n"
      "for delta, M in [(6.0, 500.0), (1.0, 288.0), (60.0, 1e5), (199.0, 100.0), (300.0, 100.0)]:\n"
      "    print(repr(daly.daly_optimum(delta, M)))\n",
      dir);
  std::istringstream lines(out);
  for (const auto& [delta, mtbf] :
       {std::pair{6.0, 500.0}, {1.0, 288.0}, {60.0, 1e5}, {199.0, 100.0}, {300.0, 100.0}}) {
    double python = 0.0;
    REQUIRE(lines >> python);
    CHECK(daly_optimum(delta, mtbf) == Approx(python).epsilon(1e-14));
  }
}

TEST_CASE("natural order: numbers as a reader counts them, the same in C++ and Python",
          "[results][python]") {
  using failsim::analysis::natural_less;
  CHECK(natural_less("every-25", "every-100"));
  CHECK(natural_less("every-200", "every-1600"));
  CHECK_FALSE(natural_less("every-100", "every-25"));
  CHECK(natural_less("every-7", "every-007"));  // the same number: fewer zeros first
  CHECK_FALSE(natural_less("x", "x"));
  // A sweep's names: the same order from both sides, whatever they hold.
  std::vector<std::string> names = {"e-100", "e-1600", "e-200", "e-25",       "e-025",
                                    "a-",    "a1",     "a",     "e-",         "e-7x",
                                    "b2c10", "b2c9",   "b10c1", "\xc3\xa9-3", "z"};
  TempDir dir;
  std::string list;
  for (const auto& n : names) {
    list += list.empty() ? "'" : ", '";
    list += n;
    list += '\'';
  }
  std::string code = "print('\\n'.join(sorted([";
  code += list;
  code += "], key=failsim_results.natural_key)))\n";
  const std::string out = run_python(code, dir);
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  std::string cpp;
  for (const auto& n : names) cpp += n + "\n";
  CHECK(out == cpp);
  CHECK(names.front() == "a");
  CHECK(std::find(names.begin(), names.end(), "e-25") <
        std::find(names.begin(), names.end(), "e-100"));
}
