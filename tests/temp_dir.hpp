// A fresh temporary directory per test, for every tier of tests (engine-free: no SimGrid).
#pragma once

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace failsim::testing {

/// A new directory under the system temporary directory, removed with everything in it when
/// the object goes out of scope (the test passed or failed).
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "failsim-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The directory, as a string (tests build command lines and paths by concatenation).
  const std::string& path() const { return path_; }
  /// The path of `name` (which may hold '/') inside the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace failsim::testing
