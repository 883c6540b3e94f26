// The scenario's sections as the parser and the writer see them, internal to failsim_scenario:
// one reader and one writer per section, each in the file named after its section
// (sim/scenario/<section>.cpp), and the helpers they share. parse_scenario() and to_json()
// (scenario.cpp) call them section by section; the simulation never includes this header.
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

namespace failsim::sim::detail {

/// The largest count a field may hold (they are ints in the structs).
constexpr std::int64_t INT_LIMIT = INT_MAX;

inline int to_int(std::int64_t v) { return static_cast<int>(v); }

/// A path written in the scenario, made absolute against the scenario file's directory.
std::string resolve_path(const std::string& written, const std::string& file_label);

/// Fails at `where` for a path the system cannot use: a NUL character, more than
/// MAX_PATH_BYTES, a component of more than MAX_NAME_BYTES.
void check_path(const input::JsonLocation& where, const std::string& written);

/// An unset optional field is written as null.
nlohmann::json optional_to_json(const std::optional<double>& v);

/// `"name"`: a strategy as refusals name it.
std::string quoted_name(std::string_view strategy);
/// "a", "a and b", "a, b and c".
std::string join_and(const std::vector<std::string>& items);
/// The strategies of the table that have `fact`, as refusals name them: `strategy "a"` or
/// `strategies "a", "b" and "c"` (recovery.cpp).
std::string strategies_with(const std::function<bool(const RecoveryStrategy&)>& fact);

/// The header every protocol shares: "$schema", protocol, name, description, seed
/// (scenario.cpp).
void read_common_header(const input::ObjectReader& top, Scenario& s);

DataConfig read_data(const input::ObjectReader& top, const std::string& file_label);
nlohmann::json data_to_json(const DataConfig& data);

ModelSpec read_model(const input::ObjectReader& top);
nlohmann::json model_to_json(const ModelSpec& model);

OptimizerConfig read_optimizer(const input::ObjectReader& top);
nlohmann::json optimizer_to_json(const OptimizerConfig& optimizer);

/// Read before the cluster and the failures: the strategy decides how many server hosts there
/// are, whether there is a storage host, and which targets a failure may hit.
RecoveryConfig read_recovery(const input::ObjectReader& top);
nlohmann::json recovery_to_json(const RecoveryConfig& recovery);

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

StopConfig read_stop(const input::ObjectReader& top);
nlohmann::json stop_to_json(const StopConfig& stop);

/// The spellings of failures.after_stop (ps/failures.cpp).
extern const input::Choices<bool> AFTER_STOP;
/// `down_for`: a duration >= 0 (absent: 0), or "forever" (nullopt).
std::optional<double> read_down_for(const input::ObjectReader& r);
/// The spellings of the distributions, from DISTRIBUTION_LAWS (distribution.cpp).
const input::Choices<DistributionKind>& distribution_choices();
/// A distribution object at `key`; `fixed_sign` says whether a fixed value may be 0
/// (distribution.cpp).
Distribution read_distribution(const input::ObjectReader& parent, std::string_view key,
                               input::Sign fixed_sign);
nlohmann::json distribution_to_json(const Distribution& d);

FailureConfig read_failures(const input::ObjectReader& top, const ClusterConfig& cluster,
                            const RecoveryStrategy& strategy);
nlohmann::json failures_to_json(const FailureConfig& failures);

OutputConfig read_output(const input::ObjectReader& top, const std::string& name);
nlohmann::json output_to_json(const OutputConfig& output);

/// Checks between sections, each reported at the field a user would change (checks.cpp).
void check_between_sections(const Scenario& s, const input::JsonLocation& root);

}  // namespace failsim::sim::detail
