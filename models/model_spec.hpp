// Which model to build: the one place that maps a model description to a Model object, made
// from the list models/models.def.
#pragma once

#include <memory>

#include "models/model.hpp"
#include "models/model_kind.hpp"

namespace failsim::models {

// The builders of models/models.def, each defined beside its model: a model for inputs of
// channels x height x width and `classes` outputs, or std::invalid_argument when the shape does
// not suit it.
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER)                                               \
  std::unique_ptr<Model> BUILDER(const ModelSpec& spec, int channels, int height, int width, \
                                 int classes);
#include "models/models.def"
#undef FAILSIM_MODEL

/// Builds the model for inputs of the given shape and number of classes. Throws
/// std::invalid_argument when the shape does not suit the model (e.g. the CNN needs 28x28).
std::unique_ptr<Model> make_model(const ModelSpec& spec, int channels, int height, int width,
                                  int classes);

}  // namespace failsim::models
