#include "sim/ps/actors/worker.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <functional>

#include "result_format/process_name.hpp"
#include "sim/engine/log.hpp"
#include "sim/ps/branching.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(worker, failsim, "worker actors");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Worker::Worker(RunContext& context, int index)
    : context_(context), index_(index), batches_(context.math.batch_stream(index)) {}

void Worker::launch() {
  const std::size_t shards = context_.shards.size();
  if (generation_ != context_.shards.front().generation) {
    // The first process, or the first after an elastic resize: new shards, nothing known yet.
    generation_ = context_.shards.front().generation;
    min_version_.assign(shards, 0);
    min_version_epoch_.assign(shards, -1);
    targets_.assign(shards, nullptr);
    epochs_.assign(shards, 0);
    replies_.clear();
    replies_.resize(shards);
    inboxes_.assign(shards, nullptr);
    lanes_.assign(shards, nullptr);
    lane_start_.assign(shards, nullptr);
  }
  // A fresh mailbox per incarnation: answers addressed to a dead process are never read.
  const int incarnation = incarnation_++;
  for (std::size_t k = 0; k < inboxes_.size(); ++k) {
    const std::string name = fmt::format("worker-{}.{}", index_, incarnation);
    inboxes_[k] = sg4::Mailbox::by_name(context_.shards[k].name(name));
  }
  actor_ = sg4::Actor::create(result_format::worker_name(index_),
                              context_.roles.workers[static_cast<std::size_t>(index_)],
                              [this] { run(); });
}

void Worker::finish(double end) {
  if (trouble_since_ >= 0) {
    context_.recorder.recovery_wait(
        context_.roles.workers[static_cast<std::size_t>(index_)]->get_name(), trouble_since_, end);
  }
}

void Worker::kill() {
  finish(sg4::Engine::get_clock());  // the wait so far was spent; a dead process waits no more
  trouble_since_ = -1;
  context_.recorder.gradients_lost(holding_);
  holding_ = 0;
  // Its lanes die with it (a pull or push cut short is lost, as without shards).
  for (sg4::ActorPtr& lane : lanes_) {
    if (lane) lane->kill();
    lane = nullptr;
  }
  if (actor_) actor_->kill();
  actor_ = nullptr;
}

void Worker::stop() {
  const double since = trouble_since_ >= 0 ? trouble_since_ : sg4::Engine::get_clock();
  trouble_since_ = -1;  // kill() records no wait: the next process records all of it
  kill();
  trouble_since_ = since;
}

bool Worker::send(Endpoint& target, std::unique_ptr<ServerMessage> message, double bytes) {
  try {
    target.put(index_, message.get(), static_cast<std::uint64_t>(bytes),
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

std::unique_ptr<ParamsReply> Worker::pull(Endpoint& target, int shard, std::int64_t epoch) {
  const auto k = static_cast<std::size_t>(shard);
  while (true) {
    PullRequest request{index_, 0, ++requests_, inboxes_[k]};
    // Sync: the round after the last one this worker computed, within this epoch (a restarted
    // server may have rolled back to an older version).
    if (context_.branching.may_sync() && min_version_epoch_[k] == epoch) {
      request.min_version = min_version_[k];
    }
    if (!send(target, std::make_unique<ServerMessage>(request), CONTROL_BYTES)) return nullptr;
    try {
      while (true) {
        auto reply =
            inboxes_[k]->get_unique<ParamsReply>(context_.scenario.failures.request_timeout);
        if (reply->request == request.request) return reply;  // else an answer to an abandoned pull
      }
    } catch (const simgrid::TimeoutException&) {
    } catch (const simgrid::NetworkFailureException&) {
    }
    // No answer in time. A deferred pull (sync, SSP) is answered late, not lost: while the
    // coordinator still names the same endpoint, ask again; otherwise give up on it.
    if (context_.coordinator.epoch(shard) != epoch) return nullptr;
    FAILSIM_VERBOSE("worker-{}: no parameters of shard {} within the request timeout: asking again",
                    index_, shard);
  }
}

std::unique_ptr<ParamsReply> Worker::acquire(int shard) {
  const auto k = static_cast<std::size_t>(shard);
  while (true) {
    Endpoint* target = context_.coordinator.primary(shard);
    if (target == nullptr) {
      if (trouble_since_ < 0) trouble_since_ = sg4::Engine::get_clock();
      target = context_.coordinator.wait_for_primary(shard, context_.coordinator.epoch(shard));
    }
    const std::int64_t epoch = context_.coordinator.epoch(shard);
    const double attempt = sg4::Engine::get_clock();
    auto reply = pull(*target, shard, epoch);
    if (reply) {
      targets_[k] = target;
      epochs_[k] = epoch;
      return reply;
    }
    // Timed out or failed: the coordinator still names this endpoint until the failure is
    // detected, so the next attempt tries again and costs another timeout. A request that
    // failed at once (a dead link refuses it) waits that long too before the retry.
    if (trouble_since_ < 0) trouble_since_ = attempt;
    FAILSIM_VERBOSE("worker-{}: the pull of shard {} failed after {:.3f} s: retrying", index_,
                    shard, sg4::Engine::get_clock() - attempt);
    if (sg4::Engine::get_clock() == attempt) {
      sg4::this_actor::sleep_for(context_.scenario.failures.request_timeout);
    }
  }
}

void Worker::start_lanes() {
  sg4::Host* host = sg4::this_actor::get_host();
  lanes_done_ = sg4::Semaphore::create(0);
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    lane_start_[k] = sg4::Semaphore::create(0);
    lanes_[k] = sg4::Actor::create(fmt::format("worker-{}.shard-{}", index_, k), host, [this, k] {
      // Semaphores cost no simulated time: the lane runs its task the moment it is given.
      const sg4::SemaphorePtr start = lane_start_[k];
      const sg4::SemaphorePtr done = lanes_done_;
      while (true) {
        start->acquire();
        (*lane_task_)(k);
        done->release();
      }
    });
  }
}

void Worker::for_each_shard(const std::function<void(std::size_t)>& task) {
  lane_task_ = &task;
  for (const sg4::SemaphorePtr& start : lane_start_) start->release();
  for (std::size_t k = 0; k < lanes_.size(); ++k) lanes_done_->acquire();
  lane_task_ = nullptr;
}

void Worker::acquire_all() {
  for_each_shard([this](std::size_t k) { replies_[k] = acquire(static_cast<int>(k)); });
}

const Snapshot& Worker::assemble() {
  assembled_.params.resize(context_.math.model().num_params());
  assembled_.version = assembled_.gradients = 0;
  for (std::size_t k = 0; k < replies_.size(); ++k) {
    const Snapshot& part = *replies_[k]->snapshot;
    assembled_.version += part.version;
    assembled_.gradients += part.gradients;
    std::copy(
        part.params.begin(), part.params.end(),
        assembled_.params.begin() + static_cast<std::ptrdiff_t>(context_.shards[k].range.offset));
  }
  return assembled_;
}

void Worker::push_all(const std::shared_ptr<models::FloatBuffer>& grad, float loss) {
  const double start = sg4::Engine::get_clock();
  // Each lane does what a worker does alone: one put within the request timeout. The
  // messages share the gradient's buffer.
  for_each_shard([&](std::size_t k) {
    auto push = std::make_unique<ServerMessage>(
        GradientPush{index_, replies_[k]->snapshot->version, loss, grad});
    const bool delivered = send(*targets_[k], std::move(push), context_.shards[k].bytes);
    --holding_;
    if (delivered) {
      targets_[k]->delivered();
    } else {
      FAILSIM_VERBOSE("worker-{}: the push to shard {} failed: its gradient is lost", index_, k);
      context_.recorder.gradients_lost(1);
      trouble_since_ = start;
    }
  });
}

void Worker::run() {
  const std::string& host = sg4::this_actor::get_host()->get_name();
  const bool sharded = replies_.size() > 1;
  if (sharded) start_lanes();
  while (true) {
    if (sharded) {
      acquire_all();
    } else {
      replies_[0] = acquire(0);
    }
    if (trouble_since_ >= 0) {
      context_.recorder.recovery_wait(host, trouble_since_, sg4::Engine::get_clock());
      trouble_since_ = -1;
    }
    for (std::size_t k = 0; k < replies_.size(); ++k) {
      min_version_[k] = replies_[k]->snapshot->version + 1;
      min_version_epoch_[k] = epochs_[k];
    }
    // Without shards the snapshot pulled is used as it is (no copy).
    const Snapshot& params = sharded ? assemble() : *replies_[0]->snapshot;

    // The math runs on another thread while the computation is simulated (declared after
    // `grad`, so a worker killed meanwhile abandons the job before its buffer is freed).
    auto grad = context_.gradient_buffers.take();
    GradientJob computing;
    context_.math.start_gradient(computing, params, batches_.next(),
                                 context_.math.dropout_seed(index_, step_++), *grad);
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(context_.time.gradient_flops);
    const float loss = context_.math.finish_gradient(computing);
    context_.recorder.busy(host, start, sg4::Engine::get_clock());
    // One count per slice: every shard applies, drops or loses its own.
    context_.recorder.gradient_computed(static_cast<std::int64_t>(replies_.size()));
    holding_ = static_cast<std::int64_t>(replies_.size());

    if (sharded) {
      push_all(grad, loss);
      continue;
    }
    auto push = std::make_unique<ServerMessage>(
        GradientPush{index_, params.version, loss, std::move(grad)});
    const double push_start = sg4::Engine::get_clock();
    const bool delivered = send(*targets_[0], std::move(push), context_.shards[0].bytes);
    holding_ = 0;
    if (delivered) {
      targets_[0]->delivered();
    } else {
      FAILSIM_VERBOSE("worker-{}: the push failed: its gradient is lost", index_);
      context_.recorder.gradients_lost(1);
      trouble_since_ = push_start;
    }
  }
}

}  // namespace failsim::sim
