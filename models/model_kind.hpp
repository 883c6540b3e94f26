// The kinds of model failsim builds, their spellings and the description of one model: the one
// vocabulary that the scenario format, `failsim train` and the model factory
// (models/model_spec.hpp) share. Its own header so that the scenario reader names them without
// the math. The kinds come from the list models/models.def.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace failsim::models {

enum class ModelKind {
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER, INPUT) KIND,
#include "models/models.def"
#undef FAILSIM_MODEL
};

/// What a model's samples are: numbers (an image, a vector) or windows of token ids of text
/// (models/dataset.hpp's DataShape::tokens).
enum class ModelInput { FEATURES, TOKENS };

/// Every kind with its spelling, in the order the docs list them (models/models.def).
inline constexpr std::array MODEL_KINDS{
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER, INPUT) \
  std::pair<std::string_view, ModelKind>{SPELLING, ModelKind::KIND},
#include "models/models.def"
#undef FAILSIM_MODEL
};

/// What the kind's samples are (models/models.def).
constexpr ModelInput input_of(ModelKind kind) {
  switch (kind) {
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER, INPUT) \
  case ModelKind::KIND:                               \
    return ModelInput::INPUT;
#include "models/models.def"
#undef FAILSIM_MODEL
  }
  return ModelInput::FEATURES;
}

/// The kind's spelling: "softmax", "mlp", "cnn" or "transformer".
inline std::string to_string(ModelKind kind) {
  for (const auto& [spelling, k] : MODEL_KINDS) {
    if (k == kind) return std::string(spelling);
  }
  return "?";
}

/// Which model to build: the scenario's `model` section and `failsim train`'s options.
struct ModelSpec {
  ModelKind kind = ModelKind::SOFTMAX;
  /// MLP: hidden layer widths, input to output (non-empty).
  std::vector<int> hidden;
  /// CNN: dropout probability in [0, 1) before the last layer (the study's 0.25). A double as
  /// the scenario writes it; the CNN computes with it as a float.
  double dropout = 0.25;
  /// TRANSFORMER: its sizes (models/transformer.hpp's TransformerConfig without the vocabulary,
  /// which is the data's). `sequence` also sets the data's windows: sequence + 1 tokens.
  struct Transformer {
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int sequence = 0;
    int mlp_ratio = 4;
    bool tied = true;
    /// Not the model's shape but how a run computes its gradients: each batch in this many parts,
    /// each a job of the math pool, summed in part order (sim/engine/gradient_parts.hpp). The
    /// bits depend on it, never on the threads; at most the batch size. 1, the whole batch as
    /// one job, by default (docs/language-model.md, "Threads", says why).
    int gradient_parts = 1;
    bool operator==(const Transformer&) const = default;
  } transformer;

  bool operator==(const ModelSpec&) const = default;
};

}  // namespace failsim::models
