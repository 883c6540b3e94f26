// The collective protocol's sections as the parser and the writer see them, internal to
// failsim_scenario: one reader and one writer per section, each in the file named after it
// (sim/scenario/collective/<section>.cpp). parse_scenario() hands a document whose `protocol` is
// "collective" to parse_collective_scenario(); the sections it shares with the parameter-server
// protocol (data, model, optimizer, evaluation, stop, output) are read by their own readers
// (sim/scenario/sections.hpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "input/object_reader.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim::detail {

/// The directory of the node presets (scenarios/cluster/nodes of the source tree).
std::string node_presets_directory();

ClusterPlatformConfig read_cluster_platform(const input::ObjectReader& top,
                                            const std::string& file_label);
nlohmann::json cluster_platform_to_json(const ClusterPlatformConfig& platform);

/// `s` holds the sections read before it, the workload and (with real math) the optimizer:
/// Megatron-LM's layout.micro_batch_size counts the sequences (or samples) of their step.
LayoutConfig read_layout(const input::ObjectReader& top, const Scenario& s);
nlohmann::json layout_to_json(const LayoutConfig& layout);

WorkloadConfig read_workload(const input::ObjectReader& top);
nlohmann::json workload_to_json(const WorkloadConfig& workload);

/// Indices are checked against the platform's nodes, switches, racks and power domains; the
/// files of failures.trace and failures.rates are read (relative to the scenario file).
ClusterFailureConfig read_cluster_failures(const input::ObjectReader& top,
                                           const ClusterPlatformConfig& platform,
                                           const std::string& file_label);
nlohmann::json cluster_failures_to_json(const ClusterFailureConfig& failures);
/// The spellings of ClusterTarget ("accelerator", "node", ...).
const input::Choices<ClusterTarget>& cluster_targets();

/// failures.stochastic[i].heterogeneity of the entry `entry` (heterogeneity.cpp).
NodeHeterogeneity read_heterogeneity(const input::ObjectReader& entry);
nlohmann::json heterogeneity_to_json(const NodeHeterogeneity& heterogeneity);

/// failures.trace (failure_trace.cpp): the trace read, its nodes mapped, days made seconds.
ClusterTraceConfig read_cluster_trace(const input::ObjectReader& failures,
                                      const ClusterPlatformConfig& platform,
                                      const std::string& file_label);
nlohmann::json cluster_trace_to_json(const ClusterTraceConfig& trace);

/// failures.rates (failure_rates.cpp): the table `table_text` read from `path` as one exponential
/// process per component kind it counts, of mean lifetime components x window / failures, with
/// its causes.
std::vector<ClusterStochasticFailures> read_rate_table(const std::string& path,
                                                       const std::string& table_text,
                                                       const Distribution& repair);
ClusterRatesConfig read_cluster_rates(const input::ObjectReader& failures,
                                      const std::string& file_label);
nlohmann::json cluster_rates_to_json(const ClusterRatesConfig& rates);

/// The `recovery` section (recovery.cpp): the design's own section is read and written by its
/// room (sim/scenario/collective/recovery.hpp).
CollectiveRecoveryConfig read_collective_recovery(const input::ObjectReader& top);
nlohmann::json collective_recovery_to_json(const CollectiveRecoveryConfig& recovery);

/// A document whose `protocol` is "collective" (scenario.cpp has read `name` and checks nothing
/// else of it).
Scenario parse_collective_scenario(const nlohmann::json& doc, const std::string& file_label);
nlohmann::json collective_to_json(const Scenario& s);

/// How many leaf switches, racks and power domains the platform has (a partial last one counts).
int leaf_switches(const ClusterPlatformConfig& platform);
int racks(const ClusterPlatformConfig& platform);
int power_domains(const ClusterPlatformConfig& platform);

}  // namespace failsim::sim::detail
