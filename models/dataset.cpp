// Batching, deterministic shuffling and sharding of in-memory data sets (see dataset.hpp).
#include "models/dataset.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "models/rng.hpp"

namespace failsim::models {

BatchBuffer::BatchBuffer(int capacity, int dim) : capacity_(capacity), dim_(dim) {
  if (capacity <= 0 || dim <= 0) {
    throw std::invalid_argument(
        fmt::format("BatchBuffer: capacity and dim must be positive, found capacity {} and dim {}",
                    capacity, dim));
  }
  x_.resize(static_cast<std::size_t>(capacity) * static_cast<std::size_t>(dim));
  y_.resize(static_cast<std::size_t>(capacity));
}

Batch BatchBuffer::gather(const Dataset& data, std::span<const int> indices) {
  if (indices.size() > static_cast<std::size_t>(capacity_)) {
    throw std::invalid_argument(fmt::format("BatchBuffer::gather: {} indices exceed capacity {}",
                                            indices.size(), capacity_));
  }
  if (data.dim() != dim_) {
    throw std::invalid_argument(
        fmt::format("BatchBuffer::gather: data set '{}' has dim {}, buffer has dim {}", data.name,
                    data.dim(), dim_));
  }
  const auto dim = static_cast<std::size_t>(dim_);
  const int size = data.size();
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const int i = indices[k];
    // One comparison per sample is noise next to copying dim floats, and a bad index
    // would otherwise read out of bounds silently.
    if (i < 0 || i >= size) {
      throw std::out_of_range(
          fmt::format("BatchBuffer::gather: index {} out of range for data set '{}' of {} samples",
                      i, data.name, size));
    }
    std::copy_n(data.sample(i), dim, x_.data() + k * dim);
    y_[k] = data.y[static_cast<std::size_t>(i)];
  }
  return Batch{x_.data(), y_.data(), static_cast<int>(indices.size())};
}

std::vector<int> shuffled_indices(int n, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument(fmt::format("shuffled_indices: n = {} < 0", n));
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  // Fisher-Yates with our own generator, not std::shuffle: the standard leaves std::shuffle's
  // algorithm unspecified, and runs must replay identically everywhere.
  Rng rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = rng.below(i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<int> shard_indices(int n, int shard, int num_shards, std::uint64_t seed) {
  return shard_of(shuffled_indices(n, seed), shard, num_shards);
}

std::vector<int> shard_of(std::span<const int> order, int shard, int num_shards) {
  if (num_shards <= 0 || shard < 0 || shard >= num_shards) {
    throw std::invalid_argument(
        fmt::format("shard_indices: expected 0 <= shard < num_shards, found shard {} of {}", shard,
                    num_shards));
  }
  const int n = static_cast<int>(order.size());
  const int base = n / num_shards;
  const int extra = n % num_shards;
  const int begin = shard * base + std::min(shard, extra);
  const int count = base + (shard < extra ? 1 : 0);
  return {order.begin() + begin, order.begin() + begin + count};
}

void normalise_pixels(std::span<const std::uint8_t> raw, std::span<float> out, float mean,
                      float std_dev) {
  if (raw.size() != out.size()) {
    throw std::invalid_argument(fmt::format(
        "normalise_pixels: {} raw pixels but room for {} outputs", raw.size(), out.size()));
  }
  if (!(std_dev > 0.0f)) {
    throw std::invalid_argument(
        fmt::format("normalise_pixels: std_dev must be positive, found {}", std_dev));
  }
  // 256 possible inputs: a lookup table gives exactly the per-pixel formula's floats while
  // doing no arithmetic in the loop over ~47 million pixels.
  std::array<float, 256> table{};
  for (int p = 0; p < 256; ++p) {
    table[static_cast<std::size_t>(p)] = (static_cast<float>(p) / 255.0f - mean) / std_dev;
  }
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = table[raw[i]];
}

}  // namespace failsim::models
