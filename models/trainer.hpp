// Plain sequential mini-batch SGD over a data set: the reference training loop with no
// simulation around it (`failsim train`, the accuracy tests, and the baseline the simulator's
// math is compared with).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/dataset.hpp"
#include "models/evaluate.hpp"
#include "models/model.hpp"
#include "models/scratch.hpp"
#include "models/sgd.hpp"

namespace failsim::models {

struct TrainConfig {
  int epochs = 1;
  int batch_size = 32;
  SgdConfig sgd;
  std::uint64_t seed = 1;  ///< initial parameters, shuffling and dropout all derive from it
};

struct EpochReport {
  int epoch = 0;            ///< 1-based
  double train_loss = 0.0;  ///< mean over the epoch's batches
  EvalResult test;
  double math_seconds = 0.0;  ///< wall-clock seconds in gradient computation and update
};

/// Trains from seeded initial parameters, shuffling every epoch (the last partial batch is
/// dropped), evaluating on `test` after each epoch. Returns the final parameters.
FloatBuffer train(Model& model, const Dataset& train_set, const Dataset& test_set,
                  const TrainConfig& config,
                  const std::function<void(const EpochReport&)>& on_epoch = {});

}  // namespace failsim::models
