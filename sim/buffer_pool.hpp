// Recycled gradient buffers: a worker takes one, the server gives it back after applying it,
// so the steady state of a run allocates nothing however many gradients flow.
#pragma once

#include <memory>
#include <vector>

#include "models/scratch.hpp"

namespace failsim::sim {

class BufferPool {
 public:
  explicit BufferPool(std::size_t floats) : floats_(floats) {}

  std::unique_ptr<models::FloatBuffer> take() {
    if (free_.empty()) return std::make_unique<models::FloatBuffer>(floats_);
    auto buffer = std::move(free_.back());
    free_.pop_back();
    return buffer;
  }

  void give_back(std::unique_ptr<models::FloatBuffer> buffer) {
    if (buffer) free_.push_back(std::move(buffer));
  }

 private:
  std::size_t floats_;
  std::vector<std::unique_ptr<models::FloatBuffer>> free_;
};

}  // namespace failsim::sim
