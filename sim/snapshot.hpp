// Immutable parameter snapshots, shared by version: every worker that pulls version v holds the
// same object, so memory grows with the number of distinct versions in flight, not with
// workers x parameters.
#pragma once

#include <cstdint>
#include <memory>

#include "models/scratch.hpp"

namespace failsim::sim {

struct Snapshot {
  std::int64_t version = 0;  ///< number of updates applied to produce these parameters
  models::FloatBuffer params;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace failsim::sim
