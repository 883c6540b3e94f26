#include "sim/ps/recovery/stateless/stateless_store.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <iterator>
#include <span>

#include "sim/engine/log.hpp"
#include "sim/ps/observer.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(stateless_store, failsim, "the stateless strategies' store");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

models::StaleRuleConfig rule_config(const StatelessConfig& c) {
  models::StaleRuleConfig r;
  r.rule = c.rule;
  r.paper_threshold = c.paper_threshold;
  r.paper_low_lr = static_cast<float>(c.paper_low_lr);
  r.drop_bound = c.drop_bound;
  return r;
}

StatelessStore::StatelessStore(RunContext& context, const Shard& shard,
                               const StatelessConfig& stateless)
    : context_(context),
      shard_(shard),
      mailbox_(sg4::Mailbox::by_name(shard.name("store"))),
      server_inbox_(sg4::Mailbox::by_name(shard.name("store.server"))),
      latest_(shard.initial),
      rule_(rule_config(stateless)),
      sums_(shard.range.size) {}

void StatelessStore::launch() {
  sg4::Actor::create(shard_.name("store"), context_.roles.storage, [this] { serve(); });
}

std::int64_t StatelessStore::forget_server(sg4::Mailbox* inbox) {
  if (waiting_server_ == inbox) waiting_server_ = nullptr;
  const std::int64_t lost = in_flight();
  received_ = sent_;
  return lost;
}

void StatelessStore::serve() {
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

void StatelessStore::on_worker(std::unique_ptr<ServerMessage> message) {
  if (auto* pull = std::get_if<PullRequest>(message.get())) {
    pull->reply_to
        ->put_init(new ParamsReply{latest_, pull->request},
                   static_cast<std::uint64_t>(shard_.bytes))
        ->detach([](void* p) { delete static_cast<ParamsReply*>(p); });
    return;
  }
  if (auto* push = std::get_if<GradientPush>(message.get())) {
    ++consumed_;
    hold(*push);
    context_.gradient_buffers.give_back(std::move(push->grad));
    peak_pending_ = std::max(peak_pending_, pending_.count);
    if (waiting_server_ != nullptr) send_pending();
  }
}

void StatelessStore::hold(const GradientPush& push) {
  const bool by_staleness = models::weighs_by_staleness(rule_.rule);
  auto group = std::find_if(pending_.groups.begin(), pending_.groups.end(), [&](const auto& g) {
    return !by_staleness || g.members.front().base_version == push.base_version;
  });
  const auto slice =
      std::span<const float>(*push.grad).subspan(shard_.range.offset, shard_.range.size);
  context_.math.timed([&] {
    if (group == pending_.groups.end()) {
      pending_.groups.push_back({sums_.take(), {}});
      group = std::prev(pending_.groups.end());
      std::copy(slice.begin(), slice.end(), group->sum->begin());
    } else {
      float* sum = group->sum->data();
      for (std::size_t i = 0; i < slice.size(); ++i) sum[i] += slice[i];
    }
  });
  group->members.push_back({push.base_version, push.loss});
  ++pending_.count;
}

void StatelessStore::recycle(PendingBatch& batch) {
  for (PendingGroup& group : batch.groups) sums_.give_back(std::move(group.sum));
  batch.groups.clear();
}

void StatelessStore::on_server(std::unique_ptr<StoreRequest> request) {
  if (auto* take = std::get_if<TakePending>(request.get())) {
    waiting_server_ = take->reply_to;
    if (pending_.count > 0) send_pending();
  } else if (auto* read = std::get_if<ReadParams>(request.get())) {
    read->reply_to
        ->put_init(new StateCopy{latest_, optimizer_, nullptr},
                   static_cast<std::uint64_t>(state_bytes(shard_, {latest_, optimizer_})))
        ->detach([](void* p) { delete static_cast<StateCopy*>(p); });
  } else {
    const auto& copy = std::get<StateCopy>(*request);
    latest_ = copy.snapshot;
    optimizer_ = copy.optimizer;
    if (evaluate_next_publish_) {
      evaluate_next_publish_ = false;
      Observer::evaluate_now(context_);  // the accuracy right after recovery
    }
  }
}

void StatelessStore::send_pending() {
  auto* batch = new PendingBatch(std::move(pending_));
  pending_ = {};
  sent_ += batch->count;
  // On the wire the gradients go one by one: summing them is the simulator's saving, not the
  // system's.
  const double bytes = shard_.bytes * static_cast<double>(batch->count);
  waiting_server_->put_init(batch, static_cast<std::uint64_t>(bytes))->detach([](void* p) {
    delete static_cast<PendingBatch*>(p);
  });
  waiting_server_ = nullptr;
}

void send_to_store(StatelessStore& store, StoreRequest* request, double bytes) {
  std::unique_ptr<StoreRequest> owned(request);
  store.server_inbox()->put(owned.get(), static_cast<std::uint64_t>(bytes));
  static_cast<void>(owned.release());
}

void serve_from_store(ParameterServer& server, StatelessStore& store, bool read_stored,
                      bool recovered,
                      const std::function<void(bool first_after_recovery)>& after_batch) {
  RunContext& context = store.context();
  sg4::Mailbox* inbox = server.mailbox();
  if (read_stored) {
    send_to_store(store, new StoreRequest{ReadParams{inbox}}, CONTROL_BYTES);
    const auto stored = inbox->get_unique<StateCopy>();
    server.restore(ServerState{stored->snapshot, stored->optimizer});
  }
  bool first = true;
  while (!context.stopping()) {
    send_to_store(store, new StoreRequest{TakePending{inbox}}, CONTROL_BYTES);
    auto batch = inbox->get_unique<PendingBatch>();
    const std::int64_t count = batch->count;
    store.received(count);
    const models::ApplyOutcome outcome = server.apply_batch(*batch, store.rule());
    store.recycle(*batch);
    if (context.stopping()) return;  // every other process is gone: nothing to publish to
    if (recovered && first) {
      FAILSIM_INFO(
          "{} applied {} of the {} gradients pending since the failure ({} dropped by the stale "
          "rule {}), learning rate {}",
          server.name(), outcome.applied, count, outcome.dropped,
          models::to_string(store.rule().rule), outcome.learning_rate);
    } else if (outcome.dropped > 0) {
      FAILSIM_VERBOSE("{}: the stale rule {} dropped {} of {} pending gradients", server.name(),
                      models::to_string(store.rule().rule), outcome.dropped, count);
    }
    if (recovered && first) {
      context.recorder.event(sg4::Engine::get_clock(), EventType::PENDING_APPLIED, server.name(),
                             {{"count", count},
                              {"applied", outcome.applied},
                              {"dropped", outcome.dropped},
                              {"learning_rate", outcome.learning_rate}});
    }
    after_batch(recovered && first);
    first = false;
  }
}

double state_bytes(const Shard& shard, const ServerState& state) {
  return state_bytes(shard.bytes, state.optimizer);
}

}  // namespace failsim::sim
