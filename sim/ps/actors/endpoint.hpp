// What workers send their requests to: the primary parameter server, or the stateless store.
#pragma once

#include <cstdint>

namespace failsim::sim {

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  /// Worker `worker`'s blocking send of `payload` (a ServerMessage, `bytes` simulated), as
  /// Mailbox::put with `timeout`: throws TimeoutException or NetworkFailureException, and on
  /// success the payload is the endpoint's.
  virtual void put(int worker, void* payload, std::uint64_t bytes, double timeout) = 0;
  /// A worker's gradient reached the mailbox: from now on it is the endpoint's to apply or lose.
  virtual void delivered() = 0;
};

}  // namespace failsim::sim
