// make_model(): one case per entry of models/models.def.
#include "models/model_spec.hpp"

#include <stdexcept>

namespace failsim::models {

std::unique_ptr<Model> make_model(const ModelSpec& spec, int channels, int height, int width,
                                  int classes) {
  switch (spec.kind) {
#define FAILSIM_MODEL(KIND, SPELLING, BUILDER) \
  case ModelKind::KIND:                        \
    return BUILDER(spec, channels, height, width, classes);
#include "models/models.def"
#undef FAILSIM_MODEL
  }
  throw std::invalid_argument("unknown model kind");
}

}  // namespace failsim::models
