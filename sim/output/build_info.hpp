// What this binary was built from, captured at build time by cmake/build_info.cmake (its
// definition is generated into the build directory as build_info.cpp): result.json's
// provenance.failsim (docs/result-format.md#provenance).
#pragma once

#include <string_view>

namespace failsim::sim {

/// Whether tracked files of the source tree differed from `commit` when the binary was built.
enum class SourceModified { NO, YES, UNKNOWN };

struct BuildInfo {
  std::string_view version;  ///< project(VERSION) of CMakeLists.txt, e.g. "0.1.0"
  /// The git commit (40 hex digits) of the source tree; "unknown" when not built from the top
  /// of a git work tree or without git.
  std::string_view commit;
  SourceModified modified;
};

extern const BuildInfo BUILD_INFO;

}  // namespace failsim::sim
