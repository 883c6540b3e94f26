#include "sim/ps/actors/inbox.hpp"

#include <fmt/core.h>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/simix.hpp>

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Inbox::Inbox(const std::string& name, int senders) : lanes_(static_cast<std::size_t>(senders)) {
  // One call into SimGrid, as the one Mailbox::by_name of a single mailbox (inside it, by_name
  // runs directly).
  simgrid::kernel::actor::simcall_answered([&] {
    shared_ = sg4::Mailbox::by_name(name);
    for (std::size_t s = 0; s < lanes_.size(); ++s) {
      lanes_[s] = sg4::Mailbox::by_name(fmt::format("{}/{}", name, s));
    }
  });
}

void Inbox::set_receiver(sg4::ActorPtr receiver) {
  eager_ = receiver != nullptr;
  simgrid::kernel::actor::simcall_answered([&] {
    shared_->set_receiver(receiver);
    for (sg4::Mailbox* lane : lanes_) lane->set_receiver(receiver);
  });
}

sg4::Mailbox* Inbox::lane_for(int sender) {
  if (waiting_) {
    waiting_ = false;
    return shared_;
  }
  sg4::Mailbox* lane = sender == OTHER ? shared_ : lanes_[static_cast<std::size_t>(sender)];
  (eager_ ? sent_eager_ : sent_early_).push_back(lane);
  return lane;
}

sg4::Mailbox* Inbox::next_lane() {
  for (auto* sent : {&sent_eager_, &sent_early_}) {
    if (!sent->empty()) {
      sg4::Mailbox* lane = sent->front();
      sent->pop_front();
      return lane;
    }
  }
  waiting_ = true;
  return shared_;
}

void Inbox::put(int sender, void* payload, std::uint64_t bytes, double timeout) {
  lane_for(sender)->put(payload, bytes, timeout);
}

void Inbox::put_detached(int sender, void* payload, std::uint64_t bytes, void (*clean_up)(void*)) {
  lane_for(sender)->put_init(payload, bytes)->detach(clean_up);
}

}  // namespace failsim::sim
