// Strategy "stateless"'s settings: reader and writer (stateless.hpp).
#include "sim/ps/recovery/stateless/settings.hpp"

#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<models::StaleRule> STALE_RULES(models::STALE_RULES.begin(),
                                             models::STALE_RULES.end());

}  // namespace

StatelessConfig read_stateless_section(const ObjectReader& recovery) {
  const ObjectReader r = recovery.object_or_empty(
      "stateless", {"rule", "paper_threshold", "paper_low_lr", "drop_bound"});
  StatelessConfig c;
  c.rule = r.choice_or("rule", c.rule, STALE_RULES);
  if (c.rule == models::StaleRule::PAPER) {
    c.paper_threshold = to_int(r.integer_or("paper_threshold", c.paper_threshold, 0, INT_LIMIT));
    c.paper_low_lr = r.number_or("paper_low_lr", c.paper_low_lr, Interval::positive());
  } else {
    r.forbid("paper_threshold", "it applies only to rule \"paper\"");
    r.forbid("paper_low_lr", "it applies only to rule \"paper\"");
  }
  if (c.rule == models::StaleRule::DROP_STALE) {
    c.drop_bound = to_int(r.integer("drop_bound", 0, INT_LIMIT));
  } else {
    r.forbid("drop_bound", "it applies only to rule \"drop_stale\"");
  }
  return c;
}

void write_stateless_section(const StatelessConfig& st, nlohmann::json& recovery) {
  nlohmann::json stateless{{"rule", models::to_string(st.rule)}};
  if (st.rule == models::StaleRule::PAPER) {
    stateless["paper_threshold"] = st.paper_threshold;
    stateless["paper_low_lr"] = st.paper_low_lr;
  }
  if (st.rule == models::StaleRule::DROP_STALE) stateless["drop_bound"] = st.drop_bound;
  recovery["stateless"] = stateless;
}

StrategySettings read_stateless(const ObjectReader& recovery) {
  return StrategySettings(read_stateless_section(recovery));
}

void write_stateless(const StrategySettings& settings, nlohmann::json& recovery) {
  write_stateless_section(settings.get<StatelessConfig>(), recovery);
}

}  // namespace failsim::sim::detail
