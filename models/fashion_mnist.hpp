// Where Fashion-MNIST lives on a machine set up by scripts/setup.sh (the Debian package
// dataset-fashion-mnist): the one default that the scenario format, `failsim train` and the
// loaders share.
#pragma once

namespace failsim::models {

inline constexpr const char* FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist";

}  // namespace failsim::models
