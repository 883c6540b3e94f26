// The collective protocol's `platform` section: the node (a preset file or written inline), how
// many nodes, the topology joining them (sim/collective/network/topology/topologies.def), the
// parallel file system and the failure domains.
#include <filesystem>

#include <fmt/format.h>

#include "input/json_input.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/node_preset.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

#ifndef FAILSIM_NODE_PRESETS
#error "FAILSIM_NODE_PRESETS (the source tree's scenarios/cluster/nodes) must be defined"
#endif

namespace failsim::sim::detail {
namespace fs = std::filesystem;
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {

const std::initializer_list<std::string_view> NODE_KEYS{
    "preset",        "description", "sources",         "accelerators",  "accelerator_speed",
    "device_memory", "host_memory", "intra_bandwidth", "intra_latency", "nics",
    "nic_bandwidth", "nic_latency"};

// platform.topology.kind's choices: the list sim/collective/network/topology/topologies.def.
const Choices<TopologyKind> TOPOLOGIES(TOPOLOGY_KINDS.begin(), TOPOLOGY_KINDS.end());

/// The fields of a node object over `base` (a preset's values, or none: then every field is
/// required). `description` and `sources` document a preset and change nothing.
NodeSpec read_node_fields(const ObjectReader& r, const std::optional<NodeSpec>& base) {
  NodeSpec n = base.value_or(NodeSpec{});
  if (const nlohmann::json* d = r.find("description"); d != nullptr && !d->is_string())
    r.at("description").fail("a string", describe_found(*d));
  if (r.has("sources")) {
    r.list("sources", 0, "strings", [](const nlohmann::json& v, const JsonLocation& where) {
      return read_string(v, where);
    });
  }
  const auto count = [&](std::string_view key, int fallback) {
    return base ? to_int(r.integer_or(key, fallback, 1, 1 << 16))
                : to_int(r.integer(key, 1, 1 << 16));
  };
  const auto quantity = [&](std::string_view key, double fallback, Quantity kind, Sign sign) {
    return base ? r.quantity_or(key, fallback, kind, sign) : r.quantity(key, kind, sign);
  };
  n.accelerators = count("accelerators", n.accelerators);
  n.accelerator_speed =
      quantity("accelerator_speed", n.accelerator_speed, Quantity::SPEED, Sign::POSITIVE);
  n.device_memory = quantity("device_memory", n.device_memory, Quantity::DATA_SIZE, Sign::POSITIVE);
  n.host_memory = quantity("host_memory", n.host_memory, Quantity::DATA_SIZE, Sign::POSITIVE);
  n.intra_bandwidth =
      quantity("intra_bandwidth", n.intra_bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
  n.intra_latency = quantity("intra_latency", n.intra_latency, Quantity::TIME, Sign::NON_NEGATIVE);
  n.nics = count("nics", n.nics);
  n.nic_bandwidth = quantity("nic_bandwidth", n.nic_bandwidth, Quantity::BANDWIDTH, Sign::POSITIVE);
  n.nic_latency = quantity("nic_latency", n.nic_latency, Quantity::TIME, Sign::NON_NEGATIVE);
  return n;
}

bool is_preset_name(const std::string& s) {
  return s.find('/') == std::string::npos && !s.ends_with(".json");
}

/// The preset `written` names: a name of scenarios/cluster/nodes/, or a path ending in ".json"
/// (relative to the scenario file). Its own errors name the preset file.
NodeSpec read_preset(const std::string& written, const JsonLocation& where,
                     const std::string& file_label) {
  const fs::path file = is_preset_name(written)
                            ? fs::path(node_presets_directory()) / (written + ".json")
                            : fs::path(resolve_path(written, file_label));
  if (is_preset_name(written) && !fs::exists(file)) {
    std::vector<std::string_view> names;
    std::vector<std::string> owned;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(node_presets_directory(), ec)) {
      if (entry.path().extension() == ".json") owned.push_back(entry.path().stem().string());
    }
    std::sort(owned.begin(), owned.end());
    for (const auto& o : owned) names.push_back(o);
    const std::string hint = closest_match(written, names);
    where.fail(fmt::format("a node preset ({}), or a node file ending in \".json\"",
                           fmt::join(owned, ", ")),
               fmt::format("\"{}\"{}", written,
                           hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint)));
  }
  check_path(where, written);
  const std::string label = file.string();
  const nlohmann::json doc =
      parse_json_text(read_input_file(file, "a readable node preset file"), label);
  const ObjectReader r(doc, JsonLocation{label, ""}, NODE_KEYS);
  r.forbid("preset", "a preset file holds a node's own values");
  NodeSpec n = read_node_fields(r, std::nullopt);
  n.preset = written;
  return n;
}

NodeSpec read_node(const ObjectReader& platform, const std::string& file_label) {
  const nlohmann::json& v = platform.require(
      "node", "a node: a preset's name (scenarios/cluster/nodes), a node file, or an object");
  if (v.is_string()) return read_preset(v.get<std::string>(), platform.at("node"), file_label);
  const ObjectReader r = platform.object("node", NODE_KEYS);
  std::optional<NodeSpec> base;
  if (r.has("preset")) base = read_preset(r.string("preset"), r.at("preset"), file_label);
  return read_node_fields(r, base);
}

}  // namespace

std::string node_presets_directory() { return FAILSIM_NODE_PRESETS; }

int leaf_switches(const ClusterPlatformConfig& p) {
  return (p.platform_nodes() + p.topology.nodes_per_leaf - 1) / p.topology.nodes_per_leaf;
}
int racks(const ClusterPlatformConfig& p) {
  return (p.platform_nodes() + p.domains.nodes_per_rack - 1) / p.domains.nodes_per_rack;
}
int power_domains(const ClusterPlatformConfig& p) {
  return (racks(p) + p.domains.racks_per_power - 1) / p.domains.racks_per_power;
}

ClusterPlatformConfig read_cluster_platform(const ObjectReader& top,
                                            const std::string& file_label) {
  const ObjectReader r =
      top.object("platform", {"node", "nodes", "spares", "topology", "file_system", "domains"});
  ClusterPlatformConfig p;
  p.node = read_node(r, file_label);
  p.nodes = to_int(r.integer("nodes", 1, 1'000'000));
  p.spares = to_int(r.integer_or("spares", 0, 0, 1'000'000));
  if (static_cast<std::int64_t>(p.platform_nodes()) * p.node.accelerators > 10'000'000) {
    // The spares are named when they are what makes the platform too large.
    const bool spares = p.spares > p.nodes;
    r.at(spares ? "spares" : "nodes")
        .fail(fmt::format("at most 10,000,000 accelerators in all ({} per node, spares included)",
                          p.node.accelerators),
              spares ? fmt::format("{} nodes + {} spares", p.nodes, p.spares)
                     : std::to_string(p.nodes));
  }

  const ObjectReader t = r.object_or_empty(
      "topology",
      {"kind", "nodes_per_leaf", "spines", "uplinks", "uplink_bandwidth", "switch_latency"});
  TopologyConfig& topo = p.topology;
  topo.kind = t.choice_or("kind", topo.kind, TOPOLOGIES);
  topo.nodes_per_leaf = to_int(t.integer_or("nodes_per_leaf", topo.nodes_per_leaf, 1, 1 << 16));
  topo.spines = to_int(t.integer_or("spines", topo.spines, 1, 1 << 16));
  topo.uplinks = to_int(t.integer_or("uplinks", topo.uplinks, 1, 1 << 16));
  // A leaf switch's uplinks, formed in 64 bits: SimGrid builds every one (2^32 of them threw
  // std::bad_alloc).
  const std::int64_t leaf_uplinks = std::int64_t{topo.spines} * topo.uplinks;
  if (leaf_uplinks > MAX_LEAF_UPLINKS) {
    t.at("uplinks").fail(
        fmt::format("spines x uplinks of at most {} links from each leaf switch", MAX_LEAF_UPLINKS),
        fmt::format("spines {} x uplinks {} = {}", topo.spines, topo.uplinks, leaf_uplinks));
  }
  topo.uplink_bandwidth = t.quantity_or("uplink_bandwidth", topo.uplink_bandwidth,
                                        Quantity::BANDWIDTH, Sign::NON_NEGATIVE);
  topo.switch_latency =
      t.quantity_or("switch_latency", topo.switch_latency, Quantity::TIME, Sign::NON_NEGATIVE);

  const ObjectReader f = r.object("file_system", {"write_bandwidth", "read_bandwidth", "latency"});
  p.file_system.write_bandwidth =
      f.quantity("write_bandwidth", Quantity::BANDWIDTH, Sign::POSITIVE);
  p.file_system.read_bandwidth = f.quantity("read_bandwidth", Quantity::BANDWIDTH, Sign::POSITIVE);
  p.file_system.latency = f.quantity_or("latency", 0.0, Quantity::TIME, Sign::NON_NEGATIVE);

  const ObjectReader d = r.object_or_empty("domains", {"nodes_per_rack", "racks_per_power"});
  p.domains.nodes_per_rack =
      to_int(d.integer_or("nodes_per_rack", p.domains.nodes_per_rack, 1, 1 << 16));
  p.domains.racks_per_power =
      to_int(d.integer_or("racks_per_power", p.domains.racks_per_power, 1, 1 << 16));
  // A power domain's nodes, formed in 64 bits (65,536 x 65,536 wrapped to 0 in an int, and a
  // power failure then hit no node).
  const std::int64_t power_nodes =
      std::int64_t{p.domains.nodes_per_rack} * p.domains.racks_per_power;
  if (power_nodes > MAX_POWER_DOMAIN_NODES) {
    d.at("racks_per_power")
        .fail(fmt::format("nodes_per_rack x racks_per_power of at most {} nodes in a power domain",
                          MAX_POWER_DOMAIN_NODES),
              fmt::format("nodes_per_rack {} x racks_per_power {} = {}", p.domains.nodes_per_rack,
                          p.domains.racks_per_power, power_nodes));
  }
  return p;
}

nlohmann::json cluster_platform_to_json(const ClusterPlatformConfig& p) {
  const NodeSpec& n = p.node;
  nlohmann::json node{{"accelerators", n.accelerators},
                      {"accelerator_speed", n.accelerator_speed},
                      {"device_memory", n.device_memory},
                      {"host_memory", n.host_memory},
                      {"intra_bandwidth", n.intra_bandwidth},
                      {"intra_latency", n.intra_latency},
                      {"nics", n.nics},
                      {"nic_bandwidth", n.nic_bandwidth},
                      {"nic_latency", n.nic_latency}};
  if (!n.preset.empty()) node["preset"] = n.preset;
  return {{"node", node},
          {"nodes", p.nodes},
          {"spares", p.spares},
          {"topology",
           {{"kind", spelling_of(p.topology.kind, TOPOLOGIES)},
            {"nodes_per_leaf", p.topology.nodes_per_leaf},
            {"spines", p.topology.spines},
            {"uplinks", p.topology.uplinks},
            {"uplink_bandwidth", p.topology.uplink_bandwidth},
            {"switch_latency", p.topology.switch_latency}}},
          {"file_system",
           {{"write_bandwidth", p.file_system.write_bandwidth},
            {"read_bandwidth", p.file_system.read_bandwidth},
            {"latency", p.file_system.latency}}},
          {"domains",
           {{"nodes_per_rack", p.domains.nodes_per_rack},
            {"racks_per_power", p.domains.racks_per_power}}}};
}

}  // namespace failsim::sim::detail

namespace failsim::sim {

NodeSpec read_node_preset(const std::string& preset, const std::string& label) {
  return detail::read_preset(preset, input::JsonLocation{label, ""}, label);
}

}  // namespace failsim::sim
