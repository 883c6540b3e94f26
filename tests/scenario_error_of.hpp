// The ScenarioError a piece of code throws, for the scenario and units tests.
#pragma once

#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/scenario_error.hpp"

namespace failsim::testing {

/// The ScenarioError thrown by `f`; fails the test when `f` throws none.
template <class F>
sim::ScenarioError error_of(F f) {
  try {
    f();
  } catch (const sim::ScenarioError& e) {
    return e;
  }
  FAIL("no ScenarioError thrown");
  throw std::logic_error("unreachable");
}

}  // namespace failsim::testing
