// Strategy "checkpoint"'s settings (docs/strategies.md): periodic checkpoints to the storage
// host, or multi-level asynchronous ones (`levels`), and elastic resume; the functions of its
// row in the strategy table (strategies.cpp).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

/// Where a multi-level checkpoint keeps a copy (docs/strategies.md, "Multi-level checkpoints").
enum class CheckpointLevelKind {
  MEMORY,      ///< the snapshot in the server host's memory: lost when the host fails
  LOCAL_DISK,  ///< a disk of the server's host: lost only when the host is lost for good
  REMOTE,      ///< the storage host (cluster.storage), over the network
  PEER         ///< the memory of other hosts (peers), over the network: lost when the peer fails
};

/// Which hosts keep a PEER level's copies.
enum class PeerPlacement {
  WORKERS,  ///< the worker hosts, in order
  SERVERS   ///< the other server hosts, in order
};

/// One level of a multi-level checkpoint: how often it receives a copy.
struct CheckpointLevel {
  CheckpointLevelKind kind = CheckpointLevelKind::REMOTE;
  int every_updates = 0;     ///< 0 = off; at least one of the two intervals is set
  double every_seconds = 0;  ///< 0 = off
  double disk_read = 2e9;    ///< LOCAL_DISK only: bytes/s of the local disk's reads
  double disk_write = 1e9;   ///< LOCAL_DISK only: bytes/s of the local disk's writes
  int copies = 1;            ///< PEER only: peers that each get a copy, >= 1
  PeerPlacement placement = PeerPlacement::WORKERS;  ///< PEER only

  bool operator==(const CheckpointLevel&) const = default;
};

/// Periodic checkpoints of the server's parameters, version and optimiser state. Without
/// `levels` (the study's strategy): written to the storage host (cluster.storage), whose disk
/// write and read cost time. With `levels`: multi-level asynchronous checkpoints (the server
/// blocks only for a memory snapshot; the levels persist it in the background) and the three
/// single-level fields keep their defaults.
struct CheckpointConfig {
  int every_updates = 100;   ///< 0 = off; at least one of the two intervals is set
  double every_seconds = 0;  ///< 0 = off
  bool blocking = true;      ///< the server waits for the write (else it goes on training)
  /// Multi-level: at most one level of each kind; empty = the single-level strategy above.
  std::vector<CheckpointLevel> levels;
  /// Multi-level only: bytes/s of a memory copy (taking a snapshot, restoring from memory).
  double memory_bandwidth = 10e9;
  /// Single-level only, elastic resume (sim/ps/job.hpp): when a server host will not be back
  /// within this many seconds of the failure's detection, the job resizes to the server hosts
  /// that are up, re-sharding the checkpoints; unset: a failed server always waits for its host.
  std::optional<double> elastic_patience;

  bool operator==(const CheckpointConfig&) const = default;
};

/// The spelling of a level kind ("local-disk").
std::string to_string(CheckpointLevelKind kind);

namespace detail {
/// Reads recovery.checkpoint.
StrategySettings read_checkpoint(const input::ObjectReader& recovery);
/// A peer level's copies fit the hosts it may use; a local-disk level needs the built-in star.
void check_checkpoint_cluster(const StrategySettings& settings, const ClusterConfig& cluster,
                              const input::JsonLocation& recovery);
void write_checkpoint(const StrategySettings& settings, nlohmann::json& recovery);
/// Multi-level checkpoints keep the other server hosts as spares.
bool checkpoint_keeps_spares(const StrategySettings& settings);
std::optional<double> checkpoint_elastic_patience(const StrategySettings& settings);
}  // namespace detail

}  // namespace failsim::sim
