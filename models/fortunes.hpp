// Where Debian's fortunes live on a machine set up by scripts/setup.sh (the package `fortunes`):
// the text data's default corpus (models/text_corpus.hpp), which the scenario format shares
// without the math.
#pragma once

namespace failsim::models {

inline constexpr const char* FORTUNES_DIR = "/usr/share/games/fortunes";

}  // namespace failsim::models
