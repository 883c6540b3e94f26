// How the flat parameter vector is split over the parameter server shards (docs/strategies.md,
// "Sharded servers"): S contiguous ranges, balanced by bytes, cut at tensor boundaries where
// that keeps the balance within a tolerance. A pure function of the tensors.
#pragma once

#include <cstddef>
#include <vector>

#include "models/model.hpp"

namespace failsim::models {

/// One shard's range of the flat parameter vector: floats [offset, offset + size).
struct ShardRange {
  std::size_t offset = 0;
  std::size_t size = 0;
  bool operator==(const ShardRange&) const = default;
};

/// How far a cut may move from its balanced position to reach a tensor boundary: this fraction
/// of total / S. Every shard's size is then within 2 x SNAP_TOLERANCE x total / S of total / S
/// (each of its two cuts moves at most that far), give or take a row.
inline constexpr double SNAP_TOLERANCE = 0.1;

/// Splits `tensors` (tiling [0, total)) into `shards` contiguous ranges. Cut j (1 <= j < S)
/// aims at c_j = round(j x total / S). If the tensor boundary nearest c_j is within
/// SNAP_TOLERANCE x total / S of it, the cut is there (on a tie, the earlier boundary);
/// otherwise the cut falls inside the tensor holding c_j, at the row boundary nearest c_j (on a
/// tie, the earlier one). A cut that would leave a shard empty is c_j itself. S = 1 gives
/// {[0, total)}. Throws std::invalid_argument unless 1 <= shards <= total and the tensors tile
/// [0, total) in order.
std::vector<ShardRange> partition(const std::vector<models::Tensor>& tensors, int shards);

}  // namespace failsim::models
