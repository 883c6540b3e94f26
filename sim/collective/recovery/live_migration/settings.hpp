// Design "live-migration"'s settings (recovery.live_migration, docs/cluster.md "Live migration
// to a warm standby"): its struct; settings.cpp reads, writes and checks them (engine-free, in
// failsim_scenario).
#pragma once

#include <optional>

namespace failsim::sim {

/// Live migration to a warm standby (TrainMover; docs/cluster.md, "Live migration to a warm
/// standby"): a failed node's ranks move onto a spare of platform.spares, each moved rank's state
/// comes from a data-parallel peer over the network, and only the communicators of the groups
/// with a moved rank are initialised again; without a standby or a peer, checkpoint-restart with
/// recovery.checkpoint and recovery.restart.
struct LiveMigrationConfig {
  /// Seconds of the rebuilt communicators' initialisation; nullopt: the restart's formula over the
  /// ranks of the rebuilt groups (restart.init_base + init_per_rank x those ranks).
  std::optional<double> communicator_init;

  bool operator==(const LiveMigrationConfig&) const = default;
};

}  // namespace failsim::sim
