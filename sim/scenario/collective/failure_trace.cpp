// The collective protocol's `failures.trace`: a per-node fault log (input/fault_trace.hpp, the
// InfiniteHBD format, or a CSV, JSON-lines or sacct log, input/fault_log.hpp) read with the
// scenario, its nodes mapped onto the scenario's, its days turned into simulated seconds
// (docs/cluster.md, "Failure traces"). Every problem, the trace's own included, is an InputError
// before anything is simulated.
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "input/fault_log.hpp"
#include "input/fault_trace.hpp"
#include "input/json_input.hpp"
#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
using namespace failsim::input;
namespace {

const Choices<TraceMapping> MAPPINGS{{"by_order", TraceMapping::BY_ORDER},
                                     {"random", TraceMapping::RANDOM},
                                     {"file", TraceMapping::FILE}};
const Choices<TraceExtraNodes> EXTRA_NODES{{"error", TraceExtraNodes::ERROR},
                                           {"ignore", TraceExtraNodes::IGNORE},
                                           {"wrap", TraceExtraNodes::WRAP}};

constexpr double SECONDS_PER_DAY = 86400.0;

/// failures.trace.format: a log's kind, or none for the InfiniteHBD trace ("infinitehbd").
const Choices<std::optional<FaultLogKind>>& trace_formats() {
  static const Choices<std::optional<FaultLogKind>> formats = [] {
    Choices<std::optional<FaultLogKind>> out{{"infinitehbd", std::nullopt}};
    for (const auto& [spelling, kind] : fault_log_kinds()) out.emplace_back(spelling, kind);
    return out;
  }();
  return formats;
}

/// Fault classes after which a node's host memory survives: the accelerator, NIC or cable
/// fails, the machine keeps running (as for the targets "accelerator" and "nic"). Every other
/// class (power supply, motherboard, CPU, fan, software, unknown) restarts the machine.
bool keeps_host_memory(const std::string& fault_class) {
  return fault_class == "GPU" || fault_class == "NIC" || fault_class == "Parameter Plane Cable";
}

/// The slot of each trace node from a mapping file: a JSON object trace node id -> node index;
/// -1 for a node it leaves out (allowed with extra_nodes "ignore" only).
std::vector<int> read_mapping(const ObjectReader& r, const FaultTrace& trace, int nodes,
                              TraceExtraNodes extra, const std::string& file_label) {
  const std::string written = r.string("mapping_file");
  check_path(r.at("mapping_file"), written);
  const std::string path = resolve_path(written, file_label);
  const nlohmann::json doc = parse_json_text(
      read_named_file(r.at("mapping_file"), written, path, "a readable trace mapping file"), path);
  const JsonLocation root{path, ""};
  if (!doc.is_object()) {
    root.fail("a JSON object: trace node id -> scenario node index", describe_found(doc));
  }
  std::map<std::string, std::size_t> index_of;
  for (std::size_t k = 0; k < trace.nodes.size(); ++k) index_of.emplace(trace.nodes[k], k);
  std::vector<int> slot(trace.nodes.size(), -1);
  std::map<std::int64_t, std::string> taken;
  for (const auto& [id, value] : doc.items()) {
    const JsonLocation where = root.child(id);
    const auto k = index_of.find(id);
    if (k == index_of.end()) {
      where.fail("a node id of the trace " + r.string("file"), fmt::format("\"{}\"", id));
    }
    const std::int64_t n = read_integer(value, where, 0, nodes - 1);
    if (const auto [it, added] = taken.emplace(n, id); !added) {
      where.fail(fmt::format("a node index no other trace node has (trace node {} is already "
                             "mapped onto node {})",
                             it->second, n),
                 std::to_string(n));
    }
    slot[k->second] = static_cast<int>(n);
  }
  if (extra != TraceExtraNodes::IGNORE) {
    std::size_t missing = 0;
    std::string first;
    for (std::size_t k = 0; k < slot.size(); ++k) {
      if (slot[k] >= 0) continue;
      if (missing++ == 0) first = trace.nodes[k];
    }
    if (missing > 0) {
      r.at("mapping_file")
          .fail(fmt::format("a mapping of every node of the trace (or extra_nodes \"ignore\" to "
                            "drop the faults of the nodes it leaves out)"),
                fmt::format("{} of the trace's {} nodes left out, the first \"{}\"", missing,
                            slot.size(), first));
    }
  }
  return slot;
}

/// The slot of each trace node, in order of first appearance: k, or k mod nodes ("wrap"), or
/// -1 for a dropped one ("ignore").
std::vector<int> slots_by_order(const ObjectReader& r, std::size_t trace_nodes, int nodes,
                                TraceExtraNodes extra) {
  if (trace_nodes > static_cast<std::size_t>(nodes) && extra == TraceExtraNodes::ERROR) {
    r.at("file").fail(
        fmt::format("a trace of at most {0} nodes (the platform's; or extra_nodes \"ignore\" to "
                    "drop the faults of the trace nodes beyond the first {0}, or \"wrap\" to "
                    "map trace node k onto k mod {0})",
                    nodes),
        fmt::format("{} nodes in the trace", trace_nodes));
  }
  std::vector<int> slot(trace_nodes);
  for (std::size_t k = 0; k < trace_nodes; ++k) {
    const int i = static_cast<int>(k);
    slot[k] = i < nodes ? i : extra == TraceExtraNodes::WRAP ? i % nodes : -1;
  }
  return slot;
}

}  // namespace

ClusterTraceConfig read_cluster_trace(const ObjectReader& failures, const ClusterPlatformConfig& p,
                                      const std::string& file_label) {
  const ObjectReader r =
      failures.object("trace", {"file", "format", "columns", "time_unit", "origin", "mapping",
                                "mapping_file", "extra_nodes", "from_day", "time_scale", "repair"});
  ClusterTraceConfig t;
  const std::string written = r.string("file");
  check_path(r.at("file"), written);
  t.file = resolve_path(written, file_label);
  const std::optional<FaultLogKind> log =
      r.choice_or("format", std::optional<FaultLogKind>(), trace_formats());
  t.mapping = r.choice_or("mapping", t.mapping, MAPPINGS);
  t.extra_nodes = r.choice_or("extra_nodes", t.extra_nodes, EXTRA_NODES);
  if (t.mapping != TraceMapping::FILE) {
    r.forbid("mapping_file", "it applies only to mapping \"file\"");
  } else if (t.extra_nodes == TraceExtraNodes::WRAP) {
    r.at("extra_nodes")
        .fail(
            "\"error\" or \"ignore\" with mapping \"file\" (the file says where each trace "
            "node goes)",
            "\"wrap\"");
  }
  t.from_day = r.number_or("from_day", t.from_day, Interval::non_negative());
  t.time_scale = r.number_or("time_scale", t.time_scale, Interval::positive());
  t.repair = r.optional_quantity("repair", Quantity::TIME, Sign::POSITIVE);

  FaultTrace trace;
  if (!log) {
    for (const char* key : {"columns", "time_unit", "origin"}) {
      r.forbid(key, "it describes a log (format \"csv\", \"jsonl\" or \"sacct\")");
    }
    trace = parse_fault_trace(
        parse_json_text(read_named_file(r.at("file"), written, t.file, "a readable fault trace"),
                        t.file),
        t.file);
  } else {
    if (*log == FaultLogKind::SACCT && !t.repair) {
      r.at("repair").fail(
          "a repair duration with format \"sacct\" (sacct says when a node failed, not when it "
          "came back)",
          "nothing");
    }
    t.log = read_fault_log_format(r, *log);
    trace = parse_fault_log(
        read_named_file(r.at("file"), written, t.file, "a readable failure log"), *t.log, t.file);
  }
  t.trace_nodes = static_cast<int>(trace.nodes.size());
  if (t.mapping == TraceMapping::FILE)
    t.mapping_file = resolve_path(r.string("mapping_file"), file_label);
  const std::vector<int> slot = t.mapping == TraceMapping::FILE
                                    ? read_mapping(r, trace, p.nodes, t.extra_nodes, file_label)
                                    : slots_by_order(r, trace.nodes.size(), p.nodes, t.extra_nodes);
  const double seconds_per_day = SECONDS_PER_DAY * t.time_scale;
  for (const TraceFault& f : trace.faults) {
    const int s = slot[f.node];
    if (s < 0) continue;  // a dropped trace node ("ignore")
    const double start = (f.start - t.from_day) * seconds_per_day;
    // A fixed repair replaces the trace's: the slot gets a working machine that long after the
    // fault starts (the trace server's later faults still hit the slot).
    const double back = t.repair ? start + *t.repair
                        : f.end  ? (*f.end - t.from_day) * seconds_per_day
                                 : std::numeric_limits<double>::infinity();
    if (back <= 0.0) continue;  // over before the simulated time starts
    TraceOutage o;
    o.slot = s;
    o.at = std::max(0.0, start);  // open at from_day: down at 0
    o.back = back;
    o.cause = f.cause();
    o.host_memory_lost = !keeps_host_memory(f.kind);
    t.outages.push_back(std::move(o));
  }
  return t;
}

nlohmann::json cluster_trace_to_json(const ClusterTraceConfig& t) {
  nlohmann::json out{{"file", t.file},
                     {"mapping", spelling_of(t.mapping, MAPPINGS)},
                     {"extra_nodes", spelling_of(t.extra_nodes, EXTRA_NODES)},
                     {"from_day", t.from_day},
                     {"time_scale", t.time_scale}};
  if (t.mapping == TraceMapping::FILE) out["mapping_file"] = t.mapping_file;
  if (t.repair) out["repair"] = *t.repair;
  if (t.log) out.update(fault_log_format_to_json(*t.log));
  return out;
}

}  // namespace failsim::sim::detail
