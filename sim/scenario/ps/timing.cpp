// The `timing` section: overrides of the time model, and a server's in-loop evaluations.
#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

TimingConfig read_timing(const ObjectReader& top) {
  const ObjectReader r =
      top.object_or_empty("timing", {"flops_per_sample", "param_bytes", "server_evaluation"});
  TimingConfig t;
  t.flops_per_sample =
      r.optional_quantity("flops_per_sample", Quantity::FLOP_AMOUNT, Sign::POSITIVE);
  t.param_bytes = r.optional_quantity("param_bytes", Quantity::DATA_SIZE, Sign::POSITIVE);
  if (const nlohmann::json* v = r.find("server_evaluation"); v != nullptr && !v->is_null()) {
    const ObjectReader e = r.object("server_evaluation", {"every_updates", "flops"});
    ServerEvaluationConfig c;
    c.every_updates = to_int(e.integer("every_updates", 1, INT_LIMIT));
    c.flops = e.quantity("flops", Quantity::FLOP_AMOUNT, Sign::POSITIVE);
    t.server_evaluation = c;
  }
  return t;
}

nlohmann::json timing_to_json(const TimingConfig& t) {
  using nlohmann::json;
  return {{"flops_per_sample", optional_to_json(t.flops_per_sample)},
          {"param_bytes", optional_to_json(t.param_bytes)},
          {"server_evaluation", t.server_evaluation
                                    ? json{{"every_updates", t.server_evaluation->every_updates},
                                           {"flops", t.server_evaluation->flops}}
                                    : json(nullptr)}};
}

}  // namespace failsim::sim::detail
