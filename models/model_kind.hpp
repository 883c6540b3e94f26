// The kinds of model failsim builds and their spellings: the one vocabulary that the scenario
// format, `failsim train` and the model factory (models/model_spec.hpp) share. Its own header so
// that the scenario reader names them without the math.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace failsim::models {

enum class ModelKind { SOFTMAX, MLP, CNN };

/// Every kind with its spelling, in the order the docs list them.
inline constexpr std::array<std::pair<std::string_view, ModelKind>, 3> MODEL_KINDS{{
    {"softmax", ModelKind::SOFTMAX},
    {"mlp", ModelKind::MLP},
    {"cnn", ModelKind::CNN},
}};

/// The kind's spelling: "softmax", "mlp" or "cnn".
inline std::string to_string(ModelKind kind) {
  for (const auto& [spelling, k] : MODEL_KINDS) {
    if (k == kind) return std::string(spelling);
  }
  return "?";
}

}  // namespace failsim::models
