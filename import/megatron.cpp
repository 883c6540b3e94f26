// A collective scenario from a Megatron-LM command line (megatron.hpp). Each option is read where
// its section is made, with Megatron-LM's defaults, and checked with the options it depends on,
// so a refusal names the option to change (docs/cli.md, "failsim import megatron").
#include "import/megatron.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "import/flag_list.hpp"
#include "input/input_error.hpp"

namespace failsim::import {

namespace {
using nlohmann::ordered_json;

/// A whole number Megatron-LM requires.
std::int64_t required(FlagList& flags, std::string_view name, const char* what) {
  const std::optional<std::int64_t> value = flags.whole_number({name}, 1);
  if (!value) refuse(std::string(name), fmt::format("{} (Megatron-LM requires it)", what), "none");
  return *value;
}

/// One of `choices`, `fallback` when absent (Megatron-LM's default).
std::string choice(FlagList& flags, std::string_view name, const std::vector<std::string>& choices,
                   const std::string& fallback) {
  const std::string value = flags.text({name}).value_or(fallback);
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    refuse(std::string(name), fmt::format("one of {}", fmt::join(choices, ", ")), value);
  }
  return value;
}

/// The accelerators of the job, and how the command line said them (for messages).
struct World {
  std::int64_t nodes = 0;
  std::int64_t accelerators = 0;
  std::string said;
};

constexpr std::int64_t MAX_NODES = 1'000'000;  // a collective platform's most

/// torchrun's --nnodes x --nproc-per-node (its defaults: 1 and 1), one process per accelerator
/// of the node; without a launcher, failsim's --nodes.
World read_world(FlagList* launcher, const MegatronImportOptions& o) {
  const std::int64_t per_node = o.accelerators_per_node;
  if (o.nodes && *o.nodes > MAX_NODES) {
    refuse("--nodes", fmt::format("at most {} nodes (a collective platform's most)", MAX_NODES),
           std::to_string(*o.nodes));
  }
  if (launcher == nullptr) {
    if (!o.nodes) {
      refuse("--nodes",
             "the job's nodes (failsim import megatron --nodes N), or torchrun's --nnodes and "
             "--nproc-per-node before the script: Megatron-LM's options do not give the world "
             "size",
             "none");
    }
    return {*o.nodes, *o.nodes * per_node,
            fmt::format("--nodes {} x {} accelerators of node {} = {}", *o.nodes, per_node, o.node,
                        *o.nodes * per_node)};
  }
  if (const std::optional<std::string> range = launcher->text({"--nnodes"});
      range && range->find(':') != std::string::npos) {
    refuse("--nnodes", "a fixed count of nodes (an elastic range MIN:MAX is not one world size)",
           *range);
  }
  const std::int64_t nodes = launcher->whole_number({"--nnodes"}, 1, MAX_NODES).value_or(1);
  const std::initializer_list<std::string_view> nproc_names{"--nproc-per-node", "--nproc_per_node"};
  const std::optional<std::int64_t> nproc = launcher->whole_number(nproc_names, 1);
  if (nproc.value_or(1) != per_node) {
    const std::string name = nproc ? launcher->spelling(nproc_names) : "--nproc-per-node";
    refuse(name,
           fmt::format("one process per accelerator of node {}: {} (failsim import megatron "
                       "--node chooses another node)",
                       o.node, per_node),
           nproc ? std::to_string(*nproc) : "1 (torchrun's default: the option is absent)");
  }
  if (o.nodes && *o.nodes != nodes) {
    refuse("--nodes",
           fmt::format("torchrun's --nnodes {} (one or the other, or both alike)", nodes),
           std::to_string(*o.nodes));
  }
  return {nodes, nodes * per_node,
          fmt::format("torchrun --nnodes {} x --nproc-per-node {} = {}", nodes, per_node,
                      nodes * per_node)};
}

struct Layout {
  std::int64_t dp = 1, tp = 1, pp = 1, micro_batch_size = 1, global_batch_size = 1;
  int zero_stage = 0;
};

Layout read_layout(FlagList& flags, const World& world) {
  Layout l;
  l.tp = flags.whole_number({"--tensor-model-parallel-size"}, 1).value_or(1);
  l.pp = flags.whole_number({"--pipeline-model-parallel-size"}, 1).value_or(1);
  // Context parallelism would divide the world once more (dp = world / (tp x pp x cp)).
  const std::int64_t cp = flags.whole_number({"--context-parallel-size"}, 1).value_or(1);
  if (cp != 1) {
    refuse("--context-parallel-size",
           "1 (failsim's layout is dp x tp x pp: it has no context parallelism)",
           std::to_string(cp));
  }
  if (world.accelerators % (l.tp * l.pp) != 0) {
    refuse("--tensor-model-parallel-size",
           fmt::format("tp x --pipeline-model-parallel-size {} dividing the world size ({})", l.pp,
                       world.said),
           fmt::format("{} (tp {} x pp {} = {})", l.tp, l.tp, l.pp, l.tp * l.pp));
  }
  l.dp = world.accelerators / (l.tp * l.pp);
  l.micro_batch_size = required(flags, "--micro-batch-size", "the sequences of one micro-batch");
  // Megatron-LM's default global batch: one micro-batch on each replica.
  l.global_batch_size =
      flags.whole_number({"--global-batch-size"}, 1).value_or(l.micro_batch_size * l.dp);
  const std::int64_t unit = l.micro_batch_size * l.dp;
  if (l.global_batch_size % unit != 0) {
    refuse("--global-batch-size",
           fmt::format("a multiple of --micro-batch-size {} x dp {} = {} (dp = the world size {} "
                       "/ (tp {} x pp {}))",
                       l.micro_batch_size, l.dp, unit, world.accelerators, l.tp, l.pp),
           std::to_string(l.global_batch_size));
  }
  l.zero_stage = flags.on({"--use-distributed-optimizer"}) ? 1 : 0;
  return l;
}

/// The transformer's shape, with Megatron-LM's defaults and the divisions it requires.
GptShape read_shape(FlagList& flags, const Layout& l, std::int64_t sequence) {
  GptShape g;
  // Experts would change the parameters and add an all-to-all the time model does not have.
  if (const std::optional<std::string> experts = flags.text({"--num-experts"})) {
    refuse("--num-experts", "none (failsim poses as a dense transformer: no mixture of experts)",
           *experts);
  }
  const std::int64_t layers = required(flags, "--num-layers", "the transformer's layers");
  const std::int64_t hidden = required(flags, "--hidden-size", "the hidden size");
  const std::int64_t heads = required(flags, "--num-attention-heads", "the attention heads");
  if (layers % l.pp != 0) {
    refuse("--num-layers",
           fmt::format("a multiple of --pipeline-model-parallel-size {} (equal stages)", l.pp),
           std::to_string(layers));
  }
  if (heads % l.tp != 0) {
    refuse("--num-attention-heads",
           fmt::format("a multiple of --tensor-model-parallel-size {} (tp splits the heads)", l.tp),
           std::to_string(heads));
  }
  std::int64_t groups = heads;
  if (flags.on({"--group-query-attention"})) {
    // Megatron-LM reads --num-query-groups only with --group-query-attention (default 1).
    groups = flags.whole_number({"--num-query-groups"}, 1).value_or(1);
    if (heads % groups != 0 || groups % l.tp != 0) {
      refuse("--num-query-groups",
             fmt::format("a divisor of --num-attention-heads {} and a multiple of "
                         "--tensor-model-parallel-size {} (tp splits the key/value heads)",
                         heads, l.tp),
             std::to_string(groups));
    }
  }
  const std::optional<std::int64_t> kv_channels = flags.whole_number({"--kv-channels"}, 1);
  if (!kv_channels && hidden % heads != 0) {
    refuse("--hidden-size",
           fmt::format("a multiple of --num-attention-heads {} (the head dimension, unless "
                       "--kv-channels gives it)",
                       heads),
           std::to_string(hidden));
  }
  g.swiglu = flags.on({"--swiglu"});
  // Megatron-LM's default MLP width: 4h, or 2/3 of it rounded down to 64 for SwiGLU's three
  // matrices (the same parameters as two of 4h).
  const std::int64_t ffn_default = g.swiglu ? (8 * hidden / 3) / 64 * 64 : 4 * hidden;
  const std::int64_t ffn = flags.whole_number({"--ffn-hidden-size"}, 1).value_or(ffn_default);
  const std::optional<std::int64_t> vocab = flags.whole_number({"--vocab-size"}, 1);
  if (!vocab) {
    refuse("--vocab-size",
           "the vocabulary's size (Megatron-LM reads it from the tokenizer's files, which "
           "failsim does not read: add --vocab-size N, e.g. 32000 for Llama 2's tokenizer)",
           "none");
  }
  // Padded as Megatron-LM pads it: to a multiple of --make-vocab-size-divisible-by x tp.
  const std::int64_t pad =
      flags.whole_number({"--make-vocab-size-divisible-by"}, 1).value_or(128) * l.tp;
  const std::string positions =
      choice(flags, "--position-embedding-type", {"learned_absolute", "rope", "mrope", "none"},
             "learned_absolute");
  std::int64_t position_embeddings = 0;
  if (positions == "learned_absolute") {
    position_embeddings = flags.whole_number({"--max-position-embeddings"}, 1).value_or(sequence);
  }
  g.rms_norm = choice(flags, "--normalization", {"LayerNorm", "RMSNorm"}, "LayerNorm") == "RMSNorm";
  g.bias_linear = !flags.on({"--disable-bias-linear"});
  g.qkv_bias = flags.on({"--add-qkv-bias"});
  g.untied_output = flags.on({"--untie-embeddings-and-output-weights"});
  g.layers = static_cast<double>(layers);
  g.hidden = static_cast<double>(hidden);
  g.heads = static_cast<double>(heads);
  g.query_groups = static_cast<double>(groups);
  g.head_dim = static_cast<double>(kv_channels.value_or(hidden / heads));
  g.ffn_hidden = static_cast<double>(ffn);
  g.padded_vocab = static_cast<double>((*vocab + pad - 1) / pad * pad);
  g.position_embeddings = static_cast<double>(position_embeddings);
  return g;
}

/// The steps of the run: --train-iters, or --train-samples / --global-batch-size rounded down
/// as Megatron-LM rounds it.
std::int64_t read_iterations(FlagList& flags, const Layout& l) {
  const std::optional<std::int64_t> iters = flags.whole_number({"--train-iters"}, 1);
  const std::optional<std::int64_t> samples =
      flags.whole_number({"--train-samples"}, 1, 1'000'000'000'000'000);
  if (iters && samples) {
    refuse("--train-samples",
           "no --train-iters with it (Megatron-LM counts a run in iterations or in samples: one "
           "or the other)",
           fmt::format("{} with --train-iters {}", *samples, *iters));
  }
  if (iters) return *iters;
  if (!samples) {
    refuse("--train-iters",
           "the iterations to train, or --train-samples (Megatron-LM requires one)", "neither");
  }
  if (*samples < l.global_batch_size) {
    refuse("--train-samples",
           fmt::format("at least one step's --global-batch-size {} samples", l.global_batch_size),
           std::to_string(*samples));
  }
  return *samples / l.global_batch_size;
}

/// The workload section's settings of precision and recomputation.
ordered_json read_training_state(FlagList& flags) {
  const bool bf16 = flags.on({"--bf16"});
  const bool fp16 = flags.on({"--fp16"});
  if (bf16 && fp16) {
    refuse("--fp16", "no --bf16 with it (Megatron-LM trains in one 16-bit format)", "both");
  }
  // 16-bit: bf16 weights, fp32 master weights and Adam's two moments in the checkpoint (2 + 4 +
  // 8); fp32: the weights and the moments (4 + 8). In memory, with the gradients, 16 either way.
  const bool half = bf16 || fp16;
  const std::string granularity =
      flags.text({"--recompute-granularity"})
          ? choice(flags, "--recompute-granularity", {"selective", "full"}, "")
          : "none";
  // FlashAttention keeps what selective recomputation keeps (docs/cluster.md, "Layout").
  const bool flash = flags.on({"--use-flash-attn"});
  const std::string recompute = granularity == "none" && flash ? "selective" : granularity;
  return {{"precision_bytes", half ? 2 : 4},
          {"checkpoint_bytes_per_parameter", half ? 14 : 12},
          {"memory_bytes_per_parameter", 16},
          {"recompute", recompute}};
}

bool is_script(const std::string& arg) {
  return arg.size() > 3 && arg.compare(arg.size() - 3, 3, ".py") == 0;
}

std::string joined(const std::vector<std::string>& args) {
  return fmt::format("{}", fmt::join(args, " "));
}
}  // namespace

double gpt_parameters(const GptShape& s) {
  const double h = s.hidden, q = s.heads * s.head_dim, kv = s.query_groups * s.head_dim;
  const double mlp_in = (s.swiglu ? 2.0 : 1.0) * s.ffn_hidden;
  const double attention = h * (q + 2 * kv) + q * h;
  const double mlp = h * mlp_in + s.ffn_hidden * h;
  double biases = s.qkv_bias ? q + 2 * kv : 0.0;
  if (s.bias_linear) biases = (q + 2 * kv) + h + mlp_in + h;
  const double norm = s.rms_norm ? h : 2 * h;
  const double layer = attention + mlp + biases + 2 * norm;
  const double embeddings = s.padded_vocab * h * (s.untied_output ? 2.0 : 1.0);
  return s.layers * layer + norm + embeddings + s.position_embeddings * h;
}

MegatronImport import_megatron(const std::vector<std::string>& command_line,
                               const MegatronImportOptions& o) {
  const auto script = std::find_if(command_line.begin(), command_line.end(), is_script);
  std::optional<FlagList> launcher;  // the arguments before the script, when there are some
  if (script != command_line.end() && script != command_line.begin()) {
    launcher.emplace(std::vector<std::string>(command_line.begin(), script));
  }
  FlagList flags(script == command_line.end()
                     ? command_line
                     : std::vector<std::string>(script + 1, command_line.end()));
  const World world = read_world(launcher ? &*launcher : nullptr, o);
  const Layout l = read_layout(flags, world);
  const std::int64_t sequence = required(flags, "--seq-length", "the tokens of a sequence");
  const GptShape shape = read_shape(flags, l, sequence);
  const std::int64_t iterations = read_iterations(flags, l);
  // Megatron-LM saves every --save-interval iterations; without it, never.
  const std::int64_t save_interval = flags.whole_number({"--save-interval"}, 1).value_or(0);
  ordered_json workload = read_training_state(flags);

  // The parameters as an integer (Llama 2 7B's 6738415616) while a double holds them exactly;
  // beyond, the scenario's reader refuses them (at most 1e15) with the number as it is.
  const double parameters = gpt_parameters(shape);
  const auto count = [](double n) {
    return n < 9e15 ? ordered_json(static_cast<std::int64_t>(n)) : ordered_json(n);
  };
  const ordered_json transformer{{"parameters", count(parameters)},
                                 {"layers", count(shape.layers)},
                                 {"hidden", count(shape.hidden)},
                                 {"heads", count(shape.heads)},
                                 {"sequence", sequence},
                                 {"global_batch_size", l.global_batch_size}};
  ordered_json scenario{
      {"protocol", "collective"},
      {"name", o.name},
      {"description", "Imported by failsim import megatron from: " + joined(command_line)},
      {"seed", 1},
      {"platform",
       {{"node", o.node},
        {"nodes", world.nodes},
        {"file_system", {{"write_bandwidth", "1TBps"}, {"read_bandwidth", "2TBps"}}}}},
      {"layout",
       {{"dp", l.dp},
        {"tp", l.tp},
        {"pp", l.pp},
        {"zero_stage", l.zero_stage},
        {"micro_batch_size", l.micro_batch_size}}},
      {"workload", ordered_json::object()},
      {"stop", {{"train_iters", iterations}}}};
  scenario["workload"]["transformer"] = transformer;
  scenario["workload"]["achieved_fraction"] = o.achieved_fraction;
  for (auto& [key, value] : workload.items()) scenario["workload"][key] = value;
  scenario["workload"]["math"] = "none";
  if (o.failures) {
    // Llama 3 405B's training (Dubey et al. 2024, section 3.3.4): 419 unexpected interruptions
    // in 54 days on 16,384 GPUs, one accelerator's mean time between them 16,384 x 54 d / 419.
    scenario["failures"] = {{"stochastic",
                             {{{"target", "accelerator"},
                               {"lifetime", {{"distribution", "exponential"}, {"mean", "50677h"}}},
                               {"repair", {{"distribution", "fixed"}, {"value", "15min"}}}}}}};
  }
  scenario["recovery"] = {{"strategy", "checkpoint-restart"},
                          {"checkpoint", {{"every_steps", save_interval}}}};

  MegatronImport out;
  out.scenario = std::move(scenario);
  out.ignored = launcher ? launcher->unused() : std::vector<std::string>{};
  for (const std::string& name : flags.unused()) out.ignored.push_back(name);
  for (const std::string& word : flags.stray()) out.ignored.push_back("'" + word + "'");
  return out;
}

}  // namespace failsim::import
