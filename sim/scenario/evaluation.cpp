// The `evaluation` section: when the observer measures test accuracy.
#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

EvaluationConfig read_evaluation(const ObjectReader& top) {
  const ObjectReader r = top.object_or_empty(
      "evaluation", {"interval", "every_updates", "test_subset", "final_full_test"});
  EvaluationConfig e;
  e.interval = r.quantity_or("interval", e.interval, Quantity::TIME, Sign::NON_NEGATIVE);
  e.every_updates = to_int(r.integer_or("every_updates", e.every_updates, 0, INT_LIMIT));
  e.test_subset = to_int(r.integer_or("test_subset", e.test_subset, 0, INT_LIMIT));
  e.final_full_test = r.boolean_or("final_full_test", e.final_full_test);
  return e;
}

nlohmann::json evaluation_to_json(const EvaluationConfig& e) {
  return {{"interval", e.interval},
          {"every_updates", e.every_updates},
          {"test_subset", e.test_subset},
          {"final_full_test", e.final_full_test}};
}

}  // namespace failsim::sim::detail
