// Names of a run's processes and links as result files write them (events' subjects, a
// failure's details.process): made here by the simulation and parsed here by the analysis, so
// the tables' "did this failure kill a server?" reads the same grammar the simulation writes.
//
//   name  = [ "gen-" G "." ] [ "shard-" K "." ] base
//   base  = "server-" N | "replica-" N | "worker-" N | "storage" | ...
//
// G: the generation of an elastic job's shards (only after a resize, G >= 1); K: the shard
// (only with sharded servers); N: a server's incarnation, a replica's id, a worker's index.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace failsim::result_format {

/// Where a process belongs: its shard of its generation.
struct ProcessScope {
  int generation = 0;        ///< 0 before any resize (no "gen-" prefix)
  std::optional<int> shard;  ///< none without sharded servers (no "shard-" prefix)
  bool operator==(const ProcessScope&) const = default;

  /// "gen-<G>.shard-<K>.", either part left out as above; "" for the one shard of generation 0.
  std::string prefix() const;
};

/// `base` in `scope`, e.g. "gen-1.shard-0.storage".
std::string scoped_name(const ProcessScope& scope, std::string_view base);

/// "server-<incarnation>": a parameter server process, numbered in the order they start.
std::string server_name(std::size_t incarnation);
/// "replica-<id>": a chain replica, numbered in the order they are created.
std::string replica_name(std::size_t id);
/// "worker-<index>".
std::string worker_name(std::size_t index);

/// "<host>-link": the network link of a host of the star (sim/ps/platform.hpp).
std::string link_name(std::string_view host);
/// The host of a link named by link_name(); any other name as it is.
std::string_view link_host(std::string_view link);

/// The scope of a parameter server's process name (a scoped "server-<N>"); none for any other
/// name ("worker-1", "replica", "shard-1-server-0").
std::optional<ProcessScope> server_scope(std::string_view name);

}  // namespace failsim::result_format
