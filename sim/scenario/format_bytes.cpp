#include "sim/scenario/format_bytes.hpp"

#include <fmt/core.h>

namespace failsim::sim {

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.3g} {}", bytes, units[u]);
}

}  // namespace failsim::sim
