// Strategy "checkpoint" with `levels` (docs/strategies.md, "Multi-level checkpoints"), as in
// CheckFreq and DataStates-LLM: when a level is due, the server copies its state into its host's
// memory (it blocks only for that copy, bytes / memory_bandwidth), then a persister process per
// persistent level on the same host writes the snapshot in the background, to the host's own
// disk (local-disk) or over the network to the storage host (remote), while training goes on.
// Recovery restores the newest complete copy that survived the failure:
//   process crash (host up):      memory, local disk and remote survive;
//   host down for a while:        memory is lost (the host's RAM), local disk and remote survive;
//   host lost for good:           the replacement runs on a spare server host, whose own levels
//                                 are empty, so it loads the remote copy.
// The memory level and the persisters belong to the host, not to the server process: they
// outlive a crash of the server (a persister finishes its write) and die with the host.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "sim/checkpoint_storage.hpp"
#include "sim/failure_injector.hpp"
#include "sim/observer.hpp"
#include "sim/strategies.hpp"
#include "sim/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(checkpoint_multilevel, failsim, "multi-level checkpointing");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

std::string level_name(CheckpointLevelKind kind) {
  switch (kind) {
    case CheckpointLevelKind::MEMORY:
      return "memory";
    case CheckpointLevelKind::LOCAL_DISK:
      return "local-disk";
    case CheckpointLevelKind::REMOTE:
      return "remote";
  }
  return "?";
}

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
};

class MultilevelCheckpointing final : public Strategy {
 public:
  explicit MultilevelCheckpointing(RunContext& context)
      : Strategy(context),
        config_(context.scenario.recovery.checkpoint),
        storage_(context),
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
      for (auto& [kind, p] : it->second.persisters) {
        p.alive = false;
        p.waiting.reset();
      }
    });
    storage_.launch();
    current_ = start_server(context_.roles.servers.front(),
                            ServerState{context_.math.initial_snapshot(), nullptr});
    context_.coordinator.set_initial_primary(current_);
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
    const StateCopy copy{state.snapshot, state.velocity, nullptr};
    const double seconds = storage_.bytes(copy) / config_.memory_bandwidth;
    sg4::this_actor::sleep_for(seconds);
    nlohmann::json levels = nlohmann::json::array();
    for (const CheckpointLevelKind kind : due) levels.push_back(level_name(kind));
    context_.recorder.event(
        sg4::Engine::get_clock(), "checkpoint_snapshot", server.name(),
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
    if (&dead == holder_) {
      lost_version_ = dead.version();
      lost_gradients_ = dead.gradients();
    }
    sg4::Host* spare = nullptr;
    if (std::isinf(host_back)) {
      // The host is lost for good: the replacement runs on the first other server host up.
      for (sg4::Host* h : context_.roles.servers) {
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
          current_ = start_server(host, ServerState{context_.math.initial_snapshot(), nullptr});
        },
        spare);
  }

  ParameterServer* primary() override { return current_->alive() ? current_ : nullptr; }
  SnapshotPtr observed_snapshot() override { return current_->snapshot(); }

 private:
  /// Hands `copy` to the host's persister of level `kind`, starting one if none runs there.
  void submit(HostCopies& copies, sg4::Host* host, CheckpointLevelKind kind,
              const StateCopy& copy) {
    Persister& p = copies.persisters[kind];
    if (p.waiting) {
      context_.recorder.event(
          sg4::Engine::get_clock(), "checkpoint_superseded",
          fmt::format("{}:{}", host->get_name(), level_name(kind)),
          {{"version", p.waiting->snapshot->version}, {"by", copy.snapshot->version}});
    }
    p.waiting = copy;
    if (!p.alive) {
      p.kind = kind;
      p.host = host;
      p.alive = true;
      const int incarnation = persisters_started_++;
      sg4::Actor::create(fmt::format("persist-{}", level_name(kind)), host,
                         [this, &p, incarnation] { persist(p, incarnation); });
    }
    const std::unique_lock lock(*p.mutex);
    p.wake->notify_all();
  }

  /// The body of a persister: writes the waiting snapshot, then the next one, until its host
  /// fails (the actor is killed then; a write in progress is lost).
  void persist(Persister& p, int incarnation) {
    sg4::Mailbox* ack = sg4::Mailbox::by_name(fmt::format("persist-{}.ack", incarnation));
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
        local_disk(p.host)->write(static_cast<sg_size_t>(bytes));
        hosts_[p.host].local = copy;
        context_.recorder.event(sg4::Engine::get_clock(), "checkpoint_written",
                                fmt::format("{}:local-disk", p.host->get_name()),
                                {{"version", copy.snapshot->version}});
      } else {
        // To the storage host over the network (competing with training traffic on the server
        // host's link); the storage records "checkpoint_written" once it is on its disk.
        auto message =
            std::make_unique<StorageMessage>(StateCopy{copy.snapshot, copy.velocity, ack});
        storage_.mailbox()->put(message.get(), static_cast<std::uint64_t>(bytes));
        static_cast<void>(message.release());  // NOLINT: ownership passed to the storage
        ack->get_unique<int>();
      }
    }
  }

  static sg4::Disk* local_disk(sg4::Host* host) {
    for (sg4::Disk* d : host->get_disks()) {
      if (d->get_name() == "local-disk") return d;
    }
    throw std::logic_error("server host " + host->get_name() + " has no local-disk");
  }

  /// Loads the newest copy the replacement's host can reach (memory, its local disk, remote;
  /// on equal versions the cheapest), restores it and makes the server the primary.
  void load_checkpoint(ParameterServer& server) {
    const double start = sg4::Engine::get_clock();
    HostCopies& here = hosts_[server.host()];
    const std::optional<std::int64_t> remote = storage_.latest_version();
    const auto version_of = [](const std::optional<StateCopy>& c) {
      return c ? c->snapshot->version : std::int64_t{-1};
    };
    const std::array<std::pair<CheckpointLevelKind, std::int64_t>, 3> candidates{
        {{CheckpointLevelKind::MEMORY, version_of(here.memory)},
         {CheckpointLevelKind::LOCAL_DISK, version_of(here.local)},
         {CheckpointLevelKind::REMOTE, remote.value_or(-1)}}};
    std::int64_t best = -1;
    CheckpointLevelKind from = CheckpointLevelKind::REMOTE;
    for (const auto& [kind, version] : candidates) {
      if (version > best) {
        best = version;
        from = kind;
      }
    }
    std::optional<StateCopy> copy;
    if (best >= 0) {
      if (from == CheckpointLevelKind::MEMORY) {
        copy = here.memory;
        sg4::this_actor::sleep_for(storage_.bytes(*copy) / config_.memory_bandwidth);
      } else if (from == CheckpointLevelKind::LOCAL_DISK) {
        copy = here.local;
        local_disk(server.host())->read(static_cast<sg_size_t>(storage_.bytes(*copy)));
      } else {
        sg4::Mailbox* inbox = sg4::Mailbox::by_name(server.name() + ".load");
        auto request = std::make_unique<StorageMessage>(LoadCheckpoint{inbox});
        storage_.mailbox()->put(request.get(), static_cast<std::uint64_t>(CONTROL_BYTES));
        static_cast<void>(request.release());  // NOLINT: ownership passed to the storage
        copy = inbox->get_unique<CheckpointReply>()->checkpoint;
      }
    }
    ServerState state{context_.math.initial_snapshot(), nullptr};
    if (copy) state = ServerState{copy->snapshot, copy->velocity};
    const std::int64_t lost = lost_version_ - state.snapshot->version;
    context_.recorder.rolled_back(lost, lost_gradients_ - state.snapshot->gradients);
    context_.recorder.event(sg4::Engine::get_clock(), "checkpoint_loaded", server.name(),
                            {{"version", state.snapshot->version},
                             {"updates_lost", lost},
                             {"found", copy.has_value()},
                             {"level", copy ? level_name(from) : "none"},
                             {"seconds", sg4::Engine::get_clock() - start}});
    server.restore(state);
    holder_ = &server;
    context_.coordinator.set_primary(&server);
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }

  const CheckpointConfig& config_;
  CheckpointStorage storage_;
  std::vector<double> last_due_;  // per level: when it was last due
  std::map<const sg4::Host*, HostCopies> hosts_;
  int persisters_started_ = 0;
  std::optional<unsigned int> on_host_change_;
  ParameterServer* current_ = nullptr;
  // The last server that had the training state (the first, or one that finished its load).
  const ParameterServer* holder_ = nullptr;
  // The dead server's version and gradient count: what a rollback loses from.
  std::int64_t lost_version_ = 0;
  std::int64_t lost_gradients_ = 0;
};
}  // namespace

std::unique_ptr<Strategy> make_multilevel_checkpointing(RunContext& context) {
  return std::make_unique<MultilevelCheckpointing>(context);
}

}  // namespace failsim::sim
