// In-memory checkpoints for hybrid-parallel training (docs/cluster.md, "In-memory checkpoints";
// the seed: "Towards Fault-Tolerant Hybrid-Parallel Training at Scale with Reliable and
// Efficient In-memory Checkpointing", with Gemini's copies in a peer's CPU memory as the
// `partner-node` placement): each rank's state in its node's host memory, a copy in its partner
// node's, every few checkpoints one on the file system as the fall-back. The mechanism is the
// levelled checkpoints' (levelled_checkpoints.hpp); this room says which levels.
#pragma once

#include "sim/collective/recovery/levelled/levelled_checkpoints.hpp"

namespace failsim::sim {

class InMemoryCheckpoints : public LevelledCheckpoints {
 protected:
  CheckpointLevels levels(const CollectiveJob& job) const override;
};

}  // namespace failsim::sim
