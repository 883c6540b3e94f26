// A collective scenario (`"protocol": "collective"`): the sections it shares with the parameter-
// server protocol read by their own readers, its own sections (platform, layout, workload,
// failures, recovery) by theirs (sim/scenario/collective/<section>.cpp), then the checks between
// sections. A time-only scenario (workload.math "none") has no data, model, optimizer or
// evaluation: there is nothing to train or evaluate.
#include <fmt/format.h>

#include "input/object_reader.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

void check_collective(const Scenario& s, const ObjectReader& top) {
  const CollectiveConfig& c = s.collective;
  if (!c.workload.real_math) {
    for (const char* key : {"data", "model", "optimizer", "evaluation"}) {
      top.forbid(key, "workload.math is \"none\": a time-only run trains and evaluates nothing");
    }
    if (s.stop.target_accuracy) {
      top.at("stop")
          .child("target_accuracy")
          .fail("no target accuracy (workload.math is \"none\": nothing is evaluated)",
                fmt::format("{}", *s.stop.target_accuracy));
    }
  }
  // The collective protocol records no host intervals: intervals.csv would be an empty table.
  if (s.output.intervals) {
    top.at("output")
        .child("intervals")
        .fail(
            "false (the collective protocol records no host intervals yet: intervals.csv would be "
            "empty)",
            "true");
  }
  // A scheduled failure the stop comes before is refused unless the scenario allows it.
  if (!c.failures.record_after_stop && s.stop.time) {
    for (std::size_t i = 0; i < c.failures.events.size(); ++i) {
      const ClusterFailureEvent& e = c.failures.events[i];
      if (e.at < *s.stop.time) continue;
      top.at("failures")
          .child("events")
          .child(i)
          .child("at")
          .fail(
              fmt::format("a time before stop.time ({} s), or failures.after_stop \"record\" (the "
                          "result then says the failure did not happen)",
                          *s.stop.time),
              fmt::format("{} s (event {}: {} {})", e.at, i, to_string(e.target), e.index));
    }
  }
}

}  // namespace

Scenario parse_collective_scenario(const nlohmann::json& doc, const std::string& file_label) {
  const JsonLocation root{file_label, ""};
  const ObjectReader top(
      doc, root,
      {"$schema", "protocol", "name", "description", "seed", "data", "model", "optimizer",
       "platform", "layout", "workload", "evaluation", "stop", "failures", "recovery", "output"});
  Scenario s;
  s.protocol = Protocol::COLLECTIVE;
  read_common_header(top, s);
  CollectiveConfig& c = s.collective;
  c.workload = read_workload(top);
  if (c.workload.real_math) {
    s.data = read_data(top, file_label);
    // The optimizer first: its batch size bounds the model's gradient parts.
    s.optimizer = read_optimizer(top);
    s.model = read_model(top, s.optimizer.batch_size);
    s.evaluation = read_evaluation(top);
  } else {
    s.evaluation.interval = 0.0;  // nothing to evaluate
    s.evaluation.final_full_test = false;
  }
  c.platform = read_cluster_platform(top, file_label);
  c.layout = read_layout(top, s);
  s.stop = read_stop(top, /*train_iters=*/true);
  c.failures = read_cluster_failures(top, c.platform, file_label);
  c.recovery = read_collective_recovery(top);
  s.output = read_output(top, s.name);
  check_collective(s, top);
  if (c.workload.real_math) check_between_sections(s, root);
  return s;
}

nlohmann::json collective_to_json(const Scenario& s) {
  const CollectiveConfig& c = s.collective;
  nlohmann::json out{{"protocol", "collective"},
                     {"name", s.name},
                     {"description", s.description},
                     {"seed", s.seed}};
  if (c.workload.real_math) {
    out["data"] = data_to_json(s.data);
    out["model"] = model_to_json(s.model);
    out["optimizer"] = optimizer_to_json(s.optimizer);
    out["evaluation"] = evaluation_to_json(s.evaluation);
  }
  out["platform"] = cluster_platform_to_json(c.platform);
  out["layout"] = layout_to_json(c.layout);
  out["workload"] = workload_to_json(c.workload);
  out["stop"] = stop_to_json(s.stop);
  out["failures"] = cluster_failures_to_json(c.failures);
  out["recovery"] = collective_recovery_to_json(c.recovery);
  out["output"] = output_to_json(s.output);
  return out;
}

}  // namespace failsim::sim::detail
