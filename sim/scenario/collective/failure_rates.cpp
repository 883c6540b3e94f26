// The collective protocol's `failures.rates`: a per-component rate table with a cause mix
// (data/failure-rates/*.json, e.g. Llama 3's interruptions by cause), read with the scenario and
// turned into one exponential failure process per component kind, each failure drawing its cause
// by count (docs/cluster.md, "Failure rates by cause").
#include <map>

#include <fmt/format.h>

#include "input/json_input.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
using namespace failsim::input;
namespace {

struct CauseCount {
  FailureCause cause;
  ClusterTarget target = ClusterTarget::NODE;
};

}  // namespace

std::vector<ClusterStochasticFailures> read_rate_table(const std::string& path,
                                                       const std::string& table_text,
                                                       const Distribution& repair) {
  const nlohmann::json doc = parse_json_text(table_text, path);
  const ObjectReader r(doc, JsonLocation{path, ""},
                       {"name", "source", "notes", "window", "population", "causes"});
  (void)r.string("source");  // required: a rate table says where its numbers come from
  for (const char* text : {"name", "notes"}) {
    if (r.has(text)) (void)r.string(text);
  }
  const double window = r.quantity("window", Quantity::TIME, Sign::POSITIVE);
  std::vector<std::string_view> kinds;
  for (const auto& [spelling, target] : cluster_targets()) kinds.push_back(spelling);
  const ObjectReader population = r.object("population", kinds);
  const std::vector<CauseCount> counts =
      r.list("causes", 1, "causes (objects)", [&](const nlohmann::json& v, const JsonLocation& w) {
        const ObjectReader c(v, w, {"cause", "count", "target", "host_memory_lost"});
        CauseCount out;
        out.cause.name = c.string("cause");
        out.cause.weight = static_cast<double>(c.integer("count", 1));
        out.target = c.choice("target", cluster_targets());
        out.cause.host_memory_lost = read_bool(
            c.require("host_memory_lost", "true or false (does the node's host memory survive?)"),
            c.at("host_memory_lost"));
        const std::string kind = to_string(out.target);
        if (!population.has(kind)) {
          c.at("target").fail(
              fmt::format("a kind the table's population counts (population.{} missing)", kind),
              fmt::format("\"{}\"", kind));
        }
        return out;
      });
  std::vector<ClusterStochasticFailures> processes;
  for (const auto& [spelling, target] : cluster_targets()) {
    double count = 0.0;
    ClusterStochasticFailures p;
    p.target = target;
    for (const CauseCount& c : counts) {
      if (c.target != target) continue;
      count += c.cause.weight;
      p.causes.push_back(c.cause);
    }
    if (p.causes.empty()) continue;
    const auto components = static_cast<double>(population.integer(spelling, 1));
    // A component fails at rate count / (components x window): its mean lifetime is the inverse.
    p.lifetime = {DistributionKind::EXPONENTIAL, components * window / count, 1.0};
    p.repair = repair;
    processes.push_back(std::move(p));
  }
  return processes;
}

ClusterRatesConfig read_cluster_rates(const ObjectReader& failures, const std::string& file_label) {
  const ObjectReader r = failures.object("rates", {"file", "repair"});
  ClusterRatesConfig rates;
  const std::string written = r.string("file");
  check_path(r.at("file"), written);
  rates.file = resolve_path(written, file_label);
  rates.repair = read_distribution(r, "repair", Sign::NON_NEGATIVE);
  rates.processes = read_rate_table(
      rates.file,
      read_named_file(r.at("file"), written, rates.file, "a readable failure rate table"),
      rates.repair);
  return rates;
}

nlohmann::json cluster_rates_to_json(const ClusterRatesConfig& rates) {
  return {{"file", rates.file}, {"repair", distribution_to_json(rates.repair)}};
}

}  // namespace failsim::sim::detail
