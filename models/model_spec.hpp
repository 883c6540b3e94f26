// Which model to build: the one place that maps a model description to a Model object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/model_kind.hpp"

namespace failsim::models {

struct ModelSpec {
  ModelKind kind = ModelKind::SOFTMAX;
  std::vector<int> hidden;  ///< MLP hidden layer sizes
  float dropout = 0.25f;    ///< CNN dropout probability (the study's 0.25)
};

/// Builds the model for inputs of the given shape and number of classes. Throws
/// std::invalid_argument when the shape does not suit the model (e.g. the CNN needs 28x28).
std::unique_ptr<Model> make_model(const ModelSpec& spec, int channels, int height, int width,
                                  int classes);

}  // namespace failsim::models
