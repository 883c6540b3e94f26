// Strategy "stateless" (docs/strategies.md), the study's stateless parameter server: the
// parameters and the pending gradients live in an external store (on the storage host), not in
// the server. Workers pull the latest stored parameters from the store and push their gradients
// to its pending list, whether or not a server is up. The server repeatedly takes everything
// pending (transfer of k gradients), applies it as one update by the configured rule, and
// publishes the new parameters to the store (one transfer). After a failure a new server starts
// after the restart delay, reads the stored parameters, and applies everything that piled up
// meanwhile at once: the study's recovery.
#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <cmath>

#include "sim/endpoint.hpp"
#include "sim/failure_injector.hpp"
#include "sim/observer.hpp"
#include "sim/strategies.hpp"
#include "sim/strategy.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(stateless, failsim, "stateless parameter server and its store");

namespace failsim::sim {

namespace {
namespace sg4 = simgrid::s4u;

/// A server asks the store for every pending gradient (answered once there is at least one).
struct TakePending {
  sg4::Mailbox* reply_to = nullptr;
};
/// A server asks for the stored parameters (a restarting server).
struct ReadParams {
  sg4::Mailbox* reply_to = nullptr;
};
using StoreRequest = std::variant<TakePending, ReadParams, StateCopy>;
struct PendingBatch {
  std::vector<GradientPush> gradients;
};

models::StaleRuleConfig rule_config(const StatelessConfig& c) {
  models::StaleRuleConfig r;
  switch (c.rule) {
    case StaleRuleKind::SUM:
      r.rule = models::StaleRule::SUM;
      break;
    case StaleRuleKind::MEAN:
      r.rule = models::StaleRule::MEAN;
      break;
    case StaleRuleKind::PAPER:
      r.rule = models::StaleRule::PAPER;
      break;
    case StaleRuleKind::INVERSE_STALENESS:
      r.rule = models::StaleRule::INVERSE_STALENESS;
      break;
    case StaleRuleKind::DROP_STALE:
      r.rule = models::StaleRule::DROP_STALE;
      break;
  }
  r.paper_threshold = c.paper_threshold;
  r.paper_low_lr = static_cast<float>(c.paper_low_lr);
  r.drop_bound = c.drop_bound;
  return r;
}

/// The external store: the workers' endpoint. Worker messages and server requests share its
/// mailbox; each is a small variant.
class Store final : public Endpoint {
 public:
  explicit Store(RunContext& context)
      : context_(context),
        mailbox_(sg4::Mailbox::by_name("store")),
        server_inbox_(sg4::Mailbox::by_name("store.server")),
        latest_(context.math.initial_snapshot()) {}

  sg4::Mailbox* mailbox() const override { return mailbox_; }
  void delivered() override { ++delivered_; }
  sg4::Mailbox* server_inbox() const { return server_inbox_; }
  SnapshotPtr latest() const { return latest_; }
  std::int64_t pending() const {
    return delivered_ - consumed_ + static_cast<std::int64_t>(pending_.size());
  }
  std::int64_t peak_pending() const { return peak_pending_; }
  /// Gradients sent to servers so far.
  std::int64_t sent() const { return sent_; }
  /// The failure of the server waiting on `inbox` was detected: stop sending to it.
  void forget_server(sg4::Mailbox* inbox) {
    if (waiting_server_ == inbox) waiting_server_ = nullptr;
  }

  void launch() {
    sg4::Actor::create("store", context_.roles.storage, [this] { serve(); });
  }

 private:
  void serve() {
    mailbox_->set_receiver(sg4::Actor::self());
    server_inbox_->set_receiver(sg4::Actor::self());
    // Workers write to `mailbox_`, servers to `server_inbox_`: one pending receive on each,
    // handle whichever completes, post it again.
    sg4::CommPtr gets[2] = {mailbox_->get_async<ServerMessage>(&worker_message_),
                            server_inbox_->get_async<StoreRequest>(&server_message_)};
    while (true) {
      ssize_t done = -1;
      try {
        done = sg4::Comm::wait_any({gets[0], gets[1]});
      } catch (const simgrid::Exception&) {
        // A sender failed mid-transfer: post that receive again.
        for (int i = 0; i < 2; ++i) {
          if (gets[i]->get_state() == sg4::Activity::State::FAILED ||
              gets[i]->get_state() == sg4::Activity::State::CANCELED) {
            gets[i] = i == 0 ? mailbox_->get_async<ServerMessage>(&worker_message_)
                             : server_inbox_->get_async<StoreRequest>(&server_message_);
          }
        }
        continue;
      }
      if (done == 0) {
        on_worker(std::unique_ptr<ServerMessage>(worker_message_));
        gets[0] = mailbox_->get_async<ServerMessage>(&worker_message_);
      } else {
        on_server(std::unique_ptr<StoreRequest>(server_message_));
        gets[1] = server_inbox_->get_async<StoreRequest>(&server_message_);
      }
    }
  }

  void on_worker(std::unique_ptr<ServerMessage> message) {
    if (auto* pull = std::get_if<PullRequest>(message.get())) {
      pull->reply_to
          ->put_init(new ParamsReply{latest_, pull->request},
                     static_cast<std::uint64_t>(context_.time.param_bytes))
          ->detach([](void* p) { delete static_cast<ParamsReply*>(p); });
      return;
    }
    if (auto* push = std::get_if<GradientPush>(message.get())) {
      ++consumed_;
      pending_.push_back(std::move(*push));
      peak_pending_ = std::max(peak_pending_, static_cast<std::int64_t>(pending_.size()));
      if (waiting_server_ != nullptr) send_pending();
    }
  }

  void on_server(std::unique_ptr<StoreRequest> request) {
    if (auto* take = std::get_if<TakePending>(request.get())) {
      waiting_server_ = take->reply_to;
      if (!pending_.empty()) send_pending();
    } else if (auto* read = std::get_if<ReadParams>(request.get())) {
      read->reply_to
          ->put_init(
              new StateCopy{latest_, velocity_, nullptr},
              static_cast<std::uint64_t>(context_.time.param_bytes * (velocity_ ? 2.0 : 1.0)))
          ->detach([](void* p) { delete static_cast<StateCopy*>(p); });
    } else {
      const auto& copy = std::get<StateCopy>(*request);
      latest_ = copy.snapshot;
      velocity_ = copy.velocity;
      if (evaluate_next_publish_) {
        evaluate_next_publish_ = false;
        Observer::evaluate_now(context_);  // the accuracy right after recovery
      }
    }
  }

 public:
  /// The next parameters published are the first after a recovery: evaluate them on arrival.
  void evaluate_next_publish() { evaluate_next_publish_ = true; }

 private:
  void send_pending() {
    auto* batch = new PendingBatch{std::move(pending_)};
    pending_.clear();
    sent_ += static_cast<std::int64_t>(batch->gradients.size());
    const double bytes = context_.time.param_bytes * static_cast<double>(batch->gradients.size());
    waiting_server_->put_init(batch, static_cast<std::uint64_t>(bytes))->detach([](void* p) {
      delete static_cast<PendingBatch*>(p);
    });
    waiting_server_ = nullptr;
  }

  RunContext& context_;
  sg4::Mailbox* mailbox_;
  sg4::Mailbox* server_inbox_;
  SnapshotPtr latest_;
  std::shared_ptr<const models::FloatBuffer> velocity_;
  std::vector<GradientPush> pending_;
  std::int64_t delivered_ = 0, consumed_ = 0, peak_pending_ = 0, sent_ = 0;
  sg4::Mailbox* waiting_server_ = nullptr;  // a server waiting for gradients
  bool evaluate_next_publish_ = false;
  ServerMessage* worker_message_ = nullptr;
  StoreRequest* server_message_ = nullptr;
};

class Stateless final : public Strategy {
 public:
  explicit Stateless(RunContext& context)
      : Strategy(context),
        store_(context),
        rule_(rule_config(context.scenario.recovery.stateless)) {}

  void start() override {
    store_.launch();
    current_ = start_server(context_.roles.servers.front(),
                            ServerState{context_.math.initial_snapshot(), nullptr});
    context_.coordinator.set_initial_primary(
        &store_);  // workers talk to the store, whatever happens
  }

  void run_server(ParameterServer& server) override {
    sg4::Mailbox* inbox = server.mailbox();
    const bool restarted = &server != servers_.front().get();
    if (restarted) {
      send(new StoreRequest{ReadParams{inbox}}, CONTROL_BYTES);
      const auto stored = inbox->get_unique<StateCopy>();
      server.restore(ServerState{stored->snapshot, stored->velocity});
    }
    bool first = true;
    while (!context_.stopping()) {
      send(new StoreRequest{TakePending{inbox}}, CONTROL_BYTES);
      auto batch = inbox->get_unique<PendingBatch>();
      const auto count = static_cast<std::int64_t>(batch->gradients.size());
      received_ += count;
      const models::ApplyOutcome outcome = server.apply_batch(std::move(batch->gradients), rule_);
      if (context_.stopping()) return;  // every other process is gone: nothing to publish to
      if (restarted && first) {
        context_.recorder.event(sg4::Engine::get_clock(), "pending_applied", server.name(),
                                {{"count", count},
                                 {"applied", outcome.applied},
                                 {"dropped", outcome.dropped},
                                 {"learning_rate", outcome.learning_rate}});
      }
      const ServerState state = server.state();
      if (restarted && first) store_.evaluate_next_publish();
      send(new StoreRequest{StateCopy{state.snapshot, state.velocity, nullptr}},
           state_bytes(state));
      first = false;
    }
  }

  void on_server_failure_detected(ParameterServer& dead, double host_back) override {
    // A batch on its way to the dead server is lost with it (one it was applying already
    // counted as lost when it died).
    store_.forget_server(dead.mailbox());
    context_.recorder.gradients_lost(store_.sent() - received_);
    received_ = store_.sent();
    // Updates applied but not yet published died with the server.
    const std::int64_t unpublished = dead.version() - store_.latest()->version;
    if (unpublished > 0)
      context_.recorder.rolled_back(unpublished, dead.gradients() - store_.latest()->gradients);
    restart_later(
        dead, host_back,
        [this] {
          return nlohmann::json{{"pending", store_.pending()}};
        },
        [this](sg4::Host* host) {
          current_ = start_server(host, ServerState{store_.latest(), nullptr});
        });
  }

  ParameterServer* primary() override { return current_->alive() ? current_ : nullptr; }
  SnapshotPtr observed_snapshot() override { return store_.latest(); }
  std::int64_t pending_at_end() override {
    return Strategy::pending_at_end() + store_.pending() + (store_.sent() - received_);
  }
  std::int64_t peak_pending() const override { return store_.peak_pending(); }

 private:
  /// Parameters, plus the optimiser state when there is one.
  double state_bytes(const ServerState& state) const {
    return context_.time.param_bytes * (state.velocity ? 2.0 : 1.0);
  }

  void send(StoreRequest* request, double bytes) {
    std::unique_ptr<StoreRequest> owned(request);
    store_.server_inbox()->put(owned.get(), static_cast<std::uint64_t>(bytes));
    static_cast<void>(owned.release());
  }

  Store store_;
  models::StaleRuleConfig rule_;
  ParameterServer* current_ = nullptr;
  std::int64_t received_ = 0;  // gradients servers took from the store
};
}  // namespace

std::unique_ptr<Strategy> make_stateless(RunContext& context) {
  return std::make_unique<Stateless>(context);
}

}  // namespace failsim::sim
