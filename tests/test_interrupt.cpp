// input/interrupt.hpp's poll of set-up loops and input/printable.hpp's grouped counts: a loop
// looks at its `every`-th iterations only, and says where it was when a signal came. The signal
// is raised in this process: catch_discover_tests gives each test case a process of its own.
#include <catch2/catch.hpp>

#include <climits>
#include <csignal>

#include "input/interrupt.hpp"
#include "input/printable.hpp"

using failsim::input::grouped;
using failsim::input::Interrupted;
using failsim::input::poll_interrupt;

TEST_CASE("grouped writes a count with a comma between groups of three digits") {
  CHECK(grouped(0) == "0");
  CHECK(grouped(999) == "999");
  CHECK(grouped(1000) == "1,000");
  CHECK(grouped(65536) == "65,536");
  CHECK(grouped(10'000'000) == "10,000,000");
  CHECK(grouped(-1234) == "-1,234");
  CHECK(grouped(-999) == "-999");
  CHECK(grouped(LLONG_MAX) == "9,223,372,036,854,775,807");
  CHECK(grouped(LLONG_MIN) == "-9,223,372,036,854,775,808");
}

TEST_CASE("poll_interrupt throws where the loop was, at its every-th iterations only") {
  // No signal caught: every iteration goes on.
  for (long long i = 0; i < 100; ++i)
    poll_interrupt(i, 100, "building the plan's ranks", "rank", 1);
  failsim::input::catch_interrupts();
  std::raise(SIGTERM);
  REQUIRE(failsim::input::caught_interrupt() == SIGTERM);
  // Between two looks the loop goes on; at a look it stops.
  CHECK_NOTHROW(poll_interrupt(4095, 10'000'000, "building the plan's ranks", "rank", 4096));
  try {
    poll_interrupt(8192, 10'000'000, "building the plan's ranks", "rank", 4096);
    FAIL("no Interrupted at a look after the signal");
  } catch (const Interrupted& e) {
    CHECK(e.signal() == SIGTERM);
    CHECK(std::string(e.what()) ==
          "interrupted by SIGTERM while building the plan's ranks, at rank 8,192 of 10,000,000");
  }
}
