#include "sim/worker.hpp"

#include <fmt/core.h>

#include <simgrid/s4u.hpp>

#include "sim/messages.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(worker, failsim, "worker actors");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

Worker::Worker(RunContext& context, int index)
    : context_(context), index_(index), batches_(context.math.batch_stream(index)) {}

void Worker::send(std::unique_ptr<ServerMessage> message, double bytes) {
  // Ownership passes to the server only once the transfer completed; if this actor is killed
  // mid-transfer, the unique_ptr still frees the message.
  context_.server_mailbox->put(message.get(), static_cast<std::uint64_t>(bytes));
  message.release();
}

void Worker::operator()() {
  sg4::Mailbox* inbox = sg4::Mailbox::by_name(fmt::format("worker-{}", index_));
  const std::string& host = sg4::this_actor::get_host()->get_name();
  const bool sync = context_.scenario.consistency.mode == ConsistencyMode::SYNC;
  std::int64_t min_version = 0;
  for (std::int64_t step = 0;; ++step) {
    send(std::make_unique<ServerMessage>(PullRequest{index_, min_version, step, inbox}), CONTROL_BYTES);
    const auto reply = inbox->get_unique<ParamsReply>();
    const Snapshot& params = *reply->snapshot;
    if (sync) min_version = params.version + 1;

    auto grad = context_.gradient_buffers.take();
    const float loss = context_.math.gradient(params, batches_.next(), context_.math.dropout_seed(index_, step), *grad);
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(context_.time.gradient_flops);
    context_.recorder.busy(host, sg4::Engine::get_clock() - start);
    context_.recorder.gradient_computed();

    send(std::make_unique<ServerMessage>(GradientPush{index_, params.version, loss, std::move(grad)}),
         context_.time.param_bytes);
  }
}

}  // namespace failsim::sim
