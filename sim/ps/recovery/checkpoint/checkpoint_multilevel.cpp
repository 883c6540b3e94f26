// Strategy "checkpoint" with `levels` (docs/strategies.md, "Multi-level checkpoints"), as in
// CheckFreq and DataStates-LLM: when a level is due, the server copies its state into its host's
// memory (it blocks only for that copy, bytes / memory_bandwidth), then a persister process per
// persistent level on the same host writes the snapshot in the background, to the host's own
// disk (local-disk), over the network to the storage host (remote) or into the memory of other
// hosts (peer, as in Gemini), while training goes on. Recovery restores the newest complete copy
// that survived the failure:
//   process crash (host up):      memory, local disk, peers and remote survive;
//   host down for a while:        memory is lost (the host's RAM), the others survive;
//   host lost for good:           the replacement runs on a spare server host, whose own levels
//                                 are empty: it loads from a surviving peer, else from remote.
// The memory level and the persisters belong to the host, not to the server process: they
// outlive a crash of the server (a persister finishes its write) and die with the host. A peer's
// copy lives in a keeper process on the peer host and dies with that host.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sim/engine/log.hpp"
#include "sim/ps/observer.hpp"
#include "sim/ps/recovery/checkpoint/checkpoint_storage.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(checkpoint_multilevel, failsim, "multi-level checkpointing");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

/// The background writer of one persistent level on one host: it holds at most one snapshot
/// waiting to be written; a newer snapshot replaces a waiting one (which is then never
/// written) but never interrupts the write in progress.
struct Persister {
  CheckpointLevelKind kind = CheckpointLevelKind::REMOTE;
  sg4::Host* host = nullptr;
  bool alive = false;  // its actor runs (it dies with its host)
  std::optional<StateCopy> waiting;
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr wake = sg4::ConditionVariable::create();
};

/// What one host holds.
struct HostCopies {
  std::optional<StateCopy> memory;  // the memory level's latest snapshot; lost with the host
  std::optional<StateCopy> local;   // the latest snapshot completely written to its local disk
  std::map<CheckpointLevelKind, Persister> persisters;
  std::optional<StateCopy> peer;   // the latest copy kept here for a server on another host
  sg4::Mailbox* keeper = nullptr;  // the mailbox of this host's keeper, while it runs
  int keepers_started = 0;
};

/// Where a replacement can load a state from, in the order preferred among equal versions.
struct Candidate {
  std::int64_t version = 0;
  CheckpointLevelKind kind = CheckpointLevelKind::REMOTE;
  sg4::Host* peer = nullptr;  // PEER: the host keeping it
};

class MultilevelCheckpointing final : public Strategy {
 public:
  MultilevelCheckpointing(RunContext& context, const Shard& shard)
      : Strategy(context, shard),
        config_(context.scenario.recovery.get<CheckpointConfig>()),
        storage_(context, shard),
        last_due_(config_.levels.size(), 0.0) {}
  ~MultilevelCheckpointing() override {
    if (on_host_change_) sg4::Host::on_state_change.disconnect(*on_host_change_);
  }
  MultilevelCheckpointing(const MultilevelCheckpointing&) = delete;
  MultilevelCheckpointing& operator=(const MultilevelCheckpointing&) = delete;

  void start() override {
    // A host that turns off loses its memory and its persisters' actors (and what they held).
    on_host_change_ = sg4::Host::on_state_change.connect([this](const sg4::Host& host) {
      if (host.is_on()) return;
      auto it = hosts_.find(&host);
      if (it == hosts_.end()) return;
      it->second.memory.reset();
      it->second.peer.reset();
      it->second.keeper = nullptr;
      for (auto& [kind, p] : it->second.persisters) {
        p.alive = false;
        p.waiting.reset();
      }
    });
    storage_.launch();
    current_ = start_server(shard_.hosts.front(), initial_state());
    context_.coordinator.set_initial_primary(shard_.index, current_);
    holder_ = current_;
  }

  void run_server(ParameterServer& server) override {
    if (&server != servers_.front().get()) load_checkpoint(server);  // the first starts afresh
    server.serve_workers();
  }

  void after_update(ParameterServer& server) override {
    const double now = sg4::Engine::get_clock();
    std::vector<CheckpointLevelKind> due;
    for (std::size_t i = 0; i < config_.levels.size(); ++i) {
      const CheckpointLevel& level = config_.levels[i];
      const bool by_updates =
          level.every_updates > 0 && server.version() % level.every_updates == 0;
      const bool by_time = level.every_seconds > 0 && now - last_due_[i] >= level.every_seconds;
      if (!by_updates && !by_time) continue;
      last_due_[i] = now;
      due.push_back(level.kind);
    }
    if (due.empty()) return;
    // The snapshot: a copy of the state into host memory; the server waits only for this.
    const ServerState state = server.state();
    const StateCopy copy{state.snapshot, state.optimizer, nullptr};
    const double seconds = storage_.bytes(copy) / config_.memory_bandwidth;
    sg4::this_actor::sleep_for(seconds);
    nlohmann::json levels = nlohmann::json::array();
    for (const CheckpointLevelKind kind : due) levels.push_back(to_string(kind));
    context_.recorder.event(
        sg4::Engine::get_clock(), EventType::CHECKPOINT_SNAPSHOT, server.name(),
        {{"version", state.snapshot->version}, {"seconds", seconds}, {"levels", levels}});
    HostCopies& host = hosts_[server.host()];
    for (const CheckpointLevelKind kind : due) {
      if (kind == CheckpointLevelKind::MEMORY) {
        host.memory = copy;
      } else {
        submit(host, server.host(), kind, copy);
      }
    }
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    // A replacement killed while still loading held nothing yet: the next load's loss still
    // counts from the server that died holding the training state.
    if (&dead == holder_) remember_lost(dead);
    sg4::Host* spare = nullptr;
    if (std::isinf(host_back)) {
      // The host is lost for good: the replacement runs on the first other server host up.
      for (sg4::Host* h : shard_.hosts) {
        if (h != dead.host() && h->is_on() && server_on(h) == nullptr) {
          spare = h;
          break;
        }
      }
    }
    restart_later(
        dead, spare != nullptr ? sg4::Engine::get_clock() : host_back,
        [] { return nlohmann::json::object(); },
        [this](sg4::Host* host) {
          // It loads the checkpoint in run_server, then becomes the primary.
          current_ = start_server(host, initial_state());
        },
        spare);
  }

  ParameterServer* primary() override { return current_->alive() ? current_ : nullptr; }
  // While a replacement loads, what is observed is the last holder's state (checkpoint's rule).
  SnapshotPtr observed_snapshot() override {
    return (holder_ != nullptr ? holder_ : current_)->snapshot();
  }

 private:
  /// Hands `copy` to the host's persister of level `kind`, starting one if none runs there.
  void submit(HostCopies& copies, sg4::Host* host, CheckpointLevelKind kind,
              const StateCopy& copy) {
    Persister& p = copies.persisters[kind];
    if (p.waiting) {
      context_.recorder.event(
          sg4::Engine::get_clock(), EventType::CHECKPOINT_SUPERSEDED,
          shard_.name(fmt::format("{}:{}", host->get_name(), to_string(kind))),
          {{"version", p.waiting->snapshot->version}, {"by", copy.snapshot->version}});
    }
    p.waiting = copy;
    if (!p.alive) {
      p.kind = kind;
      p.host = host;
      p.alive = true;
      const int incarnation = persisters_started_++;
      sg4::Actor::create(shard_.name(fmt::format("persist-{}", to_string(kind))), host,
                         [this, &p, incarnation] { persist(p, incarnation); });
    }
    const std::unique_lock lock(*p.mutex);
    p.wake->notify_all();
  }

  /// The body of a persister: writes the waiting snapshot, then the next one, until its host
  /// fails (the actor is killed then; a write in progress is lost).
  void persist(Persister& p, int incarnation) {
    sg4::Mailbox* ack =
        sg4::Mailbox::by_name(shard_.name(fmt::format("persist-{}.ack", incarnation)));
    while (true) {
      StateCopy copy;
      {
        std::unique_lock lock(*p.mutex);
        while (!p.waiting) p.wake->wait(lock);
        copy = *p.waiting;
        p.waiting.reset();
      }
      const double bytes = storage_.bytes(copy);
      if (p.kind == CheckpointLevelKind::LOCAL_DISK) {
        const double start = sg4::Engine::get_clock();
        local_disk(p.host)->write(static_cast<sg_size_t>(bytes));
        context_.recorder.checkpointing(p.host->get_name(), start, sg4::Engine::get_clock());
        hosts_[p.host].local = copy;
        context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_WRITTEN,
                                shard_.name(fmt::format("{}:local-disk", p.host->get_name())),
                                {{"version", copy.snapshot->version}});
      } else if (p.kind == CheckpointLevelKind::PEER) {
        send_to_peers(p.host, copy);
      } else {
        // To the storage host over the network (competing with training traffic on the server
        // host's link); the storage records "checkpoint_written" once it is on its disk.
        auto message =
            std::make_unique<StorageMessage>(StateCopy{copy.snapshot, copy.optimizer, ack});
        storage_.mailbox()->put(message.get(), static_cast<std::uint64_t>(bytes));
        static_cast<void>(message.release());  // NOLINT: ownership passed to the storage
        ack->get_unique<int>();
      }
    }
  }

  const CheckpointLevel& level_of(CheckpointLevelKind kind) const {
    for (const CheckpointLevel& l : config_.levels) {
      if (l.kind == kind) return l;
    }
    throw std::logic_error("no checkpoint level " + to_string(kind));
  }

  /// How long a transfer of `bytes` to or from a peer may take before the peer counts as gone:
  /// the detection timeout, plus ten times the transfer alone on one star link.
  double peer_timeout(double bytes) const {
    return context_.scenario.failures.detection_timeout +
           10.0 * bytes / context_.scenario.cluster.star.bandwidth;
  }

  /// The peer level's hosts for a server on `self`, in placement order (`self` left out).
  std::vector<sg4::Host*> peer_hosts(const sg4::Host* self) const {
    const bool workers = level_of(CheckpointLevelKind::PEER).placement == PeerPlacement::WORKERS;
    std::vector<sg4::Host*> hosts;
    for (sg4::Host* h : workers ? context_.roles.workers : shard_.hosts) {
      if (h != self) hosts.push_back(h);
    }
    return hosts;
  }

  /// The mailbox of `host`'s keeper, started if none runs there (the host is up).
  sg4::Mailbox* keeper(sg4::Host* host) {
    HostCopies& copies = hosts_[host];
    if (copies.keeper == nullptr) {
      copies.keeper = sg4::Mailbox::by_name(
          shard_.name(fmt::format("keeper-{}-{}", host->get_name(), copies.keepers_started++)));
      sg4::Mailbox* mailbox = copies.keeper;
      sg4::Actor::create("keeper", host, [this, host, mailbox] { keep(host, mailbox); });
    }
    return copies.keeper;
  }

  /// The body of a keeper: keeps the latest copy it received in its host's memory and sends it
  /// to a replacement that asks. It dies with its host, and the copy with it.
  void keep(sg4::Host* host, sg4::Mailbox* mailbox) {
    while (true) {
      std::unique_ptr<StorageMessage> message;
      try {
        message = mailbox->get_unique<StorageMessage>();
      } catch (const simgrid::Exception&) {
        continue;  // the sender died mid-transfer
      }
      HostCopies& here = hosts_[host];
      if (auto* copy = std::get_if<StateCopy>(message.get())) {
        here.peer = *copy;
        context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_WRITTEN,
                                shard_.name(fmt::format("{}:peer", host->get_name())),
                                {{"version", copy->snapshot->version}});
      } else {
        const auto& load = std::get<LoadCheckpoint>(*message);
        const double size = here.peer ? storage_.bytes(*here.peer) : CONTROL_BYTES;
        load.reply_to->put_init(new CheckpointReply{here.peer}, static_cast<std::uint64_t>(size))
            ->detach([](void* p) { delete static_cast<CheckpointReply*>(p); });
      }
    }
  }

  /// Sends `copy` from `self` to the first `copies` peer hosts that are up, one after the other;
  /// a peer that fails or does not take it within peer_timeout() is skipped.
  void send_to_peers(sg4::Host* self, const StateCopy& copy) {
    const int wanted = level_of(CheckpointLevelKind::PEER).copies;
    const double bytes = storage_.bytes(copy);
    int sent = 0;
    for (sg4::Host* peer : peer_hosts(self)) {
      if (sent == wanted) break;
      if (!peer->is_on()) continue;
      ++sent;
      auto message =
          std::make_unique<StorageMessage>(StateCopy{copy.snapshot, copy.optimizer, nullptr});
      try {
        keeper(peer)->put(message.get(), static_cast<std::uint64_t>(bytes), peer_timeout(bytes));
        static_cast<void>(message.release());  // NOLINT: ownership passed to the keeper
      } catch (const simgrid::TimeoutException&) {
        // the peer failed before taking it: this snapshot has one copy less
      } catch (const simgrid::NetworkFailureException&) {
      }
    }
  }

  static sg4::Disk* local_disk(sg4::Host* host) {
    for (sg4::Disk* d : host->get_disks()) {
      if (d->get_name() == "local-disk") return d;
    }
    throw std::logic_error("server host " + host->get_name() + " has no local-disk");
  }

  /// Every copy a replacement on `self` can reach, newest first; among equal versions its own
  /// memory, its local disk, a peer's memory (its own host's first, then in placement order),
  /// the storage host.
  std::vector<Candidate> candidates(sg4::Host* self) {
    std::vector<Candidate> found;
    HostCopies& here = hosts_[self];
    if (here.memory) found.push_back({here.memory->snapshot->version, CheckpointLevelKind::MEMORY});
    if (here.local)
      found.push_back({here.local->snapshot->version, CheckpointLevelKind::LOCAL_DISK});
    if (here.peer) found.push_back({here.peer->snapshot->version, CheckpointLevelKind::PEER, self});
    const bool peers = std::any_of(config_.levels.begin(), config_.levels.end(), [](const auto& l) {
      return l.kind == CheckpointLevelKind::PEER;
    });
    if (peers) {
      for (sg4::Host* h : peer_hosts(self)) {
        const HostCopies& there = hosts_[h];
        if (h->is_on() && there.peer && there.keeper != nullptr)
          found.push_back({there.peer->snapshot->version, CheckpointLevelKind::PEER, h});
      }
    }
    if (const auto remote = storage_.latest_version())
      found.push_back({*remote, CheckpointLevelKind::REMOTE});
    std::stable_sort(found.begin(), found.end(),
                     [](const Candidate& a, const Candidate& b) { return a.version > b.version; });
    return found;
  }

  /// Fetches `c` into the replacement on `self`, paying its cost; nullopt if a peer holding it
  /// failed meanwhile.
  std::optional<StateCopy> fetch(const Candidate& c, ParameterServer& server) {
    HostCopies& here = hosts_[server.host()];
    switch (c.kind) {
      case CheckpointLevelKind::MEMORY:
        sg4::this_actor::sleep_for(storage_.bytes(*here.memory) / config_.memory_bandwidth);
        return here.memory;
      case CheckpointLevelKind::LOCAL_DISK:
        local_disk(server.host())->read(static_cast<sg_size_t>(storage_.bytes(*here.local)));
        return here.local;
      case CheckpointLevelKind::PEER:
        if (c.peer == server.host()) {
          sg4::this_actor::sleep_for(storage_.bytes(*here.peer) / config_.memory_bandwidth);
          return here.peer;
        }
        return ask(hosts_[c.peer].keeper, server,
                   peer_timeout(storage_.bytes(*hosts_[c.peer].peer)));
      case CheckpointLevelKind::REMOTE:
        return ask(storage_.mailbox(), server, -1.0);
    }
    return std::nullopt;
  }

  /// Asks a keeper or the storage for its copy; `timeout` < 0: wait as long as it takes.
  std::optional<StateCopy> ask(sg4::Mailbox* holder, ParameterServer& server, double timeout) {
    sg4::Mailbox* inbox =
        sg4::Mailbox::by_name(fmt::format("{}.load-{}", server.name(), loads_asked_++));
    auto request = std::make_unique<StorageMessage>(LoadCheckpoint{inbox});
    try {
      holder->put(request.get(), static_cast<std::uint64_t>(CONTROL_BYTES), timeout);
      static_cast<void>(request.release());  // NOLINT: ownership passed to the holder
      return inbox->get_unique<CheckpointReply>(timeout)->checkpoint;
    } catch (const simgrid::TimeoutException&) {
    } catch (const simgrid::NetworkFailureException&) {
    }
    return std::nullopt;
  }

  /// Loads the newest copy the replacement's host can reach (on equal versions the cheapest),
  /// restores it and makes the server the primary.
  void load_checkpoint(ParameterServer& server) {
    const double start = sg4::Engine::get_clock();
    std::optional<StateCopy> copy;
    Candidate from;
    for (const Candidate& c : candidates(server.host())) {
      copy = fetch(c, server);
      if (copy) {
        from = c;
        break;
      }
      context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_UNREACHABLE,
                              server.name(),
                              {{"version", c.version}, {"level", to_string(c.kind)}});
      FAILSIM_INFO("{}: the {} copy of version {} is unreachable", server.name(), to_string(c.kind),
                   c.version);
    }
    ServerState state = initial_state();
    if (copy) state = ServerState{copy->snapshot, copy->optimizer};
    const std::int64_t lost = roll_back_to(*state.snapshot);
    nlohmann::json details{{"version", state.snapshot->version},
                           {"updates_lost", lost},
                           {"found", copy.has_value()},
                           {"level", copy ? to_string(from.kind) : "none"},
                           {"seconds", sg4::Engine::get_clock() - start}};
    if (copy && from.kind == CheckpointLevelKind::PEER) details["peer"] = from.peer->get_name();
    context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_LOADED, server.name(),
                            details);
    FAILSIM_INFO("{} loaded version {} from {}: {} updates lost", server.name(),
                 state.snapshot->version,
                 copy ? fmt::format("level {}", to_string(from.kind)) : "nothing reachable", lost);
    server.restore(state);
    holder_ = &server;
    context_.coordinator.set_primary(shard_.index, &server);
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }

  const CheckpointConfig& config_;
  CheckpointStorage storage_;
  std::vector<double> last_due_;  // per level: when it was last due
  std::map<const sg4::Host*, HostCopies> hosts_;
  int persisters_started_ = 0;
  int loads_asked_ = 0;
  std::optional<unsigned int> on_host_change_;
  ParameterServer* current_ = nullptr;
  // The last server that had the training state (the first, or one that finished its load).
  ParameterServer* holder_ = nullptr;
};
}  // namespace

std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context, const Shard& shard) {
  return std::make_unique<MultilevelCheckpointing>(context, shard);
}

}  // namespace failsim::sim
