// Helpers the section readers and writers share (section_helpers.hpp).
#include "sim/scenario/section_helpers.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "input/json_input.hpp"

namespace failsim::sim::detail {
namespace fs = std::filesystem;

std::string resolve_path(const std::string& written, const std::string& file_label) {
  const fs::path p(written);
  if (p.is_absolute()) return p.lexically_normal().string();
  const fs::path base = fs::path(file_label).parent_path();
  return fs::absolute(base / p).lexically_normal().string();
}

void check_path(const input::JsonLocation& where, const std::string& written) {
  const nlohmann::json found(written);
  if (written.find('\0') != std::string::npos) {
    where.fail("a path without a NUL character (the system cannot open it)",
               input::describe_found(found));
  }
  if (written.size() > MAX_PATH_BYTES) {
    where.fail(fmt::format("a path of at most {} bytes (PATH_MAX)", MAX_PATH_BYTES),
               fmt::format("{} bytes", written.size()));
  }
  for (const fs::path& part : fs::path(written)) {
    if (part.native().size() > MAX_NAME_BYTES) {
      where.fail(fmt::format("a path whose every component is at most {} bytes (NAME_MAX)",
                             MAX_NAME_BYTES),
                 fmt::format("a component of {} bytes", part.native().size()));
    }
  }
}

std::string read_named_file(const input::JsonLocation& where, const std::string& written,
                            const std::string& path, const std::string& expected) {
  try {
    return input::read_input_file(path, expected);
  } catch (const input::InputError& e) {
    const std::string resolved = written == path ? "" : fmt::format("resolved to {}, ", path);
    where.fail(e.expected() + " (a path relative to the scenario file)",
               fmt::format("\"{}\" ({}{})", written, resolved, e.found()));
  }
}

nlohmann::json optional_to_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string quoted_name(std::string_view strategy) {
  // fmt rather than "\"" + std::string&&: GCC 12 warns falsely (-Wrestrict) on the latter.
  return fmt::format("\"{}\"", strategy);
}

std::string join_and(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace failsim::sim::detail
