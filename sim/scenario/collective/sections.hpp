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

LayoutConfig read_layout(const input::ObjectReader& top);
nlohmann::json layout_to_json(const LayoutConfig& layout);

WorkloadConfig read_workload(const input::ObjectReader& top);
nlohmann::json workload_to_json(const WorkloadConfig& workload);

/// Indices are checked against the platform's nodes, switches, racks and power domains.
ClusterFailureConfig read_cluster_failures(const input::ObjectReader& top,
                                           const ClusterPlatformConfig& platform);
nlohmann::json cluster_failures_to_json(const ClusterFailureConfig& failures);

CollectiveRecoveryConfig read_collective_recovery(const input::ObjectReader& top);
nlohmann::json collective_recovery_to_json(const CollectiveRecoveryConfig& recovery);

/// recovery.diloco (recovery_diloco.cpp), read from the `recovery` object.
void read_diloco(const input::ObjectReader& recovery, CollectiveRecoveryConfig& into);
nlohmann::json diloco_to_json(const CollectiveRecoveryConfig& recovery);

/// A document whose `protocol` is "collective" (scenario.cpp has read `name` and checks nothing
/// else of it).
Scenario parse_collective_scenario(const nlohmann::json& doc, const std::string& file_label);
nlohmann::json collective_to_json(const Scenario& s);

/// How many leaf switches, racks and power domains the platform has (a partial last one counts).
int leaf_switches(const ClusterPlatformConfig& platform);
int racks(const ClusterPlatformConfig& platform);
int power_domains(const ClusterPlatformConfig& platform);

}  // namespace failsim::sim::detail
