// The `output` section: where the result goes and which files are written.
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

OutputConfig read_output(const ObjectReader& top, const std::string& name) {
  const ObjectReader r =
      top.object_or_empty("output", {"directory", "timeseries", "events", "intervals", "max_size"});
  OutputConfig o;
  o.directory = r.string_or("directory", "results/" + name);
  if (r.has("directory")) check_path(r.at("directory"), o.directory);
  o.timeseries = r.boolean_or("timeseries", o.timeseries);
  o.events = r.boolean_or("events", o.events);
  o.intervals = r.boolean_or("intervals", o.intervals);
  o.max_size = r.optional_quantity("max_size", Quantity::DATA_SIZE, Sign::POSITIVE);
  return o;
}

nlohmann::json output_to_json(const OutputConfig& o) {
  nlohmann::json j{{"directory", o.directory}, {"timeseries", o.timeseries}, {"events", o.events}};
  // Written only when set, so the resolved scenario (and result.json) of a run that does not ask
  // for intervals.csv is what it was before the field existed.
  if (o.intervals) j["intervals"] = true;
  if (o.max_size) j["max_size"] = *o.max_size;
  return j;
}

}  // namespace failsim::sim::detail
