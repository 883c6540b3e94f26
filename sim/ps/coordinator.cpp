#include "sim/ps/coordinator.hpp"

#include <algorithm>
#include <mutex>

namespace failsim::sim {

Coordinator::Coordinator(int num_workers, int num_shards)
    : primaries_(static_cast<std::size_t>(num_shards), nullptr),
      epochs_(static_cast<std::size_t>(num_shards), 0),
      live_(static_cast<std::size_t>(num_workers), true),
      live_count_(num_workers),
      mutex_(simgrid::s4u::Mutex::create()),
      changed_(simgrid::s4u::ConditionVariable::create()) {}

void Coordinator::set_primary(int shard, Endpoint* server) {
  const std::unique_lock lock(*mutex_);
  primaries_[static_cast<std::size_t>(shard)] = server;
  ++epochs_[static_cast<std::size_t>(shard)];
  changed_->notify_all();
}

void Coordinator::clear_primary(int shard) {
  const std::unique_lock lock(*mutex_);
  primaries_[static_cast<std::size_t>(shard)] = nullptr;
  ++epochs_[static_cast<std::size_t>(shard)];
}

void Coordinator::reshape(int num_shards) {
  const std::unique_lock lock(*mutex_);
  const std::int64_t next = *std::max_element(epochs_.begin(), epochs_.end()) + 1;
  primaries_.assign(static_cast<std::size_t>(num_shards), nullptr);
  epochs_.assign(static_cast<std::size_t>(num_shards), next);
}

Endpoint* Coordinator::wait_for_primary(int shard, std::int64_t seen) {
  const std::unique_lock lock(*mutex_);
  changed_->wait(lock, [&] { return primary(shard) != nullptr && epoch(shard) > seen; });
  return primary(shard);
}

void Coordinator::set_worker_live(int w, bool live) {
  const auto i = static_cast<std::size_t>(w);
  if (live_[i] != live) live_count_ += live ? 1 : -1;
  live_[i] = live;
}

}  // namespace failsim::sim
