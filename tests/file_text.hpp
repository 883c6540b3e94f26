// A file's bytes for a test that reads the source tree (schema, docs, fixtures): one reader
// instead of one per test file, and in a unity build one definition per test executable.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace failsim::testing {

/// The bytes of `path`; throws std::runtime_error naming it when it cannot be read, so that a
/// missing fixture fails the test that needs it rather than reading as "".
inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace failsim::testing
