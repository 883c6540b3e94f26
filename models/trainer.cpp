#include "models/trainer.hpp"

#include <chrono>
#include <span>
#include <stdexcept>

#include "models/rng.hpp"

namespace failsim::models {

namespace {
// Independent streams of the run seed, so changing one use does not shift the others.
enum Stream : std::uint64_t { INIT = 0, SHUFFLE = 1, DROPOUT = 2 };
}  // namespace

FloatBuffer train(Model& model, const Dataset& train_set, const Dataset& test_set,
                  const TrainConfig& config,
                  const std::function<void(const EpochReport&)>& on_epoch) {
  if (config.batch_size <= 0 || config.batch_size > train_set.size()) {
    throw std::invalid_argument("train: batch size must be in [1, training set size]");
  }
  FloatBuffer params(model.num_params()), grad(model.num_params());
  model.init(params, derive_seed(config.seed, INIT));
  Sgd sgd(config.sgd, params.size());
  BatchBuffer buffer(config.batch_size, train_set.dim());
  Evaluator evaluator(model);
  const int batches = train_set.size() / config.batch_size;
  std::uint64_t step = 0;
  for (int epoch = 1; epoch <= config.epochs; ++epoch) {
    const auto order =
        shuffled_indices(train_set.size(), derive_seed(derive_seed(config.seed, SHUFFLE), epoch));
    EpochReport report;
    report.epoch = epoch;
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0.0;
    for (int b = 0; b < batches; ++b) {
      const Batch batch = buffer.gather(
          train_set,
          std::span<const int>(order).subspan(static_cast<std::size_t>(b) * config.batch_size,
                                              static_cast<std::size_t>(config.batch_size)));
      loss_sum += model.loss_and_gradient(params, batch, grad,
                                          derive_seed(derive_seed(config.seed, DROPOUT), step++));
      sgd.step(params, grad);
    }
    report.math_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.train_loss = loss_sum / batches;
    report.test = evaluator.evaluate(params, test_set);
    if (on_epoch) on_epoch(report);
  }
  return params;
}

}  // namespace failsim::models
