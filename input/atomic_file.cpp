#include "input/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace failsim::input {

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path temp =
      parent / fmt::format(".{}.tmp-{}", path.filename().string(), static_cast<long>(getpid()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (out) out << text;
    out.close();
    if (!out) {
      const int error = errno;
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error(fmt::format("{}: cannot be written (its temporary file {}: {})",
                                           path.string(), temp.string(), std::strerror(error)));
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(
        fmt::format("{}: cannot be replaced ({})", path.string(), ec.message()));
  }
}

}  // namespace failsim::input
