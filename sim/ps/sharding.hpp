// The parameter server shards of a run (docs/strategies.md, "Sharded servers"): each one's slice
// of the parameters (models/partition.hpp), its cost and its hosts.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"
#include "models/optimizer.hpp"
#include "models/partition.hpp"
#include "result_format/process_name.hpp"
#include "sim/engine/snapshot.hpp"

namespace simgrid::s4u {
class Host;
}

namespace failsim::sim {

// The partition itself is the model library's (models/partition.hpp): the scenario's resolve
// step splits the parameters the same way, without the engine.
using models::partition;
using models::ShardRange;
using models::SNAP_TOLERANCE;

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
  /// Optimiser state of version 0: null at generation 0 (and for SGD without momentum).
  std::shared_ptr<const models::OptimizerState> initial_optimizer;

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
