// Design "universal"'s settings (recovery.universal, docs/cluster.md "Resume on another
// layout"): its struct; settings.cpp reads and writes them (engine-free, in failsim_scenario).
#pragma once

namespace failsim::sim {

/// What a job resumed on fewer data-parallel replicas does with the global batch.
enum class UniversalBatch {
  KEEP,   ///< the survivors accumulate every replica's batch (Assignment::streams keeps all)
  REDUCE  ///< the survivors take their own batches only
};
/// When a shrunk job grows back onto repaired nodes.
enum class UniversalGrow {
  NEVER,         ///< it stays on the survivors to the end (or until a restart finds them up)
  AT_CHECKPOINT  ///< after the next checkpoint that finds them up, by a planned restart
};

/// Resume on another layout (docs/cluster.md, "Resume on another layout"; Universal
/// Checkpointing): after a failure, wait at most `wait_limit` for the failed nodes, else restart
/// on the replicas whose nodes are up, loading the checkpoint re-sharded for them.
struct UniversalConfig {
  double wait_limit = 0.0;  ///< seconds waited for repair before shrinking
  int min_replicas = 1;     ///< the fewest data-parallel replicas the job goes on with
  UniversalBatch batch = UniversalBatch::KEEP;
  UniversalGrow grow = UniversalGrow::AT_CHECKPOINT;

  bool operator==(const UniversalConfig&) const = default;
};

}  // namespace failsim::sim
