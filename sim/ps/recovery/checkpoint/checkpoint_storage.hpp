// The checkpoint storage process on the storage host: writes checkpoints to its disk (costing
// disk write time) and serves the latest complete one to a restarting server (disk read time,
// then the transfer). A checkpoint counts only once its write completed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

#include "sim/ps/actors/messages.hpp"
#include "sim/ps/run_context.hpp"

namespace failsim::sim {

struct ServerState;

/// A restarting server asks for the latest checkpoint.
struct LoadCheckpoint {
  simgrid::s4u::Mailbox* reply_to = nullptr;
};
using StorageMessage = std::variant<StateCopy, LoadCheckpoint>;

/// The storage's answer: the latest complete checkpoint, or none yet.
struct CheckpointReply {
  std::optional<StateCopy> checkpoint;
};

class CheckpointStorage {
 public:
  /// The storage of `shard`'s checkpoints (each shard has its own process on the storage host,
  /// sharing its disk). After an elastic resize (job.hpp) it starts with the shard's version 0 as
  /// its latest checkpoint: the old shards' checkpoints, whose files hold the shard's range.
  CheckpointStorage(RunContext& context, const Shard& shard);
  void launch();
  simgrid::s4u::Mailbox* mailbox() const { return mailbox_; }
  /// Bytes of a checkpoint: parameters, plus the optimiser state when there is one.
  double bytes(const StateCopy& copy) const;
  /// The version of the latest complete checkpoint on the storage's disk, if any: the catalogue
  /// a restarting server consults (multi-level checkpoints) before choosing where to load from.
  std::optional<std::int64_t> latest_version() const {
    if (!latest_) return std::nullopt;
    return latest_->snapshot->version;
  }
  /// The latest complete checkpoint, if any.
  const std::optional<StateCopy>& latest() const { return latest_; }

 private:
  void serve();

  RunContext& context_;
  const Shard& shard_;
  simgrid::s4u::Mailbox* mailbox_;
  std::optional<StateCopy> latest_;
};

}  // namespace failsim::sim
