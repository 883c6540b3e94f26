// Immutable parameter snapshots, shared by version: every worker that pulls version v holds the
// same object, so memory grows with the number of distinct versions in flight, not with
// workers x parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/scratch.hpp"

namespace failsim::sim {

struct Snapshot {
  std::int64_t version = 0;  ///< number of updates applied to produce these parameters
  /// Number of gradients those updates held (an update may combine several): what a rollback
  /// to these parameters undoes is the difference from the rolled-back server's count.
  std::int64_t gradients = 0;
  models::FloatBuffer params;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

/// Reuses the buffers of snapshots nobody holds any more: a server writes each new version into
/// warm memory instead of a fresh allocation (page faults included) of the whole parameter
/// vector.
class SnapshotPool {
 public:
  /// A snapshot of `size` parameters for the caller to fill before publishing it, in a recycled
  /// buffer when one is free (its old contents are left as they are).
  std::shared_ptr<Snapshot> take(std::size_t size) {
    std::shared_ptr<Snapshot>* slot = nullptr;
    for (auto& s : pool_) {
      if (s.use_count() == 1) {  // only the pool holds it: no reader left
        slot = &s;
        break;
      }
    }
    if (slot == nullptr) slot = &pool_.emplace_back(std::make_shared<Snapshot>());
    (*slot)->params.resize(size);
    return *slot;
  }

 private:
  std::vector<std::shared_ptr<Snapshot>> pool_;
};

}  // namespace failsim::sim
