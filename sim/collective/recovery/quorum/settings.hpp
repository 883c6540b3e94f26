// Design "quorum"'s settings (recovery.quorum, docs/cluster.md "Per-step quorum"): its struct;
// settings.cpp reads and writes them (engine-free, in failsim_scenario).
#pragma once

#include <optional>

namespace failsim::sim {

/// How a per-step quorum learns that a group failed (TorchFT issue #164).
enum class QuorumDetection {
  /// The failed collective errors out at once; the lighthouse drops the group once its
  /// heartbeats have been missing for `heartbeat_timeout`.
  FAIL_FAST,
  /// The survivors block in the collective until failures.detection notices (the watchdog's
  /// timeout, or missed heartbeats).
  COLLECTIVE_TIMEOUT
};

/// Per-step quorum (TorchFT; docs/cluster.md, "Per-step quorum"): the data-parallel replicas
/// form replica groups; every step starts with a quorum of the live groups; a failed group is
/// dropped and the others go on with a smaller global batch; a repaired group copies a live
/// peer's state and joins a later quorum.
struct QuorumConfig {
  int group_replicas = 1;  ///< data-parallel replicas per replica group; divides dp
  int min_replicas = 1;    ///< groups a quorum needs (TorchFT's min_replicas); fewer: it waits
  double latency = 0.1;    ///< seconds of each step's quorum (one lighthouse tick, 100 ms)
  QuorumDetection detection = QuorumDetection::FAIL_FAST;
  double heartbeat_timeout = 5.0;  ///< FAIL_FAST: seconds (TorchFT's lighthouse default)
  /// Seconds of the process groups' reconfiguration after the quorum changed; nullopt: the
  /// communicators' initialisation of a restart (restart.init_base + init_per_rank x ranks).
  std::optional<double> reconfigure;

  bool operator==(const QuorumConfig&) const = default;
};

}  // namespace failsim::sim
