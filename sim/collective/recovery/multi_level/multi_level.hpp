// Lazy asynchronous multi-level checkpoints (docs/cluster.md, "Lazy multi-level checkpoints"; the
// seed: DataStates-LLM, "DataStates-LLM: Lazy Asynchronous Checkpointing for Large Language
// Models", Maurya et al., HPDC 2024): the copy to host memory runs during the next step's forward
// and backward and only its update waits for it; host memory is flushed to each node's local
// disk and to the file system in the background. The mechanism is the levelled checkpoints'
// (levelled_checkpoints.hpp); this room says which levels.
#pragma once

#include "sim/collective/recovery/levelled/levelled_checkpoints.hpp"

namespace failsim::sim {

class MultiLevelCheckpoints : public LevelledCheckpoints {
 protected:
  CheckpointLevels levels(const CollectiveJob& job) const override;
};

}  // namespace failsim::sim
