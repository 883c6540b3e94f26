// `failsim import megatron`: a collective scenario (docs/cluster.md) from a Megatron-LM
// pretrain_gpt.py command line, with torchrun's before it when given: the layout (dp, tp, pp,
// micro-batches, the distributed optimizer), the transformer a step poses as (its parameters
// counted as Megatron-LM builds a GPT model), the precision, the recomputation, the iterations
// and the checkpoint interval. What Megatron-LM does not say (the node, the file system, the
// failures, the kernels' efficiency) are failsim's defaults and options (docs/cli.md). Every
// option the importer does not use is listed; every one it uses is checked, naming the option.
// Engine-free: the caller reads the node preset and checks the scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace failsim::import {

/// What the scenario needs and Megatron-LM does not say (the command's options, docs/cli.md).
struct MegatronImportOptions {
  std::string name = "megatron";  ///< the scenario's name
  std::string node = "h100-8x";   ///< platform.node: a preset's name or a node file
  int accelerators_per_node = 8;  ///< that node's accelerators (the caller read the preset)
  /// The job's nodes; required when the command line has no launcher (torchrun's --nnodes).
  std::optional<std::int64_t> nodes;
  double achieved_fraction = 0.4;  ///< workload.achieved_fraction (MFU)
  bool failures = true;            ///< the default random failures, or none
};

/// The shape of a Megatron-LM GPT model, as its options give it.
struct GptShape {
  double layers = 0, hidden = 0, heads = 0;
  double query_groups = 0;  ///< key/value heads: the heads without grouped-query attention
  double head_dim = 0;      ///< --kv-channels, else hidden / heads
  double ffn_hidden = 0;
  double padded_vocab = 0;         ///< the vocabulary padded as Megatron-LM pads it
  double position_embeddings = 0;  ///< learned absolute positions, 0 for rotary or none
  bool swiglu = false;             ///< a gated MLP: three matrices instead of two
  bool bias_linear = true;         ///< biases on every linear layer
  bool qkv_bias = false;           ///< a bias on the query, key and value projection alone
  bool rms_norm = false;           ///< RMSNorm (a weight) rather than LayerNorm (and a bias)
  bool untied_output = false;      ///< an output layer apart from the word embeddings
};

/// The parameters of `shape`, as Megatron-LM's GPT model holds them (docs/cli.md gives the
/// formula): per layer the query, key and value projection h (q + 2k), the output projection
/// q h, the MLP (3 or 2) h f, their biases and two norms; the final norm; the word embeddings
/// V h (twice when the output layer is untied); learned positions P h.
double gpt_parameters(const GptShape& shape);

struct MegatronImport {
  nlohmann::ordered_json scenario;   ///< a collective scenario, its sections in the docs' order
  std::vector<std::string> ignored;  ///< the options not used, by name, in order
};

/// The scenario of `command_line`: the arguments of pretrain_gpt.py, or a launcher's arguments,
/// the script (the first argument ending in ".py") and its arguments. Throws input::InputError
/// naming the option (`--micro-batch-size: expected a whole number >= 1, found 0`).
MegatronImport import_megatron(const std::vector<std::string>& command_line,
                               const MegatronImportOptions& options);

}  // namespace failsim::import
