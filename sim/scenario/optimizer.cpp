// The `optimizer` section: plain SGD's rates and the batch size.
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

OptimizerConfig read_optimizer(const ObjectReader& top) {
  const ObjectReader r =
      top.object_or_empty("optimizer", {"learning_rate", "momentum", "weight_decay", "batch_size"});
  OptimizerConfig o;
  o.learning_rate = r.number_or("learning_rate", o.learning_rate, Interval::positive());
  o.momentum = r.number_or("momentum", o.momentum, Interval{0.0, 1.0, false, true});
  o.weight_decay = r.number_or("weight_decay", o.weight_decay, Interval::non_negative());
  o.batch_size = to_int(r.integer_or("batch_size", o.batch_size, 1, INT_LIMIT));
  return o;
}

nlohmann::json optimizer_to_json(const OptimizerConfig& o) {
  return {{"learning_rate", o.learning_rate},
          {"momentum", o.momentum},
          {"weight_decay", o.weight_decay},
          {"batch_size", o.batch_size}};
}

}  // namespace failsim::sim::detail
