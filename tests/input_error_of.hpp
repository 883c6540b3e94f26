// The InputError a piece of code throws, for the scenario and units tests.
#pragma once

#include <catch2/catch.hpp>
#include <stdexcept>

#include "input/input_error.hpp"

namespace failsim::testing {

/// The InputError thrown by `f`; fails the test when `f` throws none.
template <class F>
failsim::input::InputError error_of(F f) {
  try {
    f();
  } catch (const failsim::input::InputError& e) {
    return e;
  }
  FAIL("no failsim::input::InputError thrown");
  throw std::logic_error("unreachable");
}

}  // namespace failsim::testing
