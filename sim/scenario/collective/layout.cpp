// The collective protocol's `layout` section: dp x tp x pp, the ZeRO stage, micro-batches (or
// Megatron-LM's micro_batch_size) and the data-parallel collective. Whether the layout fits the
// platform is the plan's to check (sim/scenario/collective/plan.hpp): it needs the platform and the
// workload together.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<DataParallelAlgorithm> DP_ALGORITHMS{
    {"ring", DataParallelAlgorithm::RING}, {"hierarchical", DataParallelAlgorithm::HIERARCHICAL}};
constexpr std::int64_t MAX_MICRO_BATCHES = 1'000'000;

/// One step's batch over every replica as Megatron-LM's global_batch_size counts it: sequences
/// of the transformer (its tokens / sequence), or the real model's dp x optimizer.batch_size
/// samples; in `unit_size` (tokens of a sequence, or 1) so that whole micro-batches are an exact
/// fmod of `total`.
struct StepBatch {
  double total = 0.0;
  double unit_size = 1.0;
  const char* unit = "samples";
  std::string said;  ///< the step's batch in words, with where it comes from

  double units() const { return total / unit_size; }
};

StepBatch step_batch(const Scenario& s, int dp) {
  const WorkloadConfig& w = s.collective.workload;
  if (w.transformer) {
    const TransformerConfig& x = *w.transformer;
    const double sequences = x.global_batch_tokens / x.sequence;
    return {x.global_batch_tokens, static_cast<double>(x.sequence), "sequences",
            fmt::format("global_batch_size {} sequences (workload.transformer: {} tokens / "
                        "sequence {})",
                        sequences, x.global_batch_tokens, x.sequence)};
  }
  const double samples = static_cast<double>(dp) * s.optimizer.batch_size;
  return {samples, 1.0, "samples",
          fmt::format("{} samples a step (dp {} x optimizer.batch_size {})", samples, dp,
                      s.optimizer.batch_size)};
}

/// Whether the scenario gives its step in sequences (workload.transformer.global_batch_size).
bool global_batch_size_written(const ObjectReader& top) {
  const nlohmann::json* workload = top.find("workload");
  if (workload == nullptr || !workload->is_object()) return false;
  const auto transformer = workload->find("transformer");
  if (transformer == workload->end() || !transformer->is_object()) return false;
  const auto size = transformer->find("global_batch_size");
  return size != transformer->end() && !size->is_null();
}

/// The micro-batches of a step, from `micro_batches`, Megatron-LM's `micro_batch_size` (the
/// sequences of one micro-batch on one replica: global_batch_size = micro_batch_size x
/// micro-batches x dp), or both alike (docs/cluster.md, "Megatron-LM's names").
int read_micro_batches(const ObjectReader& top, const ObjectReader& r, const Scenario& s, int dp) {
  const std::optional<std::int64_t> m = r.optional_integer("micro_batches", 1, MAX_MICRO_BATCHES);
  const std::optional<std::int64_t> b = r.optional_integer("micro_batch_size", 1, 1'000'000'000);
  const StepBatch step = step_batch(s, dp);
  if (!b) {
    const std::int64_t micro_batches = m.value_or(1);
    // The step in sequences must split into whole micro-batches; said where it was written.
    const double unit = step.unit_size * dp * static_cast<double>(micro_batches);
    if (global_batch_size_written(top) && std::fmod(step.total, unit) != 0.0) {
      top.at("workload")
          .child("transformer")
          .child("global_batch_size")
          .fail(fmt::format("a multiple of dp {} x layout.micro_batches {} = {} sequences "
                            "(global_batch_size = micro_batch_size x micro-batches x dp: a "
                            "micro-batch is whole sequences)",
                            dp, micro_batches, dp * micro_batches),
                fmt::format("{}", step.units()));
    }
    return to_int(micro_batches);
  }
  const double per_micro_batch = step.unit_size * static_cast<double>(*b) * dp;
  if (m) {
    const double product = static_cast<double>(*b) * static_cast<double>(*m) * dp;
    if (product != step.units()) {
      r.at("micro_batch_size")
          .fail(fmt::format("micro_batch_size x /layout/micro_batches {} x dp {} = the step's {} "
                            "(a micro_batch_size of {} with these micro-batches: one or the "
                            "other, or both alike)",
                            *m, dp, step.said, step.units() / (static_cast<double>(*m) * dp)),
                fmt::format("{} ({} x {} x {} = {} {})", *b, *b, *m, dp, product, step.unit));
    }
    return to_int(*m);
  }
  const double micro_batches = step.total / per_micro_batch;
  if (std::fmod(step.total, per_micro_batch) != 0.0 ||
      micro_batches > static_cast<double>(MAX_MICRO_BATCHES)) {
    r.at("micro_batch_size")
        .fail(fmt::format("a divisor of the {} {} of one replica's step, making at most {} "
                          "micro-batches (global_batch_size = micro_batch_size x micro-batches "
                          "x dp {}, of {})",
                          step.units() / dp, step.unit, MAX_MICRO_BATCHES, dp, step.said),
              fmt::format("{} ({:.6g} micro-batches)", *b, micro_batches));
  }
  return static_cast<int>(micro_batches);
}
}  // namespace

LayoutConfig read_layout(const ObjectReader& top, const Scenario& s) {
  const ObjectReader r =
      top.object("layout", {"dp", "tp", "pp", "zero_stage", "micro_batches", "micro_batch_size",
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
  l.micro_batches = read_micro_batches(top, r, s, l.dp);
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
