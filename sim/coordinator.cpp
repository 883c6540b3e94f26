#include "sim/coordinator.hpp"

#include <algorithm>
#include <mutex>

namespace failsim::sim {

Coordinator::Coordinator(int num_workers)
    : live_(static_cast<std::size_t>(num_workers), true),
      mutex_(simgrid::s4u::Mutex::create()),
      changed_(simgrid::s4u::ConditionVariable::create()) {}

void Coordinator::set_primary(Endpoint* server) {
  const std::unique_lock lock(*mutex_);
  primary_ = server;
  ++epoch_;
  changed_->notify_all();
}

void Coordinator::clear_primary() {
  const std::unique_lock lock(*mutex_);
  primary_ = nullptr;
  ++epoch_;
}

Endpoint* Coordinator::wait_for_primary(std::int64_t seen) {
  const std::unique_lock lock(*mutex_);
  changed_->wait(lock, [&] { return primary_ != nullptr && epoch_ > seen; });
  return primary_;
}

int Coordinator::live_workers() const {
  return static_cast<int>(std::count(live_.begin(), live_.end(), true));
}

}  // namespace failsim::sim
