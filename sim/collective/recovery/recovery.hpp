// The collective protocol's recovery designs, made by name: the engine's factory of the one list
// (designs.def). Each design is a class of its own in its room (sim/collective/recovery/<room>/)
// behind the interface the job drives (sim/collective/job/collective_recovery.hpp):
// checkpoint-restart is the baseline; the recovery designs of large jobs (in-memory checkpoints,
// lazy multi-level checkpoints, resume on another layout, per-step quorum, DiLoCo) come beside
// it. The runner (run_collective.cpp) makes the scenario's design and hands it to the job.
#pragma once

#include <memory>
#include <string>

#include "sim/collective/job/collective_recovery.hpp"

namespace failsim::sim {

/// The design named `strategy` (recovery.strategy, a name of designs.def); std::logic_error for
/// another name (the scenario reader refuses it first).
std::unique_ptr<CollectiveRecovery> make_collective_recovery(const std::string& strategy);

// Each room's part of the factory: failsim::sim::<room>::make(), beside its class.
#define FAILSIM_COLLECTIVE_DESIGN(room, name) \
  namespace room {                            \
  std::unique_ptr<CollectiveRecovery> make(); \
  }
#include "sim/collective/recovery/designs.def"
#undef FAILSIM_COLLECTIVE_DESIGN

}  // namespace failsim::sim
