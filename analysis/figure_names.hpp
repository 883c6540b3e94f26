// The figures `failsim plot` draws (docs/plots.md), by name: the C++ side's copy of
// analysis/plot.py's FIGURES, so that a sweep file's `figures` (docs/sweeps.md) is checked before
// any run starts rather than by the script once they have all run. tests/test_sweep.cpp fails
// when the two lists disagree.
#pragma once

#include <array>
#include <string_view>

namespace failsim::analysis {

inline constexpr std::array<std::string_view, 7> FIGURE_NAMES = {
    "accuracy", "gradients", "utilisation", "timeline", "time", "loss", "sweep"};

}  // namespace failsim::analysis
