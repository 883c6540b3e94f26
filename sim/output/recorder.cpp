#include "sim/output/recorder.hpp"

namespace failsim::sim {

const char* spelling(HostState state) {
  switch (state) {
    case HostState::BUSY:
      return "busy";
    case HostState::CHECKPOINTING:
      return "checkpointing";
    case HostState::RECOVERY_WAIT:
      return "recovery_wait";
    case HostState::DOWN:
      return "down";
  }
  return "?";
}

void Recorder::interval(const std::string& host, HostState state, double begin, double end) {
  if (!keep_intervals_ || !(end > begin)) return;
  // Back-to-back intervals of one state on one host are one row (a server applying updates in
  // a row, a worker computing without waiting): fewer rows, the same picture.
  for (auto it = intervals_.rbegin(); it != intervals_.rend() && it->end >= begin; ++it) {
    if (it->host == host && it->state == state && it->end == begin) {
      it->end = end;
      return;
    }
  }
  intervals_.push_back({host, state, begin, end});
}

void Recorder::event(double time, EventType type, std::string subject, nlohmann::json details) {
  events_.push_back({time, type, std::move(subject), std::move(details)});
}

void Recorder::update_applied(double time, const std::string& server, int shard) {
  ++updates_;
  ShardState& state = shard_state(shard);
  ++state.updates;
  if (!state.stalled_since) return;
  nlohmann::json details{{"stalled_since", *state.stalled_since},
                         {"stalled_for", time - *state.stalled_since}};
  if (state.after_resize) details["after_resize"] = true;
  event(time, EventType::TRAINING_RESUMED, server, std::move(details));
  state.stalled_since.reset();
  state.after_resize = false;
}

void Recorder::resized(int shards) {
  std::optional<double> since;
  for (ShardState& s : shards_) {
    if (s.stalled_since && (!since || *s.stalled_since < *since)) since = s.stalled_since;
    s.stalled_since.reset();
  }
  for (int k = 0; k < shards; ++k) {
    ShardState& s = shard_state(k);
    s.stalled_since = since;
    s.after_resize = since.has_value();
  }
}

void Recorder::evaluation(EvalRecord record) {
  if (loss_count_ > 0) record.train_loss = loss_sum_ / static_cast<double>(loss_count_);
  loss_sum_ = 0.0;
  loss_count_ = 0;
  record.gradients_computed = gradients_computed_;
  record.gradients_applied = gradients_applied_;
  evaluations_.push_back(record);
}

void Recorder::gradient_applied(std::int64_t staleness, float loss) {
  ++gradients_applied_;
  ++staleness_[staleness];
  loss_sum_ += loss;
  ++loss_count_;
}

}  // namespace failsim::sim
