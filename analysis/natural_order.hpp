// Natural order of names: "every-25" < "every-100" < "every-1600", as a reader counts, not as
// bytes compare ("every-100" < "every-1600" < "every-200" < "every-25"). Configurations of tables
// and figures are named after the values a sweep gives them, so their order is this one.
// failsim_results.natural_key is its Python twin (tests/test_table.cpp checks both agree).
#pragma once

#include <string_view>

namespace failsim::analysis {

/// Whether `a` comes before `b`: runs of decimal digits compare as numbers (leading zeros
/// ignored, then the shorter run of zeros first), the rest byte by byte; a tie is broken by the
/// byte order, so the order is total and equal names only are equivalent.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace failsim::analysis
