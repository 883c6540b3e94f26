// The `stop` section: the criteria that end a run, the first one met.
#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

StopConfig read_stop(const ObjectReader& top) {
  const ObjectReader r = top.object("stop", {"time", "updates", "target_accuracy", "version"});
  StopConfig s;
  s.time = r.optional_quantity("time", Quantity::TIME, Sign::POSITIVE);
  s.updates = r.optional_integer("updates", 1);
  s.target_accuracy = r.optional_number("target_accuracy", Interval{0.0, 1.0, true, false});
  s.version = r.optional_integer("version", 1);
  if (!s.time && !s.updates && !s.target_accuracy && !s.version) {
    r.location().fail("at least one of 'time', 'updates', 'target_accuracy', 'version'", "none");
  }
  return s;
}

nlohmann::json stop_to_json(const StopConfig& s) {
  using nlohmann::json;
  return {{"time", optional_to_json(s.time)},
          {"updates", s.updates ? json(*s.updates) : json(nullptr)},
          {"target_accuracy", optional_to_json(s.target_accuracy)},
          {"version", s.version ? json(*s.version) : json(nullptr)}};
}

}  // namespace failsim::sim::detail
