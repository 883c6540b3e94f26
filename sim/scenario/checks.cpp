// The checks that involve several sections, run once every section is read; each is reported
// at the field a user would change.
#include <fmt/format.h>

#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

namespace {

// What the simulation does not do yet is refused here rather than crashing a run later.
void check_failures_simulated(const Scenario& s, const JsonLocation& root, bool has_failures,
                              const RecoveryStrategy& strategy) {
  if (s.cluster.kind == ClusterKind::PLATFORM && (has_failures || strategy.star_only)) {
    root.child("cluster")
        .child("platform")
        .fail(
            "the built-in star cluster when there are failures or a recovery strategy (the "
            "coordination service and the storage host need links of their own; platform files "
            "do not support them yet)",
            fmt::format("\"{}\"", s.cluster.platform.file));
  }
  for (std::size_t i = 0; i < s.failures.events.size(); ++i) {
    if (s.failures.events[i].target == FailureTarget::SERVER_LINK && strategy.uses_storage) {
      // Their servers' blocking transfers to the storage host do not survive a dead link yet.
      root.child("failures")
          .child("events")
          .child(i)
          .child("target")
          .fail(fmt::format("a target other than \"server_link\" with recovery strategy {} (a "
                            "server link failure is simulated with {} only)",
                            quoted_name(strategy.name),
                            strategies_with(
                                [](const RecoveryStrategy& other) { return !other.uses_storage; })),
                "\"server_link\"");
    }
    if (s.failures.events[i].target == FailureTarget::STORAGE) {
      root.child("failures")
          .child("events")
          .child(i)
          .child("target")
          .fail("\"server\", \"replica\" or \"worker\" (storage failures are not simulated yet)",
                "\"storage\"");
    }
  }
  for (std::size_t i = 0; i < s.failures.stochastic.size(); ++i) {
    if (s.failures.stochastic[i].target == FailureTarget::STORAGE) {
      root.child("failures")
          .child("stochastic")
          .child(i)
          .child("target")
          .fail("\"server\" or \"worker\" (storage failures are not simulated yet)", "\"storage\"");
    }
  }
}

// A scheduled failure the stop comes first would silently never happen (a sweep over failure
// times crossing the stop would tabulate failure-free runs under failure names).
void check_events_before_stop(const Scenario& s, const JsonLocation& root) {
  if (!s.failures.record_after_stop) {
    for (std::size_t i = 0; i < s.failures.events.size(); ++i) {
      const FailureEvent& e = s.failures.events[i];
      const JsonLocation event = root.child("failures").child("events").child(i);
      const char* allow =
          "; or \"after_stop\": \"record\" in failures to record it as not injected";
      if (e.at_time && s.stop.time && *e.at_time >= *s.stop.time) {
        event.child("at").fail(fmt::format("a time before stop.time = {} s (the run stops first){}",
                                           *s.stop.time, allow),
                               fmt::format("{}", *e.at_time));
      }
      if (e.at_update && s.stop.updates && *e.at_update > *s.stop.updates) {
        event.child("at_update")
            .fail(fmt::format("at most stop.updates = {} (the run stops first){}", *s.stop.updates,
                              allow),
                  std::to_string(*e.at_update));
      }
    }
  }
}

void check_server_evaluation(const Scenario& s, const JsonLocation& root,
                             const RecoveryStrategy& strategy) {
  if (s.timing.server_evaluation) {
    // A server evaluates the whole model; a shard's server holds a slice of it.
    const auto where = root.child("timing").child("server_evaluation");
    if (s.cluster.shards != 1) {
      where.fail("one server shard", fmt::format("cluster.servers.shards = {}", s.cluster.shards));
    }
    if (s.recovery.elastic_patience()) {
      where.fail("one server shard, so no elastic resume (it re-shards)",
                 std::string(strategy.elastic_setting));
    }
  }
}

/// The model kinds that take `input`, quoted: "\"softmax\", \"mlp\" and \"cnn\"".
std::string kinds_taking(models::ModelInput input) {
  std::vector<std::string> kinds;
  for (const auto& [spelling, kind] : models::MODEL_KINDS) {
    if (models::input_of(kind) == input) kinds.push_back(fmt::format("\"{}\"", spelling));
  }
  return join_and(kinds);
}

// A model of text reads windows of token ids, every other model numbers: the text data and a
// model of text go together, one way or the other.
void check_model_input(const Scenario& s, const JsonLocation& root) {
  const bool text_model = models::input_of(s.model.kind) == models::ModelInput::TOKENS;
  const bool text_data = s.data.kind == DatasetKind::TEXT;
  if (text_model && !text_data) {
    root.child("data").child("kind").fail(
        fmt::format("\"text\" for model kind \"{}\" (it reads windows of token ids)",
                    to_string(s.model.kind)),
        fmt::format("\"{}\"", to_string(s.data.kind)));
  }
  if (text_data && !text_model) {
    root.child("model").child("kind").fail(
        fmt::format("{} with data kind \"text\" (the others take numbers: an image or a vector)",
                    kinds_taking(models::ModelInput::TOKENS)),
        fmt::format("\"{}\"", to_string(s.model.kind)));
  }
}

}  // namespace

void check_between_sections(const Scenario& s, const JsonLocation& root) {
  check_model_input(s, root);
  if (s.model.kind == ModelKind::CNN && s.data.kind != DatasetKind::FASHION_MNIST) {
    root.child("model").child("kind").fail(
        "\"softmax\" or \"mlp\" with synthetic data (the CNN needs 28x28 images: use data kind "
        "\"fashion-mnist\")",
        "\"cnn\"");
  }

  // The sizes of the data against workers, batch and test subset are resolve()'s
  // (sim/scenario/resolve.hpp): they need the data set's real size.

  const bool has_failures = !s.failures.events.empty() || !s.failures.stochastic.empty();
  const RecoveryStrategy& strategy = s.recovery.kind();
  check_failures_simulated(s, root, has_failures, strategy);
  if (strategy.uses_store && s.consistency.mode != ConsistencyMode::ASYNC) {
    root.child("consistency")
        .child("mode")
        .fail(fmt::format("\"async\" with recovery strategy {} (its store applies whatever is "
                          "pending, as the study's stateless server did)",
                          quoted_name(strategy.name)),
              fmt::format("\"{}\"", to_string(s.consistency.mode)));
  }
  if (has_failures && !s.stop.time) {
    root.child("stop").child("time").fail(
        "a stop time when there are failures (a failure can make any other stop condition "
        "unreachable)",
        "nothing");
  }
  check_events_before_stop(s, root);
  check_server_evaluation(s, root, strategy);

  if (s.stop.target_accuracy && s.evaluation.interval == 0.0 && s.evaluation.every_updates == 0) {
    root.child("stop")
        .child("target_accuracy")
        .fail(
            "a target only with an evaluation schedule (evaluation.interval or "
            "evaluation.every_updates > 0) to detect it",
            fmt::format("{}", *s.stop.target_accuracy));
  }
}

}  // namespace failsim::sim::detail
