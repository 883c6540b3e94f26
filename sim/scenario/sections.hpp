// The scenario's sections as the parser and the writer see them, internal to failsim_scenario:
// one reader and one writer per section, each in the file named after its section
// (sim/scenario/<section>.cpp). parse_scenario() and to_json() (document.cpp) call them section
// by section; the simulation never includes this header. The helpers they share are in
// section_helpers.hpp; the distributions' and the recovery strategies' readers are declared
// next to their types (distribution.hpp, ps/recovery.hpp).
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/object_reader.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section_helpers.hpp"

namespace failsim::sim::detail {

/// The header every protocol shares: "$schema", protocol, name, description, seed
/// (document.cpp).
void read_common_header(const input::ObjectReader& top, Scenario& s);

DataConfig read_data(const input::ObjectReader& top, const std::string& file_label);
nlohmann::json data_to_json(const DataConfig& data);

ModelSpec read_model(const input::ObjectReader& top, int batch_size);
nlohmann::json model_to_json(const ModelSpec& model);

OptimizerConfig read_optimizer(const input::ObjectReader& top);
nlohmann::json optimizer_to_json(const OptimizerConfig& optimizer);

ClusterConfig read_cluster(const input::ObjectReader& top, const std::string& file_label,
                           const RecoveryConfig& recovery);
/// The storage host is written only for the strategies that have one.
nlohmann::json cluster_to_json(const ClusterConfig& cluster, const RecoveryConfig& recovery);

ConsistencyConfig read_consistency(const input::ObjectReader& top);
nlohmann::json consistency_to_json(const ConsistencyConfig& consistency);

TimingConfig read_timing(const input::ObjectReader& top);
nlohmann::json timing_to_json(const TimingConfig& timing);

EvaluationConfig read_evaluation(const input::ObjectReader& top);
nlohmann::json evaluation_to_json(const EvaluationConfig& evaluation);

/// `train_iters`: the collective protocol's stop also takes Megatron-LM's train_iters for
/// `version` (refused when both are given and differ).
StopConfig read_stop(const input::ObjectReader& top, bool train_iters = false);
nlohmann::json stop_to_json(const StopConfig& stop);

/// The spellings of failures.after_stop (ps/failures.cpp).
extern const input::Choices<bool> AFTER_STOP;
/// `down_for`: a duration >= 0 (absent: 0), or "forever" (nullopt).
std::optional<double> read_down_for(const input::ObjectReader& r);
FailureConfig read_failures(const input::ObjectReader& top, const ClusterConfig& cluster,
                            const RecoveryStrategy& strategy);
nlohmann::json failures_to_json(const FailureConfig& failures);

OutputConfig read_output(const input::ObjectReader& top, const std::string& name);
nlohmann::json output_to_json(const OutputConfig& output);

/// Checks between sections, each reported at the field a user would change (checks.cpp).
void check_between_sections(const Scenario& s, const input::JsonLocation& root);

}  // namespace failsim::sim::detail
