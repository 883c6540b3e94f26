#include "models/model_spec.hpp"

#include "models/cnn.hpp"
#include "models/mlp.hpp"
#include "models/softmax_regression.hpp"

namespace failsim::models {

std::unique_ptr<Model> make_model(const ModelSpec& spec, int channels, int height, int width,
                                  int classes) {
  const int dim = channels * height * width;
  switch (spec.kind) {
    case ModelKind::SOFTMAX:
      return std::make_unique<SoftmaxRegression>(dim, classes);
    case ModelKind::MLP:
      return std::make_unique<Mlp>(dim, spec.hidden, classes);
    case ModelKind::CNN:
      return std::make_unique<Cnn>(spec.dropout, channels, height, width, classes);
  }
  throw std::invalid_argument("unknown model kind");
}

}  // namespace failsim::models
