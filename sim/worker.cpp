#include "sim/worker.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(worker, failsim, "worker actors");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Worker::Worker(RunContext& context, int index)
    : context_(context), index_(index), batches_(context.math.batch_stream(index)) {}

void Worker::launch() {
  // A fresh mailbox per incarnation: answers addressed to a dead process are never read.
  inbox_ = sg4::Mailbox::by_name(fmt::format("worker-{}.{}", index_, incarnation_++));
  actor_ = sg4::Actor::create(fmt::format("worker-{}", index_),
                              context_.roles.workers[static_cast<std::size_t>(index_)],
                              [this] { run(); });
}

void Worker::finish(double end) {
  if (alive() && trouble_since_ >= 0) {
    context_.recorder.recovery_wait(
        context_.roles.workers[static_cast<std::size_t>(index_)]->get_name(), end - trouble_since_);
  }
}

void Worker::kill() {
  finish(sg4::Engine::get_clock());  // the wait so far was spent; a dead process waits no more
  trouble_since_ = -1;
  context_.recorder.gradients_lost(holding_);
  holding_ = 0;
  if (actor_) actor_->kill();
  actor_ = nullptr;
}

bool Worker::send(Endpoint& target, std::unique_ptr<ServerMessage> message, double bytes) {
  try {
    target.mailbox()->put(message.get(), static_cast<std::uint64_t>(bytes),
                          context_.scenario.failures.request_timeout);
  } catch (const simgrid::TimeoutException&) {
    return false;
  } catch (const simgrid::NetworkFailureException&) {
    return false;
  }
  // Ownership passed to the receiver only now; on failure the unique_ptr frees the message.
  message.release();
  return true;
}

std::unique_ptr<ParamsReply> Worker::pull(Endpoint& target, std::int64_t epoch) {
  while (true) {
    PullRequest request{index_, 0, ++requests_, inbox_};
    // Sync: the round after the last one this worker computed, within this epoch (a restarted
    // server may have rolled back to an older version).
    if (context_.scenario.consistency.mode == ConsistencyMode::SYNC &&
        min_version_epoch_ == epoch) {
      request.min_version = min_version_;
    }
    if (!send(target, std::make_unique<ServerMessage>(request), CONTROL_BYTES)) return nullptr;
    try {
      while (true) {
        auto reply = inbox_->get_unique<ParamsReply>(context_.scenario.failures.request_timeout);
        if (reply->request == request.request) return reply;  // else an answer to an abandoned pull
      }
    } catch (const simgrid::TimeoutException&) {
    } catch (const simgrid::NetworkFailureException&) {
    }
    // No answer in time. A deferred pull (sync, SSP) is answered late, not lost: while the
    // coordinator still names the same endpoint, ask again; otherwise give up on it.
    if (context_.coordinator.epoch() != epoch) return nullptr;
  }
}

void Worker::run() {
  const std::string& host = sg4::this_actor::get_host()->get_name();
  while (true) {
    Endpoint* target = context_.coordinator.primary();
    if (target == nullptr) {
      if (trouble_since_ < 0) trouble_since_ = sg4::Engine::get_clock();
      target = context_.coordinator.wait_for_primary(context_.coordinator.epoch());
    }
    const std::int64_t epoch = context_.coordinator.epoch();
    const double attempt = sg4::Engine::get_clock();
    const auto reply = pull(*target, epoch);
    if (!reply) {
      // Timed out or failed: the coordinator still names this endpoint until the failure is
      // detected, so the next attempt tries again and costs another timeout. A request that
      // failed at once (a dead link refuses it) waits that long too before the retry.
      if (trouble_since_ < 0) trouble_since_ = attempt;
      if (sg4::Engine::get_clock() == attempt) {
        sg4::this_actor::sleep_for(context_.scenario.failures.request_timeout);
      }
      continue;
    }
    if (trouble_since_ >= 0) {
      context_.recorder.recovery_wait(host, sg4::Engine::get_clock() - trouble_since_);
      trouble_since_ = -1;
    }
    const Snapshot& params = *reply->snapshot;
    min_version_ = params.version + 1;
    min_version_epoch_ = epoch;

    // The math runs on another thread while the computation is simulated (declared after
    // `grad`, so a worker killed meanwhile abandons the job before its buffer is freed).
    auto grad = context_.gradient_buffers.take();
    GradientJob computing;
    context_.math.start_gradient(computing, params, batches_.next(),
                                 context_.math.dropout_seed(index_, step_++), *grad);
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(context_.time.gradient_flops);
    const float loss = context_.math.finish_gradient(computing);
    context_.recorder.busy(host, sg4::Engine::get_clock() - start);
    context_.recorder.gradient_computed();
    holding_ = 1;

    auto push = std::make_unique<ServerMessage>(
        GradientPush{index_, params.version, loss, std::move(grad)});
    const double push_start = sg4::Engine::get_clock();
    const bool delivered = send(*target, std::move(push), context_.time.param_bytes);
    holding_ = 0;
    if (delivered) {
      target->delivered();
    } else {
      context_.recorder.gradients_lost(1);
      trouble_since_ = push_start;
    }
  }
}

}  // namespace failsim::sim
