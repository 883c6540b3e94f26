// The `failures` section: detection and restart times, scheduled failure events and random
// failure processes. Which targets a failure may hit is the recovery strategy's to say (a
// replica exists only in a chain, the storage host only where something is stored).
#include <fmt/format.h>

#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

const Choices<bool> AFTER_STOP{{"refuse", false}, {"record", true}};

/// A duration >= 0, or "forever" (nullopt).
std::optional<double> read_down_for(const ObjectReader& r) {
  const nlohmann::json* v = r.find("down_for");
  if (v == nullptr) return 0.0;
  if (v->is_string() && v->get_ref<const std::string&>() == "forever") return std::nullopt;
  try {
    return quantity_from_json(*v, Quantity::TIME, Sign::NON_NEGATIVE, r.at("down_for"));
  } catch (const InputError& e) {
    r.at("down_for").fail(e.expected() + ", or \"forever\" (the host never comes back)", e.found());
  }
}

namespace {

const Choices<FailureTarget> EVENT_TARGETS{
    {"server", FailureTarget::SERVER},           {"replica", FailureTarget::REPLICA},
    {"worker", FailureTarget::WORKER},           {"storage", FailureTarget::STORAGE},
    {"server_link", FailureTarget::SERVER_LINK}, {"worker_link", FailureTarget::WORKER_LINK}};
// A replica is a chain position "at that moment": random failures hit hosts, not positions.
const Choices<FailureTarget> STOCHASTIC_TARGETS{{"server", FailureTarget::SERVER},
                                                {"worker", FailureTarget::WORKER},
                                                {"storage", FailureTarget::STORAGE}};
// What a scheduled event the stop comes before means: a mistake, or a point of a sweep that
// crosses the stop (checks.cpp).

/// Whether the strategy has `target`: a replica is a chain position, and the storage host exists
/// only for the strategies that store something.
bool has_target(const RecoveryStrategy& strategy, FailureTarget target) {
  if (target == FailureTarget::REPLICA) return strategy.uses_chain;
  if (target == FailureTarget::STORAGE) return strategy.uses_storage;
  return true;
}

void check_target(FailureTarget target, const RecoveryStrategy& strategy, const JsonLocation& where,
                  const Choices<FailureTarget>& targets) {
  if (has_target(strategy, target)) return;
  std::string allowed;
  for (const auto& [spelling, value] : targets) {
    if (!has_target(strategy, value)) continue;
    allowed += fmt::format("{}\"{}\"", allowed.empty() ? "" : ", ", spelling);
  }
  const std::string why =
      target == FailureTarget::REPLICA
          ? "a replica is a chain position of " +
                strategies_with([](const RecoveryStrategy& s) { return s.uses_chain; })
          : "the storage host exists only with " +
                strategies_with([](const RecoveryStrategy& s) { return s.uses_storage; });
  where.fail(fmt::format("a target of recovery strategy {}: {} ({})", quoted_name(strategy.name),
                         allowed, why),
             fmt::format("\"{}\"", spelling_of(target, targets)));
}

/// The required index of a worker or a chain position, in [0, count).
int read_index(const ObjectReader& r, std::string_view noun, int count, std::string_view counted) {
  const std::string expected =
      fmt::format("{} in [0, {}] (the cluster has {} {})", noun, count - 1, count, counted);
  const std::int64_t i = read_integer(r.require("index", expected), r.at("index"), 0, INT_LIMIT);
  if (i >= count) r.at("index").fail(expected, std::to_string(i));
  return to_int(i);
}

FailureEvent read_failure_event(const nlohmann::json& v, const JsonLocation& where,
                                const ClusterConfig& cluster, const RecoveryStrategy& strategy) {
  const ObjectReader r(v, where, {"target", "index", "shard", "at", "at_update", "down_for"});
  FailureEvent e;
  e.target = r.choice("target", EVENT_TARGETS);
  check_target(e.target, strategy, r.at("target"), EVENT_TARGETS);
  if (e.target == FailureTarget::SERVER || e.target == FailureTarget::REPLICA ||
      e.target == FailureTarget::SERVER_LINK) {
    if (r.has("shard")) {
      const std::string expected = fmt::format(
          "a shard index in [0, {}] (cluster.servers.shards "
          "is {})",
          cluster.shards - 1, cluster.shards);
      const std::int64_t k = read_integer(*r.find("shard"), r.at("shard"), 0, INT_LIMIT);
      if (k >= cluster.shards) r.at("shard").fail(expected, std::to_string(k));
      e.shard = to_int(k);
    }
  } else {
    r.forbid("shard",
             "only targets \"server\", \"replica\" and \"server_link\" belong to a "
             "shard");
  }
  if (e.target == FailureTarget::WORKER || e.target == FailureTarget::WORKER_LINK) {
    e.index = read_index(r, "a worker index", cluster.num_workers(), "workers");
  } else if (e.target == FailureTarget::REPLICA) {
    e.index = read_index(r, "a chain position (0 = head)", cluster.num_servers(), "servers");
  } else {
    r.forbid("index", e.target == FailureTarget::STORAGE ? "there is one storage host"
                      : e.target == FailureTarget::SERVER
                          ? "target \"server\" is whichever server is the primary at that moment"
                          : "target \"server_link\" is the link of the primary at that moment");
  }
  if (r.has("at") && r.has("at_update")) {
    r.at("at_update")
        .fail("either 'at' (a time) or 'at_update' (an update count)", "both 'at' and 'at_update'");
  }
  if (r.has("at")) {
    e.at_time = r.quantity("at", Quantity::TIME, Sign::NON_NEGATIVE);
  } else if (r.has("at_update")) {
    e.at_update = r.integer("at_update", 1);
  } else {
    r.location().fail("'at' (a time) or 'at_update' (an update count): when the failure happens",
                      "neither");
  }
  e.down_for = read_down_for(r);
  return e;
}

StochasticFailures read_stochastic(const nlohmann::json& v, const JsonLocation& where,
                                   const RecoveryStrategy& strategy) {
  const ObjectReader r(v, where, {"target", "lifetime", "repair"});
  StochasticFailures f;
  f.target = r.choice("target", STOCHASTIC_TARGETS);
  check_target(f.target, strategy, r.at("target"), STOCHASTIC_TARGETS);
  // A lifetime of 0 would fail a process again the instant it is repaired; a repair of 0 is
  // a process crash on a host that stays up.
  f.lifetime = read_distribution(r, "lifetime", Sign::POSITIVE);
  f.repair = read_distribution(r, "repair", Sign::NON_NEGATIVE);
  return f;
}

}  // namespace

FailureConfig read_failures(const ObjectReader& top, const ClusterConfig& cluster,
                            const RecoveryStrategy& strategy) {
  const ObjectReader r =
      top.object_or_empty("failures", {"detection_timeout", "restart_delay", "request_timeout",
                                       "events", "stochastic", "after_stop"});
  FailureConfig f;
  f.detection_timeout =
      r.quantity_or("detection_timeout", f.detection_timeout, Quantity::TIME, Sign::POSITIVE);
  f.restart_delay =
      r.quantity_or("restart_delay", f.restart_delay, Quantity::TIME, Sign::NON_NEGATIVE);
  f.request_timeout =
      r.quantity_or("request_timeout", f.request_timeout, Quantity::TIME, Sign::POSITIVE);
  f.record_after_stop = r.choice_or("after_stop", f.record_after_stop, AFTER_STOP);
  if (r.has("events")) {
    f.events = r.list("events", 0, "failure events (objects)",
                      [&](const nlohmann::json& v, const JsonLocation& where) {
                        return read_failure_event(v, where, cluster, strategy);
                      });
  }
  if (r.has("stochastic")) {
    f.stochastic = r.list("stochastic", 0, "stochastic failure processes (objects)",
                          [&](const nlohmann::json& v, const JsonLocation& where) {
                            return read_stochastic(v, where, strategy);
                          });
  }
  // Two processes for one role would be one process with the shorter lifetime and an
  // ambiguous repair: one entry per target.
  for (std::size_t i = 0; i < f.stochastic.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (f.stochastic[i].target != f.stochastic[j].target) continue;
      const std::string target = spelling_of(f.stochastic[i].target, STOCHASTIC_TARGETS);
      r.at("stochastic")
          .child(i)
          .child("target")
          .fail(fmt::format("at most one entry per target (entry {} is already \"{}\")", j, target),
                "\"" + target + "\"");
    }
  }
  return f;
}

nlohmann::json failures_to_json(const FailureConfig& f) {
  using nlohmann::json;
  json events = json::array();
  for (const FailureEvent& e : f.events) {
    json event{{"target", spelling_of(e.target, EVENT_TARGETS)}};
    if (e.target == FailureTarget::WORKER || e.target == FailureTarget::REPLICA) {
      event["index"] = e.index;
    }
    if (e.shard != 0) event["shard"] = e.shard;
    if (e.at_time) {
      event["at"] = *e.at_time;
    } else if (e.at_update) {
      event["at_update"] = *e.at_update;
    }
    event["down_for"] = e.down_for ? json(*e.down_for) : json("forever");
    events.push_back(event);
  }
  json stochastic = json::array();
  for (const StochasticFailures& p : f.stochastic) {
    stochastic.push_back({{"target", spelling_of(p.target, STOCHASTIC_TARGETS)},
                          {"lifetime", distribution_to_json(p.lifetime)},
                          {"repair", distribution_to_json(p.repair)}});
  }
  return json{{"detection_timeout", f.detection_timeout},
              {"restart_delay", f.restart_delay},
              {"request_timeout", f.request_timeout},
              {"events", events},
              {"stochastic", stochastic},
              {"after_stop", spelling_of(f.record_after_stop, AFTER_STOP)}};
}

}  // namespace failsim::sim::detail

namespace failsim::sim {
std::string to_string(FailureTarget target) {
  return input::spelling_of(target, detail::EVENT_TARGETS);
}
}  // namespace failsim::sim
