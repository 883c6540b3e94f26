// A server's inbox: many senders, one receiver, sends eager once the receiver is set, messages
// taken in the order they were sent. It does what one SimGrid mailbox with a permanent receiver
// does, at a cost that does not grow with the senders.
//
// Why not one mailbox: SimGrid 3.32 keeps a mailbox's eager messages in a circular buffer and
// takes the oldest one out with erase(), which shifts every message behind it. With 1,000 workers
// most of them have a push or a pull on its way to the server at any time, so every receive
// shifted about a thousand messages (perf: a fifth of a 1,000-worker run; docs/performance.md).
//
// So each sender has a mailbox of its own (a lane), all with the same receiver, and the inbox
// remembers which lane each message was sent to, in order. A receive takes the lane of the
// oldest message and receives from it, where that message is the lane's only one or its oldest.
// The order of receives, the simulated transfers and the calls into SimGrid (one per send and
// receive, as before) are those of the single mailbox, so results do not change:
//   - a message sent while the receiver was set is taken before any sent while it was not, as
//     SimGrid takes a permanent mailbox's eager messages before its waiting ones;
//   - a receiver with nothing to take waits on one shared lane (the mailbox of the old name), and
//     the next message goes there: the receive it posted takes it, as in one mailbox;
//   - the bookkeeping is done in the sender's or receiver's code just before its call into
//     SimGrid, and SimGrid handles the calls of one scheduling round in the order the actors
//     ran, so the inbox's order is the order in which SimGrid sees the sends.
// Lanes are created and their receivers set in one call into SimGrid each, not one per lane, so
// the actors interleave as they did with one mailbox.
#pragma once

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace failsim::sim {

class Inbox {
 public:
  /// A sender without a lane of its own (not a worker): it sends on the shared lane.
  static constexpr int OTHER = -1;

  /// The shared lane is the mailbox `name`; senders 0..senders-1 get one lane each.
  Inbox(const std::string& name, int senders);

  /// The receiver (nullptr: none) of every lane: sends are eager while there is one.
  void set_receiver(simgrid::s4u::ActorPtr receiver);

  /// Sender `sender`'s blocking put, as Mailbox::put(payload, bytes, timeout).
  void put(int sender, void* payload, std::uint64_t bytes, double timeout);
  /// Sender `sender`'s detached put; `clean_up` frees the payload if it is never received.
  void put_detached(int sender, void* payload, std::uint64_t bytes, void (*clean_up)(void*));

  /// The receiver takes the oldest message, waiting for one if there is none, as
  /// Mailbox::get_unique. Throws as it does (a sender that failed mid-transfer).
  template <class T>
  std::unique_ptr<T> get_unique() {
    return next_lane()->get_unique<T>();
  }

  /// The shared lane: also a plain mailbox for replies the receiver waits for by itself.
  simgrid::s4u::Mailbox* shared() const { return shared_; }

 private:
  /// Records a send by `sender` and returns the lane it goes to.
  simgrid::s4u::Mailbox* lane_for(int sender);
  /// Removes the oldest message's lane from the order, or prepares to wait on the shared lane.
  simgrid::s4u::Mailbox* next_lane();

  simgrid::s4u::Mailbox* shared_ = nullptr;
  std::vector<simgrid::s4u::Mailbox*> lanes_;
  bool eager_ = false;                             // the lanes have a receiver
  bool waiting_ = false;                           // the receiver waits on the shared lane
  std::deque<simgrid::s4u::Mailbox*> sent_eager_;  // lanes of messages sent with a receiver set
  std::deque<simgrid::s4u::Mailbox*> sent_early_;  // ...and without one, to be taken after those
};

}  // namespace failsim::sim
