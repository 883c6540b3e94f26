// The transformer's shipped sizes (issue 35), from ~0.1M to ~10M parameters: the one table that
// the benchmark against PyTorch (bench/transformer-vs-torch.py) measures and that scenarios may
// name. Byte-level vocabulary (256) throughout, GPT-2's tied output layer and MLP ratio 4; the
// larger sizes widen and deepen together and lengthen the context, as GPT-2's family does.
#pragma once

#include <array>
#include <string_view>

#include "models/transformer.hpp"

namespace failsim::models {

struct TransformerSize {
  std::string_view name;
  TransformerConfig config;
};

/// Parameters (tied): tiny 120,576; small 842,496; medium 10,844,160.
inline const std::array<TransformerSize, 3> TRANSFORMER_SIZES{{
    {"tiny", {.vocab = 256, .sequence = 64, .layers = 2, .hidden = 64, .heads = 4}},
    {"small", {.vocab = 256, .sequence = 128, .layers = 4, .hidden = 128, .heads = 4}},
    {"medium", {.vocab = 256, .sequence = 256, .layers = 6, .hidden = 384, .heads = 6}},
}};

}  // namespace failsim::models
