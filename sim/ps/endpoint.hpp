// What workers send their requests to: the primary parameter server, or the stateless store.
#pragma once

namespace simgrid::s4u {
class Mailbox;
}

namespace failsim::sim {

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual simgrid::s4u::Mailbox* mailbox() const = 0;
  /// A worker's gradient reached the mailbox: from now on it is the endpoint's to apply or lose.
  virtual void delivered() = 0;
};

}  // namespace failsim::sim
