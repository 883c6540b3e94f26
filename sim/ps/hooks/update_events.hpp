// What a parameter server reports after each update it applies: the failure injector fires the
// failures scheduled "after update n" of that shard (docs/failures.md). A hook of its own so that
// the server does not depend on the injector, which kills servers.
#pragma once

#include <cstdint>

namespace failsim::sim {

class UpdateEvents {
 public:
  virtual ~UpdateEvents() = default;
  /// Shard `shard`'s server applied its update `n` (counted over the run, all incarnations).
  virtual void after_update(int shard, std::int64_t n) = 0;
};

}  // namespace failsim::sim
