// Skipping a test case so that ctest reports it as Skipped, not Passed. Catch2 v2 has no SKIP:
// FAILSIM_SKIP prints a marker line with the reason (as a Catch warning, so it shows in the
// output) and returns from the test case; every test executable is registered with the ctest
// property SKIP_REGULAR_EXPRESSION on that marker (tests/CMakeLists.txt), so a test whose
// output holds it is Skipped. Only for conditions outside the code under test (a missing
// interpreter, a build with sanitizers), never for a failure.
#pragma once

#include <catch2/catch.hpp>

/// The marker tests/CMakeLists.txt matches (FAILSIM_SKIP_MARKER there: keep them equal).
#define FAILSIM_SKIP_MARKER "failsim-test-skipped:"

#define FAILSIM_SKIP(reason)                 \
  do {                                       \
    WARN(FAILSIM_SKIP_MARKER " " << reason); \
    return;                                  \
  } while (false)
