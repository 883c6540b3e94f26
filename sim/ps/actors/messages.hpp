// What crosses the simulated network between workers, servers and the store. Payloads are heap
// objects owned by the receiver (SimGrid passes pointers; the simulated size is separate).
#pragma once

#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "models/optimizer.hpp"
#include "models/scratch.hpp"
#include "sim/engine/snapshot.hpp"

namespace simgrid::s4u {
class Mailbox;
}

namespace failsim::sim {

/// Simulated size of a control message (a pull request, an acknowledgement): headers and ids.
inline constexpr double CONTROL_BYTES = 64;

/// A worker asks for parameters. The server answers once its version is at least min_version
/// (sync: the round the worker is about to compute) and, under SSP, once the worker's clock
/// (gradients the server received from it) is within the bound of the slowest live worker's.
/// `request` numbers a worker's pulls, so a late answer to an abandoned pull is recognised.
struct PullRequest {
  int worker = 0;
  std::int64_t min_version = 0;
  std::int64_t request = 0;
  simgrid::s4u::Mailbox* reply_to = nullptr;
};

/// A gradient computed at parameters `base_version` (of the shard it is pushed to) on a batch of
/// worker `worker`. `grad` is the whole gradient; a shard's server applies only its slice, and
/// with sharded servers the pushes to every shard share the one buffer (buffer_pool.hpp).
struct GradientPush {
  int worker = 0;
  std::int64_t base_version = 0;
  float loss = 0.0f;  ///< the batch's training loss at base_version
  std::shared_ptr<models::FloatBuffer> grad;
};

/// Gradients the stateless store holds, summed as they arrive (the shard's slice of each). Under
/// a rule that weighs by staleness every member was computed from the same version; under the
/// others one group takes everything.
struct PendingGroup {
  struct Member {
    std::int64_t base_version = 0;
    float loss = 0.0f;
  };
  std::shared_ptr<models::FloatBuffer> sum;
  std::vector<Member> members;  ///< in arrival order
};

/// The store's answer to a server's TakePending: everything pending, `count` gradients.
struct PendingBatch {
  std::vector<PendingGroup> groups;
  std::int64_t count = 0;
};

/// The coordination service tells the server that the set of live workers changed (sync rounds
/// then wait for the new set).
struct MembershipChanged {};

/// Parameters sent somewhere to be kept: a checkpoint to storage, a replica's copy, the stateless
/// store's latest weights. `optimizer` is the optimiser state (null for SGD without momentum).
/// Bytes of a copy of a shard's state: its parameters' `parameter_bytes`, and as many again per
/// vector of the optimiser state (SGD's velocity: 2x; AdamW's two moments: 3x).
inline double state_bytes(double parameter_bytes,
                          const std::shared_ptr<const models::OptimizerState>& optimizer) {
  return parameter_bytes *
         (1.0 + (optimizer ? static_cast<double>(optimizer->moments.size()) : 0.0));
}

struct StateCopy {
  SnapshotPtr snapshot;
  std::shared_ptr<const models::OptimizerState> optimizer;
  simgrid::s4u::Mailbox* ack_to = nullptr;  ///< nullptr: no acknowledgement wanted
};

using ServerMessage = std::variant<PullRequest, GradientPush, MembershipChanged>;

/// The answer to a pull: a shared immutable snapshot of the shard's parameters (sent as the
/// shard's bytes: param_bytes without sharding).
struct ParamsReply {
  SnapshotPtr snapshot;
  std::int64_t request = 0;
};

}  // namespace failsim::sim
