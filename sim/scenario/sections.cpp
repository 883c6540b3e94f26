// Helpers the section readers and writers share (sections.hpp).
#include "sim/scenario/sections.hpp"

#include <filesystem>

namespace failsim::sim::detail {
namespace fs = std::filesystem;

std::string resolve_path(const std::string& written, const std::string& file_label) {
  const fs::path p(written);
  if (p.is_absolute()) return p.lexically_normal().string();
  const fs::path base = fs::path(file_label).parent_path();
  return fs::absolute(base / p).lexically_normal().string();
}

nlohmann::json optional_to_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace failsim::sim::detail
