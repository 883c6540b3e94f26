#include "sim/ps/recovery/checkpoint/checkpoint_storage.hpp"

#include <simgrid/s4u.hpp>

#include "sim/engine/log.hpp"

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(checkpoint_storage, failsim, "checkpoint storage actor");

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

CheckpointStorage::CheckpointStorage(RunContext& context, const Shard& shard)
    : context_(context), shard_(shard), mailbox_(sg4::Mailbox::by_name(shard.name("storage"))) {
  if (shard.generation > 0) latest_ = StateCopy{shard.initial, shard.initial_optimizer, nullptr};
}

void CheckpointStorage::launch() {
  sg4::Actor::create(shard_.name("storage"), context_.roles.storage, [this] { serve(); });
}

double CheckpointStorage::bytes(const StateCopy& copy) const {
  return state_bytes(shard_.bytes, copy.optimizer);
}

void CheckpointStorage::serve() {
  mailbox_->set_receiver(sg4::Actor::self());
  sg4::Disk* disk = context_.roles.storage->get_disks().front();
  while (true) {
    std::unique_ptr<StorageMessage> message;
    try {
      message = mailbox_->get_unique<StorageMessage>();
    } catch (const simgrid::Exception&) {
      continue;  // the sender died mid-transfer
    }
    if (auto* copy = std::get_if<StateCopy>(message.get())) {
      const double start = sg4::Engine::get_clock();
      disk->write(static_cast<sg_size_t>(bytes(*copy)));
      context_.recorder.checkpointing(context_.roles.storage->get_name(), start,
                                      sg4::Engine::get_clock());
      latest_ = *copy;
      context_.recorder.event(sg4::Engine::get_clock(), EventType::CHECKPOINT_WRITTEN,
                              shard_.name("storage"), {{"version", copy->snapshot->version}});
      FAILSIM_VERBOSE("checkpoint of version {} written", copy->snapshot->version);
      if (copy->ack_to != nullptr) {
        copy->ack_to->put_init(new int(0), static_cast<std::uint64_t>(CONTROL_BYTES))
            ->detach([](void* p) { delete static_cast<int*>(p); });
      }
    } else {
      const auto& load = std::get<LoadCheckpoint>(*message);
      FAILSIM_VERBOSE("a server loads {}", latest_ ? fmt::format("the checkpoint of version {}",
                                                                 latest_->snapshot->version)
                                                   : "nothing: no checkpoint is written yet");
      double size = CONTROL_BYTES;
      if (latest_) {
        disk->read(static_cast<sg_size_t>(bytes(*latest_)));
        size = bytes(*latest_);
      }
      load.reply_to->put_init(new CheckpointReply{latest_}, static_cast<std::uint64_t>(size))
          ->detach([](void* p) { delete static_cast<CheckpointReply*>(p); });
    }
  }
}

}  // namespace failsim::sim
