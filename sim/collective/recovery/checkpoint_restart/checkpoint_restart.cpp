#include "sim/collective/recovery/checkpoint_restart/checkpoint_restart.hpp"

#include <algorithm>
#include <limits>

#include "sim/collective/job/collective_job.hpp"

namespace failsim::sim {

void CheckpointRestart::start(CollectiveJob& job) {
  // Version 0: what a restart without any checkpoint starts from.
  durable_.replicas = job.assignment().active_replicas();
  if (job.math() != nullptr) durable_.state = job.math()->save();
}

void CheckpointRestart::make_durable(CollectiveJob& job, Checkpoint checkpoint) {
  job.ledger().commit_through(checkpoint.version);
  ++job.counts().checkpoints;
  job.recorder().event(job.now(), EventType::CHECKPOINT_WRITTEN, "file-system",
                       {{"version", checkpoint.version}});
  durable_ = std::move(checkpoint);
}

void CheckpointRestart::poll(CollectiveJob& job) {
  if (persisting_ && persisting_->writes.done()) {
    Checkpoint c = std::move(persisting_->checkpoint);
    persisting_.reset();
    make_durable(job, std::move(c));
  }
}

bool CheckpointRestart::due(const CollectiveJob& job) {
  const std::int64_t every = job.scenario().collective.recovery.checkpoint.every_steps;
  return every > 0 && job.version() % every == 0;
}

Interrupt CheckpointRestart::after_step(CollectiveJob& job) {
  return due(job) ? checkpoint(job) : Interrupt::NONE;
}

Interrupt CheckpointRestart::flush(CollectiveJob& job) {
  if (!persisting_) return Interrupt::NONE;
  if (const Interrupt i = job.wait(persisting_->writes, TimeCause::CHECKPOINT_STALL);
      i != Interrupt::NONE) {
    return i;
  }
  poll(job);
  return Interrupt::NONE;
}

std::int64_t CheckpointRestart::next_action_version(const CollectiveJob& job) const {
  // A write in the background ends at a time only the network knows: every step then.
  if (persisting_) return job.version() + 1;
  const std::int64_t every = job.scenario().collective.recovery.checkpoint.every_steps;
  if (every <= 0) return std::numeric_limits<std::int64_t>::max();
  return (job.version() / every + 1) * every;
}

Interrupt CheckpointRestart::checkpoint(CollectiveJob& job) {
  const CollectiveCheckpointConfig& config = job.scenario().collective.recovery.checkpoint;
  Checkpoint c;
  c.version = job.version();
  c.replicas = job.assignment().active_replicas();
  if (job.math() != nullptr) c.state = job.math()->save();
  // The previous write is still going on: training waits for it (one write at a time).
  if (const Interrupt i = flush(job); i != Interrupt::NONE) return i;
  if (config.mode == CheckpointMode::BLOCKING) {
    const Interrupt i = job.transfer(job.network().checkpoint_writes(), TimeCause::CHECKPOINT_STALL,
                                     "checkpoint write");
    if (i == Interrupt::NONE) make_durable(job, std::move(c));
    return i;
  }
  // SNAPSHOT: training waits for the copy of the largest share to host memory, then the write
  // to the file system goes on in the background.
  std::vector<Flow> writes = job.network().checkpoint_writes().flows();
  double largest = 0.0;
  for (const Flow& f : writes) largest = std::max(largest, f.bytes);
  const Interrupt i = job.sleep_until(job.now() + largest / config.host_copy_bandwidth,
                                      TimeCause::CHECKPOINT_STALL);
  if (i != Interrupt::NONE) return i;
  job.recorder().event(job.now(), EventType::CHECKPOINT_SNAPSHOT, "job", {{"version", c.version}});
  // Replayed when a write went the same way before (CollectiveJob::start_background).
  persisting_.emplace(
      Persisting{std::move(c), std::move(job.start_background({{"checkpoint write", writes}})[0])});
  return Interrupt::NONE;
}

void CheckpointRestart::drop_write() {
  if (persisting_) {
    persisting_->writes.cancel();
    persisting_.reset();
  }
}

void CheckpointRestart::roll_back(CollectiveJob& job) {
  // Every rank stopped: a write under way is lost; what the file system holds is what the
  // restart loads.
  drop_write();
  job.roll_back_to(durable_.version, durable_.state);
}

Interrupt CheckpointRestart::load(CollectiveJob& job, const TrackedFlows& reads) {
  if (durable_.version == 0) return Interrupt::NONE;  // nothing to load: from scratch
  const Interrupt i = job.transfer(reads, TimeCause::CHECKPOINT_LOAD, "checkpoint load");
  if (i != Interrupt::NONE) return i;
  job.recorder().event(job.now(), EventType::CHECKPOINT_LOADED, "job",
                       {{"version", durable_.version}});
  return Interrupt::NONE;
}

bool CheckpointRestart::recover(CollectiveJob& job) {
  roll_back(job);
  // Wait for the failed nodes, restart, load; a failure meanwhile starts the wait again.
  return restart_and_load(job, [&] { return load(job, job.network().checkpoint_reads()); });
}

void CheckpointRestart::finish(CollectiveJob& /*job*/) {
  if (persisting_) persisting_->writes.cancel();
}

// Its line of designs.def.
std::unique_ptr<CollectiveRecovery> checkpoint_restart::make() {
  return std::make_unique<CheckpointRestart>();
}

}  // namespace failsim::sim
