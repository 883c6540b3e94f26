// Everything a run measures, recorded as the simulation goes: evaluations (the time series),
// events, staleness of every applied gradient, gradient counts, busy time per host.
// Engine-free: callers pass the simulated time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result_format/event_type.hpp"

namespace failsim::sim {

/// Events are recorded by type; result files spell them (result_format/event_type.hpp).
using EventType = result_format::EventType;

struct EvalRecord {
  double time = 0.0;         ///< simulated seconds
  std::int64_t version = 0;  ///< parameter version evaluated
  double test_accuracy = 0.0;
  double test_loss = 0.0;
  /// Mean training loss of the gradients applied since the previous evaluation (none: nullopt).
  std::optional<double> train_loss;
  int test_samples = 0;
  /// A language model's tokens the evaluated parameters were trained on (timeseries.csv's
  /// `tokens`); none for a classifier.
  std::optional<double> tokens;
  /// Cumulative counts when the evaluation was taken (filled in by Recorder::evaluation).
  std::int64_t gradients_computed = 0;
  std::int64_t gradients_applied = 0;
};

/// What a host does during a recorded interval (intervals.csv, docs/result-format.md).
enum class HostState { BUSY, CHECKPOINTING, RECOVERY_WAIT, DOWN };

/// Its spelling in intervals.csv.
const char* spelling(HostState state);

/// One interval of a host's time in one state (recorded only with output.intervals).
struct IntervalRecord {
  std::string host;
  HostState state = HostState::BUSY;
  double begin = 0.0;  ///< simulated seconds
  double end = 0.0;
};

struct EventRecord {
  double time = 0.0;
  EventType type = EventType::START;
  std::string subject;  ///< actor or host concerned, "" for the run
  nlohmann::json details = nlohmann::json::object();
};

class Recorder {
 public:
  void event(double time, EventType type, std::string subject,
             nlohmann::json details = nlohmann::json::object());
  void evaluation(EvalRecord record);
  /// A worker computed a gradient: `slices` counts, one per shard it goes to (with sharded
  /// servers every gradient count is in shard slices: docs/result-format.md).
  void gradient_computed(std::int64_t slices = 1) { gradients_computed_ += slices; }
  /// One gradient entered an update with this staleness and training loss.
  void gradient_applied(std::int64_t staleness, float loss);
  /// Shard `shard`'s server `server` applied an update at `time` (one of the run's updates);
  /// the first one of that shard after a stall records `training_resumed` (the end of the
  /// outage the tables call recovery time).
  void update_applied(double time, const std::string& server, int shard = 0);
  /// Shard `shard`'s server process died at `time`: its parameters stop moving until its next
  /// update (the first death of an outage counts; later ones before any update of that shard
  /// extend the same stall).
  void training_stalled(double time, int shard = 0) {
    std::optional<double>& since = shard_state(shard).stalled_since;
    if (!since) since = time;
  }
  /// An elastic job resized to `shards` shards (sim/ps/job.hpp): the earliest stall of any shard
  /// (the outage that made it resize) becomes every new shard's, and their first updates
  /// record `training_resumed` with `after_resize`.
  void resized(int shards);
  /// Gradients computed but never applied because of a failure.
  void gradients_lost(std::int64_t n) { gradients_lost_ += n; }
  /// Gradients a stale-gradient rule discarded on purpose.
  void gradients_dropped(std::int64_t n) { gradients_dropped_ += n; }
  /// Applied updates undone by a rollback (e.g. to an older checkpoint), and the gradients they
  /// held.
  void rolled_back(std::int64_t updates, std::int64_t gradients) {
    updates_rolled_back_ += updates;
    gradients_rolled_back_ += gradients;
  }
  /// A host's process waited for a failed server to be replaced from `begin` to `end`.
  void recovery_wait(const std::string& host, double begin, double end) {
    recovery_wait_[host] += end - begin;
    interval(host, HostState::RECOVERY_WAIT, begin, end);
  }
  /// A host was down from `begin` to `end`, `seconds` in all (passed on its own: the outage's
  /// length as scheduled, which `end - begin` may miss by a rounding).
  void down(const std::string& host, double seconds, double begin, double end) {
    down_[host] += seconds;
    interval(host, HostState::DOWN, begin, end);
  }
  /// SSP: a worker was allowed to start a gradient `lead` clocks ahead of the slowest worker.
  void clock_lead(std::int64_t lead) {
    max_clock_lead_ = std::max(max_clock_lead_.value_or(lead), lead);
  }
  /// A host computed from `begin` to `end` (simulated seconds): its busy account.
  void busy(const std::string& host, double begin, double end) {
    busy_[host] += end - begin;
    interval(host, HostState::BUSY, begin, end);
  }
  /// A host wrote a checkpoint, or waited for one to be written, from `begin` to `end`
  /// (intervals.csv only: it is not a summary account).
  void checkpointing(const std::string& host, double begin, double end) {
    interval(host, HostState::CHECKPOINTING, begin, end);
  }
  /// Keep every interval from now on (output.intervals): off by default, so a run that does
  /// not ask for intervals.csv pays one branch per interval.
  void keep_intervals() { keep_intervals_ = true; }

  const std::vector<EvalRecord>& evaluations() const { return evaluations_; }
  const std::vector<EventRecord>& events() const { return events_; }
  /// The intervals kept (with keep_intervals), in the order they ended.
  const std::vector<IntervalRecord>& intervals() const { return intervals_; }
  std::int64_t gradients_computed() const { return gradients_computed_; }
  std::int64_t gradients_applied() const { return gradients_applied_; }
  /// Updates applied by every shard's servers together.
  std::int64_t updates() const { return updates_; }
  /// Updates applied by shard `shard`'s servers.
  std::int64_t updates(int shard) const {
    const auto k = static_cast<std::size_t>(shard);
    return k < shards_.size() ? shards_[k].updates : 0;
  }
  /// staleness -> number of applied gradients with it.
  const std::map<std::int64_t, std::int64_t>& staleness() const { return staleness_; }
  const std::map<std::string, double>& busy_seconds() const { return busy_; }
  std::optional<std::int64_t> max_clock_lead() const { return max_clock_lead_; }
  std::int64_t gradients_lost() const { return gradients_lost_; }
  /// When training stalled without an update since (a shard's server died, or the job resized
  /// and has not resumed), the earliest such moment among the shards; nullopt when every shard
  /// is moving. A stall is what the tables call an outage.
  std::optional<double> stalled_since() const {
    std::optional<double> since;
    for (const ShardState& s : shards_) {
      if (s.stalled_since && (!since || *s.stalled_since < *since)) since = s.stalled_since;
    }
    return since;
  }
  std::int64_t gradients_dropped() const { return gradients_dropped_; }
  std::int64_t updates_rolled_back() const { return updates_rolled_back_; }
  std::int64_t gradients_rolled_back() const { return gradients_rolled_back_; }
  const std::map<std::string, double>& recovery_wait_seconds() const { return recovery_wait_; }
  const std::map<std::string, double>& down_seconds() const { return down_; }

 private:
  std::vector<EvalRecord> evaluations_;
  std::vector<EventRecord> events_;
  void interval(const std::string& host, HostState state, double begin, double end);
  bool keep_intervals_ = false;
  std::vector<IntervalRecord> intervals_;
  std::int64_t gradients_computed_ = 0;
  std::int64_t gradients_applied_ = 0;
  std::int64_t updates_ = 0;
  struct ShardState {
    std::int64_t updates = 0;
    std::optional<double> stalled_since;  // its server died and it has applied no update since
    bool after_resize = false;            // ...or the job resized since
  };
  ShardState& shard_state(int shard) {
    const auto k = static_cast<std::size_t>(shard);
    if (k >= shards_.size()) shards_.resize(k + 1);
    return shards_[k];
  }
  std::vector<ShardState> shards_;
  std::map<std::int64_t, std::int64_t> staleness_;
  std::map<std::string, double> busy_;
  std::optional<std::int64_t> max_clock_lead_;
  std::int64_t gradients_lost_ = 0;
  std::int64_t gradients_dropped_ = 0;
  std::int64_t updates_rolled_back_ = 0;
  std::int64_t gradients_rolled_back_ = 0;
  std::map<std::string, double> recovery_wait_;
  std::map<std::string, double> down_;
  double loss_sum_ = 0.0;  // training losses since the last evaluation
  std::int64_t loss_count_ = 0;
};

}  // namespace failsim::sim
