// The collective protocol's `workload` section: the transformer a step's time poses as (or
// none: the real model's own flops and size), the fraction of peak the kernels reach, the bytes
// of the training state, and whether the real math runs at all (time only: no data, no model).
#include <fmt/core.h>

#include <cstdint>
#include <optional>

#include "input/units.hpp"
#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
// The scenario reader is built on the input library's readers throughout.
using namespace failsim::input;
namespace {
const Choices<bool> MATH{{"real", true}, {"none", false}};
const Choices<Recompute> RECOMPUTE{
    {"none", Recompute::NONE}, {"selective", Recompute::SELECTIVE}, {"full", Recompute::FULL}};
constexpr double MAX_TOKENS = 1e15;

/// The tokens of one step: `global_batch_tokens`, or Megatron-LM's `global_batch_size` in
/// sequences of `sequence` tokens (docs/cluster.md, "Megatron-LM's names"); both only alike.
double read_global_batch(const ObjectReader& t, int sequence) {
  const std::optional<double> tokens =
      t.optional_number("global_batch_tokens", Interval{0.0, MAX_TOKENS, true, false});
  const std::optional<std::int64_t> sequences =
      t.optional_integer("global_batch_size", 1, static_cast<std::int64_t>(MAX_TOKENS / sequence));
  if (!tokens && !sequences) {
    t.at("global_batch_tokens")
        .fail(
            "the tokens of one step over every replica, or Megatron-LM's global_batch_size "
            "in sequences (required)",
            "nothing");
  }
  if (!sequences) return *tokens;
  const double from_sequences = static_cast<double>(*sequences) * sequence;
  if (tokens && *tokens != from_sequences) {
    t.at("global_batch_size")
        .fail(fmt::format("the step of /workload/transformer/global_batch_tokens {} = "
                          "global_batch_size x sequence {} (Megatron-LM's global_batch_size "
                          "counts sequences: one or the other, or both alike)",
                          *tokens, sequence),
              fmt::format("{} ({} x {} = {} tokens)", *sequences, *sequences, sequence,
                          from_sequences));
  }
  return from_sequences;
}
}  // namespace

WorkloadConfig read_workload(const ObjectReader& top) {
  const ObjectReader r =
      top.object_or_empty("workload", {"transformer", "achieved_fraction", "precision_bytes",
                                       "checkpoint_bytes_per_parameter",
                                       "memory_bytes_per_parameter", "recompute", "math"});
  WorkloadConfig w;
  if (r.has("transformer")) {
    const ObjectReader t =
        r.object("transformer", {"parameters", "layers", "hidden", "heads", "sequence",
                                 "global_batch_tokens", "global_batch_size"});
    TransformerConfig tr;
    // Counts written as numbers (7e9) or integers; at most 1e15 parameters or tokens.
    tr.parameters = t.number("parameters", Interval{0.0, 1e15, true, false});
    tr.layers = to_int(t.integer("layers", 1, 1'000'000));
    tr.hidden = to_int(t.integer("hidden", 1, 1'000'000'000));
    tr.heads = to_int(t.integer_or("heads", tr.heads, 0, 1'000'000'000));
    tr.sequence = to_int(t.integer("sequence", 1, 1'000'000'000));
    tr.global_batch_tokens = read_global_batch(t, tr.sequence);
    w.transformer = tr;
  }
  w.achieved_fraction =
      r.number_or("achieved_fraction", w.achieved_fraction, Interval{0.0, 1.0, true, false});
  w.precision_bytes = to_int(r.integer_or("precision_bytes", w.precision_bytes, 1, 16));
  w.checkpoint_bytes_per_parameter =
      r.number_or("checkpoint_bytes_per_parameter", w.checkpoint_bytes_per_parameter,
                  Interval{0.0, 1024.0, true, false});
  w.memory_bytes_per_parameter =
      r.number_or("memory_bytes_per_parameter", w.memory_bytes_per_parameter,
                  Interval{0.0, 1024.0, true, false});
  w.recompute = r.choice_or("recompute", w.recompute, RECOMPUTE);
  w.real_math = r.choice_or("math", w.real_math, MATH);
  if (!w.real_math && !w.transformer) {
    r.at("math").fail(
        "\"real\" without a transformer (time only needs the transformer's sizes: there is no "
        "model to take them from)",
        "\"none\"");
  }
  return w;
}

nlohmann::json workload_to_json(const WorkloadConfig& w) {
  nlohmann::json out{{"achieved_fraction", w.achieved_fraction},
                     {"precision_bytes", w.precision_bytes},
                     {"checkpoint_bytes_per_parameter", w.checkpoint_bytes_per_parameter},
                     {"memory_bytes_per_parameter", w.memory_bytes_per_parameter},
                     {"recompute", spelling_of(w.recompute, RECOMPUTE)},
                     {"math", spelling_of(w.real_math, MATH)}};
  if (w.transformer) {
    const TransformerConfig& t = *w.transformer;
    out["transformer"] = {
        {"parameters", t.parameters}, {"layers", t.layers},
        {"hidden", t.hidden},         {"heads", t.heads},
        {"sequence", t.sequence},     {"global_batch_tokens", t.global_batch_tokens}};
  }
  return out;
}

}  // namespace failsim::sim::detail
