// Runs the failsim binary (or any shell command) the way a user does, for the tests of the
// command line: one copy of the plumbing instead of one per test file. Engine-free (no
// SimGrid); the test target defines FAILSIM_SOURCE_DIR and FAILSIM_BINARY.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_dir.hpp"

namespace failsim::testing {

/// The bytes of a file ("" when it cannot be read: the check that follows says what is wrong).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes `text` to `path`, creating its directories.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

struct CliOutcome {
  int status;  ///< exit status, -1 when killed by a signal
  std::string out, err;
};

/// Runs the shell command `command` from the source directory (scenario paths are relative to
/// it), its output captured in `dir`; the exact command line is in the test's output when a
/// check fails.
inline CliOutcome run_shell(const std::string& command, const TempDir& dir) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string line =
      "cd '" FAILSIM_SOURCE_DIR "' && " + command + " >'" + out + "' 2>'" + err + "'";
  UNSCOPED_INFO("command: " << line);
  const int raw = std::system(line.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_text(out), read_text(err)};
}

/// Runs `failsim ARGS` from the source directory.
inline CliOutcome run_cli(const std::string& args, const TempDir& dir) {
  return run_shell("'" FAILSIM_BINARY "' " + args, dir);
}

}  // namespace failsim::testing
