// The `stop` section: the criteria that end a run, the first one met. A collective scenario may
// also say Megatron-LM's `train_iters` for `version` (docs/cluster.md, "Megatron-LM's names").
#include <fmt/core.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/units.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;

StopConfig read_stop(const ObjectReader& top, bool train_iters) {
  std::vector<std::string_view> keys{"time", "updates", "target_accuracy", "version"};
  if (train_iters) keys.push_back("train_iters");
  const ObjectReader r = top.object("stop", keys);
  StopConfig s;
  s.time = r.optional_quantity("time", Quantity::TIME, Sign::POSITIVE);
  s.updates = r.optional_integer("updates", 1);
  s.target_accuracy = r.optional_number("target_accuracy", Interval{0.0, 1.0, true, false});
  s.version = r.optional_integer("version", 1);
  if (train_iters) {
    // Megatron's iteration count is restored from the checkpoint a job resumes from and the job
    // ends when it reaches train_iters: the steps kept, failsim's version. One or the other.
    const std::optional<std::int64_t> iters = r.optional_integer("train_iters", 1);
    if (iters && s.version && *iters != *s.version) {
      r.at("train_iters")
          .fail(fmt::format("the steps of /stop/version {} (train_iters is Megatron-LM's name for "
                            "version, the steps kept: one or the other, or both alike)",
                            *s.version),
                std::to_string(*iters));
    }
    if (iters) s.version = iters;
  }
  if (!s.time && !s.updates && !s.target_accuracy && !s.version) {
    r.location().fail(train_iters
                          ? "at least one of 'time', 'updates', 'target_accuracy', 'version' "
                            "(or 'train_iters')"
                          : "at least one of 'time', 'updates', 'target_accuracy', 'version'",
                      "none");
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
