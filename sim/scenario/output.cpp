// The `output` section: where the result goes and which files are written.
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

OutputConfig read_output(const ObjectReader& top, const std::string& name) {
  const ObjectReader r = top.object_or_empty("output", {"directory", "timeseries", "events"});
  OutputConfig o;
  o.directory = r.string_or("directory", "results/" + name);
  if (r.has("directory")) check_path(r.at("directory"), o.directory);
  o.timeseries = r.boolean_or("timeseries", o.timeseries);
  o.events = r.boolean_or("events", o.events);
  return o;
}

nlohmann::json output_to_json(const OutputConfig& o) {
  return {{"directory", o.directory}, {"timeseries", o.timeseries}, {"events", o.events}};
}

}  // namespace failsim::sim::detail
