// Strategy "checkpoint" (docs/strategies.md): every K updates or T simulated seconds the server
// sends its parameters, version and optimiser state to the storage host, which writes them to
// disk (the server waits for the acknowledgement when `blocking`, else goes on training). On a
// detected failure a new server starts after the restart delay on the same host (once it is
// up), loads the latest complete checkpoint (disk read + transfer) and continues: every update
// since that checkpoint is lost (counted as rolled back). With elastic resume (sim/ps/job.hpp) a
// host not back within the patience makes the whole job resize instead: drain() stops the shard.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <cmath>

#include "sim/ps/observer.hpp"
#include "sim/ps/recovery/checkpoint/checkpoint_storage.hpp"
#include "sim/ps/recovery/checkpoint/settings.hpp"
#include "sim/ps/recovery/elastic.hpp"
#include "sim/ps/recovery/strategies.hpp"
#include "sim/ps/recovery/strategy.hpp"

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

class Checkpointing final : public Strategy, public ElasticStrategy {
 public:
  Checkpointing(RunContext& context, const Shard& shard)
      : Strategy(context, shard), storage_(context, shard) {}

  ElasticStrategy* elastic() override { return this; }

  void start() override {
    storage_.launch();
    current_ = start_server(shard_.hosts.front(), initial_state());
    if (shard_.generation > 0) return;  // it loads the re-sharded checkpoint first
    context_.coordinator.set_initial_primary(shard_.index, current_);
    holder_ = current_;
  }

  void run_server(ParameterServer& server) override {
    // The first server of the run starts afresh; after a resize, the storage holds the
    // re-sharded checkpoint (checkpoint_storage.hpp) and the first server loads it too.
    if (&server != servers_.front().get() || shard_.generation > 0) load_checkpoint(server);
    server.serve_workers();
  }

  void load_checkpoint(ParameterServer& server) {
    // Load the latest checkpoint: ask the storage, wait for the data.
    sg4::Mailbox* inbox = sg4::Mailbox::by_name(server.name() + ".load");
    auto request = std::make_unique<StorageMessage>(LoadCheckpoint{inbox});
    storage_.mailbox()->put(request.get(), static_cast<std::uint64_t>(CONTROL_BYTES));
    static_cast<void>(request.release());  // NOLINT: ownership passed to the storage
    const auto reply = inbox->get_unique<CheckpointReply>();
    ServerState state = initial_state();
    if (reply->checkpoint)
      state = ServerState{reply->checkpoint->snapshot, reply->checkpoint->optimizer};
    const std::int64_t lost = roll_back_to(*state.snapshot);
    context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_LOADED, server.name(),
                            {{"version", state.snapshot->version},
                             {"updates_lost", lost},
                             {"found", reply->checkpoint.has_value()}});
    server.restore(state);
    holder_ = &server;
    context_.coordinator.set_primary(shard_.index, &server);
    Observer::evaluate_now(context_);  // the accuracy right after recovery
  }

  void after_update(ParameterServer& server) override {
    const CheckpointConfig& c = context_.scenario.recovery.get<CheckpointConfig>();
    const double now = sg4::Engine::get_clock();
    const bool by_updates = c.every_updates > 0 && server.version() % c.every_updates == 0;
    const bool by_time = c.every_seconds > 0 && now - last_checkpoint_ >= c.every_seconds;
    if (!by_updates && !by_time) return;
    last_checkpoint_ = now;
    const ServerState state = server.state();
    auto copy =
        std::make_unique<StorageMessage>(StateCopy{state.snapshot, state.optimizer, nullptr});
    const double bytes = storage_.bytes(std::get<StateCopy>(*copy));
    if (!c.blocking) {
      // The snapshot is immutable, so training may go on while it travels and is written.
      storage_.mailbox()
          ->put_init(copy.release(), static_cast<std::uint64_t>(bytes))
          ->detach([](void* p) { delete static_cast<StorageMessage*>(p); });
      return;
    }
    const double start = sg4::Engine::get_clock();
    write(server.name() + ".ack", std::move(copy));
    context_.recorder.checkpointing(sg4::this_actor::get_host()->get_name(), start,
                                    sg4::Engine::get_clock());
    context_.recorder.event(
        sg4::Engine::get_clock(), EventType::CHECKPOINT_BLOCKED, server.name(),
        {{"version", state.snapshot->version}, {"seconds", sg4::Engine::get_clock() - start}});
  }

  /// Sends `copy` to the storage from the calling actor and waits until it is written (the
  /// storage acknowledges to mailbox `ack_name`).
  void write(const std::string& ack_name, std::unique_ptr<StorageMessage> copy) {
    sg4::Mailbox* ack = sg4::Mailbox::by_name(ack_name);
    std::get<StateCopy>(*copy).ack_to = ack;
    const double bytes = storage_.bytes(std::get<StateCopy>(*copy));
    storage_.mailbox()->put(copy.get(), static_cast<std::uint64_t>(bytes));
    static_cast<void>(copy.release());
    ack->get_unique<int>();
  }

  sg4::ActorPtr drain() override {
    if (retired_) return nullptr;  // a resize found no host to run on and the job waits
    retired_ = true;
    if (current_->alive() && current_ == holder_) {
      // It stops now and writes its state from its host: nothing is rolled back.
      const ServerState state = current_->state();
      current_->kill();
      // Its own mailbox: an acknowledgement of a checkpoint the server was waiting for when it
      // stopped may still arrive at the server's.
      const std::string ack = current_->name() + ".drain-ack";
      return sg4::Actor::create(shard_.name("drain"), current_->host(), [this, state, ack] {
        write(ack, std::make_unique<StorageMessage>(
                       StateCopy{state.snapshot, state.optimizer, nullptr}));
      });
    }
    // Its server failed (its detection may still be on the way), or a replacement was loading:
    // the next generation rolls its updates since the checkpoint back (handed_over).
    if (current_ == holder_) remember_lost(*current_);
    current_->kill();
    lost_state_ = true;
    return nullptr;
  }

  void handed_over() override {
    if (!lost_state_) return;  // it wrote its state: nothing is rolled back
    lost_state_ = false;
    const ServerState restored = latest_checkpoint();
    const std::int64_t lost = roll_back_to(*restored.snapshot);
    context_.recorder.event(sg4::Engine::get_clock(), EventType::ROLLED_BACK,
                            shard_.name("storage"),
                            {{"version", restored.snapshot->version}, {"updates_lost", lost}});
  }

  ServerState latest_checkpoint() const override {
    const std::optional<StateCopy>& latest = storage_.latest();
    if (!latest) return initial_state();
    return ServerState{latest->snapshot, latest->optimizer};
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    // A replacement killed while still loading held nothing yet: the next load's loss still
    // counts from the server that died holding the training state.
    if (&dead == holder_) remember_lost(dead);
    if (context_.resizes.resizes_for(*this, host_back)) return;
    restart_later(
        dead, host_back, [] { return nlohmann::json::object(); },
        [this](sg4::Host* host) {
          // It loads the checkpoint in run_server, then becomes the primary.
          current_ = start_server(host, initial_state());
        });
  }

  ParameterServer* primary() override { return current_->alive() ? current_ : nullptr; }
  // While a replacement loads, training would still resume from nothing newer than what the
  // last holder had: it, not the replacement's placeholder version 0, is what is observed.
  SnapshotPtr observed_snapshot() override {
    return (holder_ != nullptr ? holder_ : current_)->snapshot();
  }

 private:
  CheckpointStorage storage_;
  ParameterServer* current_ = nullptr;
  double last_checkpoint_ = 0.0;
  // The last server that had the training state (the first, or one that finished its load).
  ParameterServer* holder_ = nullptr;
  bool lost_state_ = false;  // drained without its state: rolled back when handed over
};
}  // namespace

std::unique_ptr<Strategy> make_checkpointing(RunContext& context, const Shard& shard) {
  // With levels, the multi-level implementation (checkpoint_multilevel.cpp).
  if (!context.scenario.recovery.get<CheckpointConfig>().levels.empty())
    return make_multilevel_checkpointing(context, shard);
  return std::make_unique<Checkpointing>(context, shard);
}

}  // namespace failsim::sim
