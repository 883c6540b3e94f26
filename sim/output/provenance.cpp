// The versions come from the headers failsim was compiled with, except SimGrid's, which is the
// shared library that ran (sg_version_get): a SimGrid upgrade changes results without a rebuild.
#include "sim/output/provenance.hpp"

#include <fmt/core.h>
#include <xbt/base.h>  // before simgrid/version.h, which uses its macros without it

#include <simgrid/version.h>

#include <dlfcn.h>

#include <Eigen/Core>
#include <filesystem>
#include <system_error>

#include "sim/output/build_info.hpp"

namespace failsim::sim {

namespace {
std::string compiler() {
#if defined(__clang__)
  return fmt::format("Clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

// The allocator that ran: tcmalloc names itself with tc_version (the failsim executable links
// it, FAILSIM_TCMALLOC: docs/performance.md); otherwise it is the C library's malloc.
std::string allocator() {
  using TcVersion = const char* (*)(int*, int*, const char**);
  void* tc_version = dlsym(RTLD_DEFAULT, "tc_version");
  if (tc_version == nullptr) return "libc";
  int major = 0, minor = 0;
  const char* patch = "";
  reinterpret_cast<TcVersion>(tc_version)(&major, &minor, &patch);
  return fmt::format("tcmalloc {}.{}{}", major, minor, patch != nullptr ? patch : "");
}
}  // namespace

nlohmann::json provenance_json(const std::vector<std::string>& command_line) {
  nlohmann::json modified = nullptr;
  if (BUILD_INFO.modified != SourceModified::UNKNOWN) {
    modified = BUILD_INFO.modified == SourceModified::YES;
  }
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  std::error_code error;
  const std::filesystem::path cwd = std::filesystem::current_path(error);
  return {
      {"failsim",
       {{"version", std::string(BUILD_INFO.version)},
        {"commit", std::string(BUILD_INFO.commit)},
        {"source_modified", modified}}},
      {"compiler", compiler()},
      {"libraries",
       {{"simgrid", fmt::format("{}.{}.{}", major, minor, patch)},
        {"eigen",
         fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION)},
        {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR,
                                      NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)},
        {"fmt",
         fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100)},
        {"allocator", allocator()}}},
      {"command_line", command_line},
      {"working_directory", error ? nlohmann::json(nullptr) : nlohmann::json(cwd.string())},
  };
}

}  // namespace failsim::sim
