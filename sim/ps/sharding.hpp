// How the flat parameter vector is split over the parameter server shards (docs/strategies.md,
// "Sharded servers"): S contiguous ranges, balanced by bytes, cut at tensor boundaries where
// that keeps the balance within a tolerance. Engine-free: a pure function of the tensors.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"
#include "result_format/process_name.hpp"
#include "sim/ps/snapshot.hpp"

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

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

/// One parameter server shard of a run: its slice of the parameters, what moving or updating
/// that slice costs, its server hosts, and its version 0. Without shards (S = 1) the one shard
/// is the whole vector, costs exactly the time model's numbers and starts from the run's
/// initial snapshot itself. An elastic job (job.hpp) makes a new generation of shards at every
/// resize: their version 0 is the old shards' checkpoints, re-sharded.
struct Shard {
  int index = 0;
  int count = 1;       ///< S, the number of shards of its generation
  int generation = 0;  ///< 0, then one more at every resize of an elastic job
  ShardRange range;
  double bytes = 0.0;                      ///< its parameters (or a gradient's slice) on the wire
  double update_flops = 0.0;               ///< a server applying one gradient slice
  std::vector<simgrid::s4u::Host*> hosts;  ///< its server hosts (star: cluster.servers.count)
  SnapshotPtr initial;                     ///< version 0 of its slice
  /// Optimiser state of version 0: null at generation 0 (and without momentum).
  std::shared_ptr<const models::FloatBuffer> initial_velocity;

  /// Where its processes belong: its index among several shards, its generation.
  result_format::ProcessScope scope() const {
    return {generation, count > 1 ? std::optional<int>(index) : std::nullopt};
  }
  /// The name of one of its processes or mailboxes: `base` itself without shards, else
  /// "shard-<index>.<base>" (every shard has its own); after a resize, prefixed with
  /// "gen-<generation>." (result_format/process_name.hpp).
  std::string name(std::string_view base) const {
    return result_format::scoped_name(scope(), base);
  }
  /// The name of its server process `incarnation` (result_format::server_name, in its scope).
  std::string server_name(std::size_t incarnation) const {
    return name(result_format::server_name(incarnation));
  }
};

/// The parameters of `whole` in `range` as a snapshot of the same version and gradient count.
SnapshotPtr slice(const Snapshot& whole, const ShardRange& range);

}  // namespace failsim::sim
