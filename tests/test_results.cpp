// The vocabulary of result files (result_format/): event types against their spellings and against
// the docs that list them, process and link names made and parsed, the failure window.
// Engine-free.
#include <catch2/catch.hpp>

#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "result_format/event_type.hpp"
#include "result_format/failure_window.hpp"
#include "result_format/process_name.hpp"

using failsim::result_format::EventType;
using failsim::testing::read_text;

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
