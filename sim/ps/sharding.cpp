#include "sim/ps/sharding.hpp"

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

namespace failsim::sim {

SnapshotPtr slice(const Snapshot& whole, const ShardRange& range) {
  auto part = std::make_shared<Snapshot>();
  part->version = whole.version;
  part->gradients = whole.gradients;
  const auto first = whole.params.begin() + static_cast<std::ptrdiff_t>(range.offset);
  part->params.assign(first, first + static_cast<std::ptrdiff_t>(range.size));
  return part;
}

}  // namespace failsim::sim
