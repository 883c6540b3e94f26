#include "models/partition.hpp"

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

namespace failsim::models {

namespace {
std::size_t distance(std::size_t a, std::size_t b) { return a > b ? a - b : b - a; }
}  // namespace

std::vector<ShardRange> partition(const std::vector<Tensor>& tensors, int shards) {
  std::size_t total = 0;
  for (const Tensor& t : tensors) {
    if (t.offset != total || t.size == 0 || t.row == 0) {
      throw std::invalid_argument(
          fmt::format("partition: tensor {} does not continue the tiling at {}", t.name, total));
    }
    total += t.size;
  }
  if (shards < 1 || static_cast<std::size_t>(shards) > total) {
    throw std::invalid_argument(
        fmt::format("partition: {} shards of {} parameters (1 to {})", shards, total, total));
  }
  const auto s = static_cast<std::size_t>(shards);
  const double share = static_cast<double>(total) / static_cast<double>(shards);
  std::vector<std::size_t> cuts{0};
  for (std::size_t j = 1; j < s; ++j) {
    const auto target = static_cast<std::size_t>(std::llround(static_cast<double>(j) * share));
    // The tensor holding the target, and the boundaries around it.
    std::size_t i = 0;
    while (tensors[i].offset + tensors[i].size <= target) ++i;
    const Tensor& t = tensors[i];
    const std::size_t before = t.offset, after = t.offset + t.size;
    const std::size_t boundary =
        distance(before, target) <= distance(after, target) ? before : after;
    std::size_t cut = 0;
    if (static_cast<double>(distance(boundary, target)) <= SNAP_TOLERANCE * share) {
      cut = boundary;
    } else {
      const std::size_t rows = (target - t.offset) / t.row;
      const std::size_t down = t.offset + rows * t.row;
      const std::size_t up = std::min(down + t.row, after);
      cut = distance(down, target) <= distance(up, target) ? down : up;
    }
    // Every shard non-empty, and room left for the shards after this one.
    if (cut <= cuts.back() || cut > total - (s - j)) cut = target;
    if (cut <= cuts.back()) cut = cuts.back() + 1;
    cuts.push_back(cut);
  }
  cuts.push_back(total);
  std::vector<ShardRange> ranges;
  for (std::size_t k = 0; k < s; ++k) ranges.push_back({cuts[k], cuts[k + 1] - cuts[k]});
  return ranges;
}

}  // namespace failsim::models
