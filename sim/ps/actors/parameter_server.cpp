#include "sim/ps/actors/parameter_server.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <span>

#include "sim/engine/log.hpp"
#include "sim/engine/optimizer_config.hpp"
#include "sim/ps/branching.hpp"
#include "sim/ps/observer.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(parameter_server, failsim, "parameter server actor");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

ParameterServer::ParameterServer(RunContext& context, ServerOwner& owner, ServerState initial,
                                 int incarnation, sg4::Host* host)
    : context_(context),
      owner_(owner),
      shard_(owner.shard()),
      name_(shard_.server_name(incarnation)),
      host_(host),
      inbox_(name_, context.scenario.cluster.num_workers()),
      optimizer_(make_optimizer(context.scenario.optimizer, initial.snapshot->params.size())),
      published_(std::move(initial.snapshot)),
      clocks_(static_cast<std::size_t>(context.scenario.cluster.num_workers()), 0),
      known_live_(clocks_.size()),
      combined_(published_->params.size()) {
  if (initial.optimizer) optimizer_.set_state(*initial.optimizer);
  // A replacement server starts from the coordinator's current view of the workers.
  for (std::size_t w = 0; w < known_live_.size(); ++w) {
    known_live_[w] = context.coordinator.worker_live(static_cast<int>(w));
  }
  combine_.rule = context.branching.combine() == GradientCombine::MEAN ? models::StaleRule::MEAN
                                                                       : models::StaleRule::SUM;
}

void ParameterServer::launch() {
  actor_ = sg4::Actor::create(name_, host_, [this] {
    inbox_.set_receiver(sg4::Actor::self());
    owner_.run_server(*this);
  });
}

void ParameterServer::delivered() {
  if (alive_) {
    ++delivered_;
  } else {
    context_.recorder.gradients_lost(1);
  }
}

void ParameterServer::kill() {
  if (!alive_) return;
  alive_ = false;
  FAILSIM_INFO("{} killed at version {}: {} gradients not yet applied are lost", name_, version(),
               unapplied());
  context_.recorder.gradients_lost(unapplied());
  for (GradientPush& push : round_) context_.gradient_buffers.give_back(std::move(push.grad));
  round_.clear();
  applying_ = 0;
  inbox_.set_receiver(nullptr);  // a dead receiver must not keep accepting transfers
  if (actor_) actor_->kill();
}

void ParameterServer::restore(const ServerState& state) {
  published_ = state.snapshot;
  if (state.optimizer) optimizer_.set_state(*state.optimizer);
  // A server that died in the blocking checkpoint of the last update left that version behind.
  stop_at_version();
}

void ParameterServer::stop_at_version() {
  const auto& target = context_.scenario.stop.version;
  if (target && version() >= *target) context_.request_stop("version");
}

std::int64_t ParameterServer::unapplied() const {
  // Messages that reached the mailbox but were not taken, and a sync round not yet applied.
  return delivered_ - consumed_ + static_cast<std::int64_t>(round_.size()) + applying_;
}

SnapshotPtr ParameterServer::snapshot() { return published_; }

ServerState ParameterServer::state() { return ServerState{snapshot(), optimizer_.state()}; }

std::int64_t ParameterServer::clock(int worker) const {
  return clocks_[static_cast<std::size_t>(worker)];
}

void ParameterServer::on_membership_changed() {
  // A worker back from a failure starts level with the slowest live one: SSP waits for
  // stragglers, not for the dead.
  std::int64_t slowest = -1;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (known_live_[w]) slowest = slowest < 0 ? clocks_[w] : std::min(slowest, clocks_[w]);
  }
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    const bool live = context_.coordinator.worker_live(static_cast<int>(w));
    if (live && !known_live_[w] && slowest >= 0) clocks_[w] = std::max(clocks_[w], slowest);
    known_live_[w] = live;
  }
  maybe_complete_round();
}

std::int64_t ParameterServer::slowest_clock() const {
  std::int64_t slowest = -1;
  for (std::size_t w = 0; w < clocks_.size(); ++w) {
    if (!context_.coordinator.worker_live(static_cast<int>(w))) continue;
    slowest = slowest < 0 ? clocks_[w] : std::min(slowest, clocks_[w]);
  }
  return slowest < 0 ? 0 : slowest;
}

bool ParameterServer::can_serve(const PullRequest& request) const {
  // Only sync asks for a round (branching.hpp: a family mixing sync and async splits here).
  if (version() < request.min_version && context_.branching.sync_here()) return false;
  if (context_.scenario.consistency.mode != ConsistencyMode::SSP) return true;
  return clock(request.worker) - slowest_clock() <= context_.scenario.consistency.bound;
}

void ParameterServer::reply(const PullRequest& request) {
  if (context_.scenario.consistency.mode == ConsistencyMode::SSP) {
    context_.recorder.clock_lead(clock(request.worker) - slowest_clock());
  }
  // Detached: the server goes on serving while the parameters travel; the receiver owns the
  // payload, and the clean-up function frees it if the transfer never completes.
  auto* payload = new ParamsReply{snapshot(), request.request};
  request.reply_to->put_init(payload, static_cast<std::uint64_t>(shard_.bytes))
      ->detach([](void* p) { delete static_cast<ParamsReply*>(p); });
}

void ParameterServer::defer(const PullRequest& request) {
  // A worker that timed out asks again: keep only its latest request.
  std::erase_if(deferred_, [&](const PullRequest& d) { return d.worker == request.worker; });
  deferred_.push_back(request);
}

void ParameterServer::serve_deferred() {
  for (auto it = deferred_.begin(); it != deferred_.end();) {
    if (can_serve(*it)) {
      reply(*it);
      it = deferred_.erase(it);
    } else {
      ++it;
    }
  }
}

models::ApplyOutcome ParameterServer::apply(std::vector<GradientPush>& pushes,
                                            const models::StaleRuleConfig& rule) {
  charge(static_cast<std::int64_t>(pushes.size()));
  pending_.clear();
  // The shard's slice of each gradient (S = 1: all of it).
  for (const GradientPush& push : pushes) {
    pending_.push_back(
        {std::span<const float>(*push.grad).subspan(shard_.range.offset, shard_.range.size),
         version() - push.base_version});
  }
  // The step writes the next version into a snapshot of its own: publishing it costs no copy.
  const std::shared_ptr<Snapshot> next = snapshots_.take(published_->params.size());
  const models::ApplyOutcome outcome = step(*next, rule);
  for (GradientPush& push : pushes) {
    record(version() - push.base_version, push.loss, rule);
    context_.gradient_buffers.give_back(std::move(push.grad));
  }
  pushes.clear();
  return publish(next, outcome);
}

models::ApplyOutcome ParameterServer::apply_batch(const PendingBatch& batch,
                                                  const models::StaleRuleConfig& rule) {
  applying_ = batch.count;
  charge(batch.count);
  pending_.clear();
  for (const PendingGroup& group : batch.groups) {
    pending_.push_back({*group.sum, version() - group.members.front().base_version,
                        static_cast<std::int64_t>(group.members.size())});
  }
  // The step writes the next version into a snapshot of its own: publishing it costs no copy.
  const std::shared_ptr<Snapshot> next = snapshots_.take(published_->params.size());
  const models::ApplyOutcome outcome = step(*next, rule);
  for (const PendingGroup& group : batch.groups) {
    for (const PendingGroup::Member& m : group.members) {
      record(version() - m.base_version, m.loss, rule);
    }
  }
  applying_ = 0;
  return publish(next, outcome);
}

void ParameterServer::evaluate_in_loop() {
  const auto& evaluation = context_.scenario.timing.server_evaluation;
  if (!evaluation || version() % evaluation->every_updates != 0) return;
  // Simulated time only: failsim measures accuracy outside simulated time (the observer).
  const double start = sg4::Engine::get_clock();
  sg4::this_actor::execute(evaluation->flops);
  context_.recorder.busy(host_->get_name(), start, sg4::Engine::get_clock());
}

void ParameterServer::charge(std::int64_t gradients) {
  const double start = sg4::Engine::get_clock();
  sg4::this_actor::execute(shard_.update_flops * static_cast<double>(gradients));
  context_.recorder.busy(host_->get_name(), start, sg4::Engine::get_clock());
}

models::ApplyOutcome ParameterServer::step(Snapshot& next, const models::StaleRuleConfig& rule) {
  return context_.math.timed([&] {
    return models::apply_pending(optimizer_, published_->params, next.params, pending_, rule,
                                 combined_);
  });
}

void ParameterServer::record(std::int64_t staleness, float loss,
                             const models::StaleRuleConfig& rule) {
  if (models::stale_weight(rule, staleness) == 0.0f) {
    context_.recorder.gradients_dropped(1);
  } else {
    context_.recorder.gradient_applied(staleness, loss);
  }
}

models::ApplyOutcome ParameterServer::publish(const std::shared_ptr<Snapshot>& next,
                                              const models::ApplyOutcome& outcome) {
  if (outcome.applied == 0) return outcome;
  next->version = version() + 1;
  next->gradients = gradients() + outcome.applied;
  published_ = next;
  context_.recorder.update_applied(sg4::Engine::get_clock(), name_, shard_.index);
  // The strategy's work for this update (checkpoint, replication) belongs to the update: a
  // failure scheduled "after update n" strikes once it is done.
  owner_.after_update(*this);
  context_.updates.after_update(shard_.index, context_.recorder.updates(shard_.index));
  evaluate_in_loop();
  // With shards, shard 0's versions set the evaluation schedule.
  const int every = context_.scenario.evaluation.every_updates;
  if (every > 0 && shard_.index == 0 && version() % every == 0 && Observer::evaluate_now(context_))
    return outcome;
  const auto& stop = context_.scenario.stop;
  if (stop.updates && context_.recorder.updates() >= *stop.updates)
    context_.request_stop("updates");
  stop_at_version();
  return outcome;
}

void ParameterServer::maybe_complete_round() {
  if (round_.empty()) return;
  // Async applies every gradient at once; sync waits for one of every live worker.
  if (static_cast<int>(round_.size()) >= context_.coordinator.live_workers() ||
      !context_.branching.sync_here())
    apply(round_, combine_);
}

void ParameterServer::on_gradient(GradientPush push) {
  clocks_[static_cast<std::size_t>(push.worker)] += 1;
  round_.push_back(std::move(push));
  maybe_complete_round();
}

void ParameterServer::serve_workers() {
  while (!context_.stopping()) {
    std::unique_ptr<ServerMessage> message;
    try {
      message = inbox_.get_unique<ServerMessage>();
    } catch (const simgrid::Exception&) {
      continue;  // a sender timed out or failed mid-transfer: that request is gone, not us
    }
    if (auto* pull = std::get_if<PullRequest>(message.get())) {
      if (can_serve(*pull)) {
        reply(*pull);
      } else {
        defer(*pull);
      }
      continue;
    }
    if (auto* push = std::get_if<GradientPush>(message.get())) {
      ++consumed_;
      on_gradient(std::move(*push));
    } else {
      on_membership_changed();
    }
    if (!context_.stopping()) serve_deferred();
  }
}

}  // namespace failsim::sim
