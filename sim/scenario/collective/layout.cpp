// The collective protocol's `layout` section: dp x tp x pp, the ZeRO stage, micro-batches and
// the data-parallel collective. Whether the layout fits the platform is the plan's to check
// (sim/scenario/collective/plan.hpp): it needs the platform and the workload together.
#include <fmt/format.h>

#include <cstdint>

#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<DataParallelAlgorithm> DP_ALGORITHMS{
    {"ring", DataParallelAlgorithm::RING}, {"hierarchical", DataParallelAlgorithm::HIERARCHICAL}};
}  // namespace

LayoutConfig read_layout(const ObjectReader& top) {
  const ObjectReader r = top.object("layout", {"dp", "tp", "pp", "zero_stage", "micro_batches",
                                               "tp_across_nodes", "dp_algorithm", "overlap"});
  LayoutConfig l;
  constexpr std::int64_t MAX_DEGREE = 10'000'000;  // the platform's accelerators at most
  l.dp = to_int(r.integer_or("dp", l.dp, 1, MAX_DEGREE));
  l.tp = to_int(r.integer_or("tp", l.tp, 1, MAX_DEGREE));
  l.pp = to_int(r.integer_or("pp", l.pp, 1, MAX_DEGREE));
  // Each degree fits an int; their product is formed here, in 64 bits, and checked.
  const std::int64_t ranks = std::int64_t{l.dp} * l.tp * l.pp;
  if (ranks > MAX_DEGREE) {
    r.location().fail(
        fmt::format("dp x tp x pp of at most {} ranks (the platform's accelerators at most)",
                    MAX_DEGREE),
        fmt::format("dp {} x tp {} x pp {} = {} ranks", l.dp, l.tp, l.pp, ranks));
  }
  l.zero_stage = to_int(r.integer_or("zero_stage", l.zero_stage, 0, 3));
  l.micro_batches = to_int(r.integer_or("micro_batches", l.micro_batches, 1, 1'000'000));
  l.tp_across_nodes = r.boolean_or("tp_across_nodes", l.tp_across_nodes);
  l.dp_algorithm = r.choice_or("dp_algorithm", l.dp_algorithm, DP_ALGORITHMS);
  l.overlap = r.boolean_or("overlap", l.overlap);
  return l;
}

nlohmann::json layout_to_json(const LayoutConfig& l) {
  return {{"dp", l.dp},
          {"tp", l.tp},
          {"pp", l.pp},
          {"zero_stage", l.zero_stage},
          {"micro_batches", l.micro_batches},
          {"tp_across_nodes", l.tp_across_nodes},
          {"dp_algorithm", spelling_of(l.dp_algorithm, DP_ALGORITHMS)},
          {"overlap", l.overlap}};
}

}  // namespace failsim::sim::detail
