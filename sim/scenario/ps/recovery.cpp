// The `recovery` section: the strategy by its name in the strategy table, its settings read and
// written by the strategy's own functions (sim/ps/recovery/<name>/settings.cpp), and the phrases in
// which the other sections' refusals name the strategies that have a fact (ps/recovery.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "sim/scenario/ps/recovery.hpp"
#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

const RecoveryStrategy& RecoveryConfig::kind() const {
  const RecoveryStrategy* found = find_recovery_strategy(strategy);
  if (found == nullptr) {
    throw std::logic_error("recovery strategy \"" + strategy + "\" is not in the strategy table");
  }
  return *found;
}

std::optional<double> RecoveryConfig::elastic_patience() const {
  const RecoveryStrategy& k = kind();
  if (k.elastic_patience == nullptr) return std::nullopt;
  return k.elastic_patience(settings);
}

namespace detail {
namespace {

bool has_section(const RecoveryStrategy& strategy, std::string_view key) {
  return std::find(strategy.sections.begin(), strategy.sections.end(), key) !=
         strategy.sections.end();
}

/// The keys of the recovery object: "strategy", then every strategy's sections, in table order.
std::vector<std::string_view> recovery_keys() {
  std::vector<std::string_view> keys{"strategy"};
  for (const RecoveryStrategy& s : recovery_strategies()) {
    for (std::string_view section : s.sections) {
      if (std::find(keys.begin(), keys.end(), section) == keys.end()) keys.push_back(section);
    }
  }
  return keys;
}

}  // namespace

std::string strategies_with(const std::function<bool(const RecoveryStrategy&)>& fact) {
  std::vector<std::string> names;
  for (const RecoveryStrategy& s : recovery_strategies()) {
    if (fact(s)) names.push_back(quoted_name(s.name));
  }
  return (names.size() == 1 ? "strategy " : "strategies ") + join_and(names);
}

RecoveryConfig read_recovery(const ObjectReader& top) {
  RecoveryConfig c;
  if (!top.has("recovery")) return c;
  const std::vector<std::string_view> keys = recovery_keys();
  const ObjectReader r = top.object("recovery", keys);
  Choices<const RecoveryStrategy*> names;
  for (const RecoveryStrategy& s : recovery_strategies()) names.emplace_back(s.name, &s);
  const RecoveryStrategy& strategy = *r.choice("strategy", names);
  c.strategy = std::string(strategy.name);
  // In the order of the keys: another strategy's section is refused, and the strategy's own
  // (which come together) are read by its reader where the first of them stands.
  bool read = false;
  for (std::string_view key : std::span(keys).subspan(1)) {
    if (!has_section(strategy, key)) {
      r.forbid(key, "it applies only to " + strategies_with([&](const RecoveryStrategy& s) {
                      return has_section(s, key);
                    }));
    } else if (!read) {
      c.settings = strategy.read(r);
      read = true;
    }
  }
  return c;
}

nlohmann::json recovery_to_json(const RecoveryConfig& r) {
  nlohmann::json out{{"strategy", r.strategy}};
  if (const auto write = r.kind().write) write(r.settings, out);
  return out;
}

}  // namespace detail
}  // namespace failsim::sim
