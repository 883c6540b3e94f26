// Which model to build: the one place that maps a model description to a Model object, made
// from the list models/models.def.
#pragma once

#include <memory>

#include "models/model.hpp"
#include "models/model_kind.hpp"

namespace failsim::models {

// The builders of models/models.def, each defined beside its model: a model for samples of
// the data's shape (channels x height x width numbers and num_classes outputs, or windows of
// width token ids of a vocabulary of num_classes), or std::invalid_argument when the shape does
// not suit it. Why the whole DataShape rather than an image's dimensions: a window of text is no
// image, and the transformer takes its vocabulary and window from the data.
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER, INPUT) \
  std::unique_ptr<Model> BUILDER(const ModelSpec& spec, const DataShape& data);
#include "models/models.def"
#undef FAILSIM_MODEL

/// Builds the model for samples of `data`'s shape (its `samples` is not read). Throws
/// std::invalid_argument when the data does not suit the model: text for a model of numbers or
/// numbers for one of text (input_of), or a shape the model cannot take (the CNN needs 28x28).
std::unique_ptr<Model> make_model(const ModelSpec& spec, const DataShape& data);

}  // namespace failsim::models
