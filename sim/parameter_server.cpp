#include "sim/parameter_server.hpp"

#include "sim/observer.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(parameter_server, failsim, "parameter server actor");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
models::SgdConfig sgd_config(const OptimizerConfig& o) {
  models::SgdConfig c;
  c.learning_rate = static_cast<float>(o.learning_rate);
  c.momentum = static_cast<float>(o.momentum);
  c.weight_decay = static_cast<float>(o.weight_decay);
  return c;
}
}  // namespace

ParameterServer::ParameterServer(RunContext& context, SnapshotPtr initial, int num_workers)
    : context_(context),
      params_(initial->params),
      sgd_(sgd_config(context.scenario.optimizer), initial->params.size()),
      version_(initial->version),
      published_(std::move(initial)),
      clocks_(static_cast<std::size_t>(num_workers), 0),
      combined_(params_.size()) {}

SnapshotPtr ParameterServer::snapshot() {
  if (published_->version != version_) {
    auto fresh = std::make_shared<Snapshot>();
    fresh->version = version_;
    fresh->params = params_;
    published_ = std::move(fresh);
  }
  return published_;
}

bool ParameterServer::can_serve(const PullRequest& request) const {
  if (version_ < request.min_version) return false;
  if (context_.scenario.consistency.mode != ConsistencyMode::SSP) return true;
  return request.clock - slowest_clock() <= context_.scenario.consistency.bound;
}

std::int64_t ParameterServer::slowest_clock() const {
  return *std::min_element(clocks_.begin(), clocks_.end());
}

void ParameterServer::reply(const PullRequest& request) {
  // Detached: the server goes on serving while the parameters travel; the receiver owns the
  // payload, and the clean-up function frees it if the transfer never completes.
  if (context_.scenario.consistency.mode == ConsistencyMode::SSP) {
    context_.recorder.clock_lead(request.clock - slowest_clock());
  }
  auto* payload = new ParamsReply{snapshot()};
  request.reply_to->put_init(payload, static_cast<std::uint64_t>(context_.time.param_bytes))
      ->detach([](void* p) { delete static_cast<ParamsReply*>(p); });
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

void ParameterServer::apply(std::vector<GradientPush>& pushes) {
  const double start = sg4::Engine::get_clock();
  sg4::this_actor::execute(context_.time.update_flops * static_cast<double>(pushes.size()));
  context_.recorder.busy(sg4::this_actor::get_host()->get_name(), sg4::Engine::get_clock() - start);

  models::StaleRuleConfig rule;
  rule.rule = context_.scenario.consistency.combine == GradientCombine::MEAN ? models::StaleRule::MEAN
                                                                              : models::StaleRule::SUM;
  pending_.clear();
  for (const GradientPush& push : pushes) pending_.push_back({*push.grad, version_ - push.base_version});
  models::apply_pending(sgd_, params_, pending_, rule, combined_);
  for (GradientPush& push : pushes) {
    context_.recorder.gradient_applied(version_ - push.base_version, push.loss);
    context_.gradient_buffers.give_back(std::move(push.grad));
  }
  ++version_;
  context_.recorder.update_applied();
  pushes.clear();
  const int every = context_.scenario.evaluation.every_updates;
  if (every > 0 && version_ % every == 0 && Observer::evaluate_now(context_)) return;
  const auto& stop = context_.scenario.stop;
  if (stop.updates && version_ >= *stop.updates) context_.request_stop("updates");
}

void ParameterServer::on_gradient(GradientPush push) {
  clocks_[static_cast<std::size_t>(push.worker)] += 1;
  round_.push_back(std::move(push));
  const bool sync = context_.scenario.consistency.mode == ConsistencyMode::SYNC;
  if (!sync || round_.size() == clocks_.size()) apply(round_);
}

void ParameterServer::operator()() {
  context_.server_mailbox->set_receiver(sg4::Actor::self());
  while (!context_.stopping()) {
    auto message = context_.server_mailbox->get_unique<ServerMessage>();
    if (auto* pull = std::get_if<PullRequest>(message.get())) {
      if (can_serve(*pull)) {
        reply(*pull);
      } else {
        deferred_.push_back(*pull);
      }
    } else {
      on_gradient(std::move(std::get<GradientPush>(*message)));
      serve_deferred();
    }
  }
}

}  // namespace failsim::sim
