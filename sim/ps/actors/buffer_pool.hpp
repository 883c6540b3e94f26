// Recycled gradient buffers: a worker takes one, the server gives it back after applying it,
// so the steady state of a run allocates nothing however many gradients flow. With sharded
// servers one gradient's buffer is shared by the pushes of its slices to every shard (each
// server reads only its slice): it returns to the pool when the last of them gives it back, and
// one that is dropped instead (a lost push) just frees it. The simulation runs on one thread,
// so the count of holders is exact.
#pragma once

#include <memory>
#include <vector>

#include "models/scratch.hpp"

namespace failsim::sim {

class BufferPool {
 public:
  explicit BufferPool(std::size_t floats) : floats_(floats) {}

  std::shared_ptr<models::FloatBuffer> take() {
    if (free_.empty()) return std::make_shared<models::FloatBuffer>(floats_);
    auto buffer = std::move(free_.back());
    free_.pop_back();
    return buffer;
  }

  /// Drops this holder's share; the buffer is recycled if it was the last.
  void give_back(std::shared_ptr<models::FloatBuffer> buffer) {
    if (buffer && buffer.use_count() == 1) free_.push_back(std::move(buffer));
  }

 private:
  std::size_t floats_;
  std::vector<std::shared_ptr<models::FloatBuffer>> free_;
};

}  // namespace failsim::sim
