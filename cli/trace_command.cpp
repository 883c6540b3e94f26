// `failsim trace fit TRACE`: what a per-node fault log (the InfiniteHBD format, input/
// fault_trace.hpp, or with --log a cluster's CSV, JSON-lines or sacct log, input/fault_log.hpp)
// says about failures: per-node MTBF, Weibull fits of the times between faults with 95%
// intervals, repair times, simultaneous faults, and how unequal the nodes' rates are
// (analysis/trace_fit.hpp, analysis/node_rate_fit.hpp, docs/cli.md "failsim trace fit").
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>

#include "analysis/trace_fit.hpp"
#include "cli/commands.hpp"
#include "input/fault_log.hpp"
#include "input/fault_trace.hpp"
#include "input/input_error.hpp"
#include "input/json_input.hpp"
#include "input/option_checks.hpp"

namespace failsim::cli {
namespace {

/// The trace at `file`: the InfiniteHBD format, or with `log` (a JSON object holding "format",
/// "columns", "time_unit" and "origin", read as failures.trace reads them and named "--log" in
/// its errors) a cluster's log.
input::FaultTrace read_trace(const std::string& file, const std::string& log) {
  if (log.empty()) return input::read_fault_trace(file, file);
  const nlohmann::json doc = input::parse_json_text(log, "--log");
  const input::ObjectReader r(doc, input::JsonLocation{"--log", ""},
                              {"format", "columns", "time_unit", "origin"});
  const input::FaultLogKind kind = r.choice("format", input::fault_log_kinds());
  const input::FaultLogFormat format = input::read_fault_log_format(r, kind);
  return input::parse_fault_log(input::read_input_file(file, "a readable failure log"), format,
                                file);
}

}  // namespace

Command add_trace_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("trace", "Fault traces: fit one (failsim trace fit TRACE)");
  sub->require_subcommand(1);
  CLI::App* fit = sub->add_subcommand(
      "fit", "Per-node MTBF, Weibull fits of times between faults, repair times of a fault trace");
  auto file = std::make_shared<std::string>();
  auto nodes = std::make_shared<std::size_t>(0);
  auto as_json = std::make_shared<bool>(false);
  fit->add_option("trace", *file, "the trace file (InfiniteHBD format)")->required();
  fit->add_option("--nodes", *nodes,
                  "the cluster's nodes (a trace lists only the nodes that failed; default: those)")
      ->check(input::whole_number<std::size_t>(1));
  fit->add_flag("--json", *as_json, "print the figures as one JSON object");
  auto log = std::make_shared<std::string>();
  fit->add_option("--log", *log,
                  "a cluster's log instead of the InfiniteHBD format: a JSON object as "
                  "failures.trace writes it, e.g. '{\"format\": \"csv\", \"columns\": "
                  "{\"time\": \"timestamp\", \"node\": \"host\"}}' (docs/cluster.md, "
                  "\"Failure logs\")");
  return {sub, [file, nodes, as_json, log] {
            try {
              const input::FaultTrace trace = read_trace(*file, *log);
              const std::optional<std::size_t> counted =
                  *nodes > 0 ? std::optional<std::size_t>(*nodes) : std::nullopt;
              if (counted && *counted < trace.nodes.size()) {
                fmt::print(stderr,
                           "failsim trace fit: --nodes: expected at least the {} nodes the trace "
                           "names, found {}\n",
                           trace.nodes.size(), *counted);
                return static_cast<int>(BAD_INPUT);
              }
              const analysis::TraceFit f = analysis::fit_trace(trace, counted);
              if (*as_json) {
                nlohmann::json out = analysis::to_json(f);
                out["trace"] = *file;
                fmt::print("{}\n", out.dump(2));
              } else {
                fmt::print("{}", analysis::format_trace_fit(f, *file));
              }
              return static_cast<int>(OK);
            } catch (const input::InputError& e) {
              fmt::print(stderr, "{}\n", e.what());
            } catch (const std::invalid_argument& e) {
              fmt::print(stderr, "{}: {}\n", *file, e.what());
            }
            return static_cast<int>(BAD_INPUT);
          }};
}

}  // namespace failsim::cli
