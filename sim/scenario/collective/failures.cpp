// The collective protocol's `failures` section: how a failure is detected, scheduled failures of
// an accelerator, node, NIC, leaf switch, rack or power domain, random failures of every
// component of a kind, and stragglers (docs/cluster.md, "Failures").
#include <fmt/format.h>

#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<ClusterTarget> TARGETS{{"accelerator", ClusterTarget::ACCELERATOR},
                                     {"node", ClusterTarget::NODE},
                                     {"nic", ClusterTarget::NIC},
                                     {"switch", ClusterTarget::SWITCH},
                                     {"rack", ClusterTarget::RACK},
                                     {"power", ClusterTarget::POWER}};
const Choices<ClusterTarget> STRAGGLER_TARGETS{{"accelerator", ClusterTarget::ACCELERATOR},
                                               {"node", ClusterTarget::NODE}};
const Choices<DetectionKind> DETECTIONS{{"watchdog", DetectionKind::WATCHDOG},
                                        {"heartbeat", DetectionKind::HEARTBEAT}};

/// The components of `target`, as messages name them.
std::string_view noun(ClusterTarget target) {
  switch (target) {
    case ClusterTarget::ACCELERATOR:
      return "accelerators";
    case ClusterTarget::NODE:
    case ClusterTarget::NIC:
      return "nodes";
    case ClusterTarget::SWITCH:
      return "leaf switches";
    case ClusterTarget::RACK:
      return "racks";
    case ClusterTarget::POWER:
      return "power domains";
  }
  return "";
}

int read_component(const ObjectReader& r, ClusterTarget target, const ClusterPlatformConfig& p) {
  const int count = component_count(target, p);
  const std::string expected =
      fmt::format("an index in [0, {}] (the platform has {} {})", count - 1, count, noun(target));
  const std::int64_t i = read_integer(r.require("index", expected), r.at("index"), 0, INT_LIMIT);
  if (i >= count) r.at("index").fail(expected, std::to_string(i));
  return to_int(i);
}

ClusterFailureEvent read_event(const nlohmann::json& v, const JsonLocation& where,
                               const ClusterPlatformConfig& p) {
  const ObjectReader r(v, where, {"target", "index", "at", "down_for"});
  ClusterFailureEvent e;
  e.target = r.choice("target", TARGETS);
  e.index = read_component(r, e.target, p);
  e.at = r.quantity("at", Quantity::TIME, Sign::NON_NEGATIVE);
  e.down_for = read_down_for(r);
  return e;
}

/// A failures.stochastic entry: every component of a kind failing at random.
ClusterStochasticFailures read_stochastic(const nlohmann::json& v, const JsonLocation& where) {
  const ObjectReader s(v, where, {"target", "lifetime", "repair", "heterogeneity"});
  ClusterStochasticFailures out;
  out.target = s.choice("target", TARGETS);
  out.lifetime = read_distribution(s, "lifetime", Sign::POSITIVE);
  out.repair = read_distribution(s, "repair", Sign::NON_NEGATIVE);
  if (s.has("heterogeneity")) out.heterogeneity = read_heterogeneity(s);
  return out;
}

StragglerEvent read_straggler(const nlohmann::json& v, const JsonLocation& where,
                              const ClusterPlatformConfig& p) {
  const ObjectReader r(v, where, {"target", "index", "from", "to", "slowdown"});
  StragglerEvent s;
  s.target = r.choice("target", STRAGGLER_TARGETS);
  s.index = read_component(r, s.target, p);
  s.from = r.quantity("from", Quantity::TIME, Sign::NON_NEGATIVE);
  s.to = r.quantity("to", Quantity::TIME, Sign::POSITIVE);
  if (s.to <= s.from) {
    r.at("to").fail(fmt::format("a time after 'from' ({} s)", s.from), describe_found(v.at("to")));
  }
  s.slowdown = r.number("slowdown", Interval{1.0, 1e6, true, false});
  return s;
}

}  // namespace

const Choices<ClusterTarget>& cluster_targets() { return TARGETS; }

namespace {

/// failures.detection: a watchdog's timeout or a heartbeat's interval and misses.
void read_detection(const ObjectReader& r, ClusterFailureConfig& f) {
  const ObjectReader d = r.object_or_empty("detection", {"kind", "timeout", "interval", "misses"});
  f.detection.kind = d.choice_or("kind", f.detection.kind, DETECTIONS);
  if (f.detection.kind == DetectionKind::WATCHDOG) {
    for (const char* k : {"interval", "misses"})
      d.forbid(k, "it applies only to kind \"heartbeat\"");
    f.detection.timeout =
        d.quantity_or("timeout", f.detection.timeout, Quantity::TIME, Sign::POSITIVE);
  } else {
    d.forbid("timeout", "it applies only to kind \"watchdog\"");
    f.detection.interval =
        d.quantity_or("interval", f.detection.interval, Quantity::TIME, Sign::POSITIVE);
    f.detection.misses = to_int(d.integer_or("misses", f.detection.misses, 1, 1'000'000));
  }
}

/// Fails at the first entry of `key` whose target an earlier entry has: one entry per target.
template <class Entry>
void check_one_per_target(const ObjectReader& r, std::string_view key,
                          const std::vector<Entry>& entries) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (entries[i].target != entries[j].target) continue;
      const std::string target = spelling_of(entries[i].target, TARGETS);
      r.at(key).child(i).child("target").fail(
          fmt::format("at most one entry per target (entry {} is already \"{}\")", j, target),
          "\"" + target + "\"");
    }
  }
}

/// failures.rates: a rate table, whose kinds may not have a failures.stochastic entry too.
void read_rates(const ObjectReader& r, ClusterFailureConfig& f, const std::string& file_label) {
  if (r.has("rates")) {
    f.rates = read_cluster_rates(r, file_label);
    // One process per kind: a kind the table counts may not have a stochastic entry too.
    for (const ClusterStochasticFailures& from_table : f.rates->processes) {
      for (std::size_t i = 0; i < f.stochastic.size(); ++i) {
        if (f.stochastic[i].target != from_table.target) continue;
        const std::string target = spelling_of(from_table.target, TARGETS);
        r.at("rates").child("file").fail(
            fmt::format("a rate table without \"{}\" causes (failures.stochastic entry {} is "
                        "already \"{}\": one random process per kind)",
                        target, i, target),
            fmt::format("\"{}\" (counting \"{}\" causes)", f.rates->file, target));
      }
    }
  }
}

/// failures.stragglers and failures.stochastic_stragglers.
void read_stragglers(const ObjectReader& r, ClusterFailureConfig& f,
                     const ClusterPlatformConfig& p) {
  if (r.has("stragglers")) {
    f.stragglers = r.list("stragglers", 0, "stragglers (objects)",
                          [&](const nlohmann::json& v, const JsonLocation& where) {
                            return read_straggler(v, where, p);
                          });
  }
  if (r.has("stochastic_stragglers")) {
    f.stochastic_stragglers =
        r.list("stochastic_stragglers", 0, "random straggler processes (objects)",
               [&](const nlohmann::json& v, const JsonLocation& where) {
                 const ObjectReader s(v, where, {"target", "every", "duration", "slowdown"});
                 StochasticStragglers out;
                 out.target = s.choice("target", STRAGGLER_TARGETS);
                 out.every = read_distribution(s, "every", Sign::POSITIVE);
                 out.duration = read_distribution(s, "duration", Sign::POSITIVE);
                 out.slowdown = s.number("slowdown", Interval{1.0, 1e6, true, false});
                 return out;
               });
  }
  check_one_per_target(r, "stochastic_stragglers", f.stochastic_stragglers);
}

}  // namespace

ClusterFailureConfig read_cluster_failures(const ObjectReader& top, const ClusterPlatformConfig& p,
                                           const std::string& file_label) {
  const ObjectReader r =
      top.object_or_empty("failures", {"detection", "events", "stochastic", "trace", "rates",
                                       "stragglers", "stochastic_stragglers", "after_stop"});
  ClusterFailureConfig f;
  read_detection(r, f);
  f.record_after_stop = r.choice_or("after_stop", f.record_after_stop, AFTER_STOP);
  if (r.has("events")) {
    f.events = r.list("events", 0, "failure events (objects)",
                      [&](const nlohmann::json& v, const JsonLocation& where) {
                        return read_event(v, where, p);
                      });
  }
  if (r.has("stochastic")) {
    f.stochastic = r.list("stochastic", 0, "random failure processes (objects)", read_stochastic);
  }
  check_one_per_target(r, "stochastic", f.stochastic);
  if (r.has("trace")) f.trace = read_cluster_trace(r, p, file_label);
  read_rates(r, f, file_label);
  read_stragglers(r, f, p);
  return f;
}

nlohmann::json cluster_failures_to_json(const ClusterFailureConfig& f) {
  using nlohmann::json;
  json detection{{"kind", spelling_of(f.detection.kind, DETECTIONS)}};
  if (f.detection.kind == DetectionKind::WATCHDOG) {
    detection["timeout"] = f.detection.timeout;
  } else {
    detection["interval"] = f.detection.interval;
    detection["misses"] = f.detection.misses;
  }
  json events = json::array();
  for (const ClusterFailureEvent& e : f.events) {
    events.push_back({{"target", spelling_of(e.target, TARGETS)},
                      {"index", e.index},
                      {"at", e.at},
                      {"down_for", e.down_for ? json(*e.down_for) : json("forever")}});
  }
  json stochastic = json::array();
  for (const ClusterStochasticFailures& s : f.stochastic) {
    stochastic.push_back({{"target", spelling_of(s.target, TARGETS)},
                          {"lifetime", distribution_to_json(s.lifetime)},
                          {"repair", distribution_to_json(s.repair)}});
    if (s.heterogeneity)
      stochastic.back()["heterogeneity"] = heterogeneity_to_json(*s.heterogeneity);
  }
  json stragglers = json::array();
  for (const StragglerEvent& s : f.stragglers) {
    stragglers.push_back({{"target", spelling_of(s.target, STRAGGLER_TARGETS)},
                          {"index", s.index},
                          {"from", s.from},
                          {"to", s.to},
                          {"slowdown", s.slowdown}});
  }
  json stochastic_stragglers = json::array();
  for (const StochasticStragglers& s : f.stochastic_stragglers) {
    stochastic_stragglers.push_back({{"target", spelling_of(s.target, STRAGGLER_TARGETS)},
                                     {"every", distribution_to_json(s.every)},
                                     {"duration", distribution_to_json(s.duration)},
                                     {"slowdown", s.slowdown}});
  }
  nlohmann::json out{{"detection", detection},
                     {"events", events},
                     {"stochastic", stochastic},
                     {"stragglers", stragglers},
                     {"stochastic_stragglers", stochastic_stragglers},
                     {"after_stop", spelling_of(f.record_after_stop, AFTER_STOP)}};
  if (f.trace) out["trace"] = cluster_trace_to_json(*f.trace);
  if (f.rates) out["rates"] = cluster_rates_to_json(*f.rates);
  return out;
}

}  // namespace failsim::sim::detail

namespace failsim::sim {
std::string to_string(ClusterTarget target) { return input::spelling_of(target, detail::TARGETS); }

int component_count(ClusterTarget target, const ClusterPlatformConfig& p) {
  switch (target) {
    case ClusterTarget::ACCELERATOR:
      return p.platform_nodes() * p.node.accelerators;
    case ClusterTarget::NODE:
    case ClusterTarget::NIC:
      return p.platform_nodes();
    case ClusterTarget::SWITCH:
      return detail::leaf_switches(p);
    case ClusterTarget::RACK:
      return detail::racks(p);
    case ClusterTarget::POWER:
      return detail::power_domains(p);
  }
  return 0;
}
}  // namespace failsim::sim
