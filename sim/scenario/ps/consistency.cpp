// The `consistency` section: how workers and servers synchronise (sync, ssp, async).
#include "sim/scenario/sections.hpp"

namespace failsim::sim {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const Choices<ConsistencyMode> CONSISTENCY_MODES{{"sync", ConsistencyMode::SYNC},
                                                 {"ssp", ConsistencyMode::SSP},
                                                 {"async", ConsistencyMode::ASYNC}};
const Choices<GradientCombine> COMBINE_RULES{{"sum", GradientCombine::SUM},
                                             {"mean", GradientCombine::MEAN}};

}  // namespace

std::string to_string(ConsistencyMode mode) { return spelling_of(mode, CONSISTENCY_MODES); }
std::string to_string(GradientCombine combine) { return spelling_of(combine, COMBINE_RULES); }

namespace detail {

ConsistencyConfig read_consistency(const ObjectReader& top) {
  const ObjectReader r = top.object("consistency", {"mode", "bound", "combine"});
  ConsistencyConfig c;
  c.mode = r.choice("mode", CONSISTENCY_MODES);
  if (c.mode == ConsistencyMode::SSP) {
    c.bound = to_int(r.integer("bound", 0, INT_LIMIT));
  } else {
    r.forbid("bound", "it applies only to mode \"ssp\"");
  }
  if (c.mode == ConsistencyMode::SYNC) {
    c.combine = r.choice_or("combine", c.combine, COMBINE_RULES);
  } else {
    r.forbid("combine", "it applies only to mode \"sync\"");
  }
  return c;
}

nlohmann::json consistency_to_json(const ConsistencyConfig& c) {
  nlohmann::json consistency{{"mode", to_string(c.mode)}};
  if (c.mode == ConsistencyMode::SSP) consistency["bound"] = c.bound;
  if (c.mode == ConsistencyMode::SYNC) consistency["combine"] = to_string(c.combine);
  return consistency;
}

}  // namespace detail
}  // namespace failsim::sim
