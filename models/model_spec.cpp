// make_model(): one case per entry of models/models.def.
#include "models/model_spec.hpp"

#include <stdexcept>

namespace failsim::models {

std::unique_ptr<Model> make_model(const ModelSpec& spec, const DataShape& data) {
  const bool tokens = input_of(spec.kind) == ModelInput::TOKENS;
  if (data.tokens != tokens) {
    throw std::invalid_argument(
        "model \"" + to_string(spec.kind) + "\" takes " +
        (tokens ? "windows of token ids of text" : "numbers (an image or a vector)") + ", not " +
        (data.tokens ? "windows of token ids of text" : "numbers"));
  }
  switch (spec.kind) {
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER, INPUT) \
  case ModelKind::KIND:                               \
    return BUILDER(spec, data);
#include "models/models.def"
#undef FAILSIM_MODEL
  }
  throw std::invalid_argument("unknown model kind");
}

}  // namespace failsim::models
