// End-to-end learning checks of models/: real training must actually learn.
#include <catch2/catch.hpp>

#include "models/idx.hpp"
#include "models/mlp.hpp"
#include "models/softmax_regression.hpp"
#include "models/trainer.hpp"

using namespace failsim::models;

TEST_CASE("softmax regression on real Fashion-MNIST passes a clear accuracy bar",
          "[training][fashion]") {
  // 10k training samples, one epoch: well-known to reach ~0.75-0.80; chance is 0.10.
  const Dataset train_set = load_fashion_mnist(Split::TRAIN, FASHION_MNIST_DIR, 10000);
  const Dataset test_set = load_fashion_mnist(Split::TEST);
  SoftmaxRegression model(train_set.dim(), train_set.num_classes);
  TrainConfig config;
  config.epochs = 1;
  EvalResult last;
  train(model, train_set, test_set, config, [&](const EpochReport& r) { last = r.test; });
  CHECK(last.samples == 10000);
  CHECK(last.accuracy > 0.72);
  CHECK(last.loss < 0.9);
}

TEST_CASE("training is deterministic for a seed", "[training][fashion]") {
  const Dataset train_set = load_fashion_mnist(Split::TRAIN, FASHION_MNIST_DIR, 2000);
  const Dataset test_set = load_fashion_mnist(Split::TEST, FASHION_MNIST_DIR, 500);
  Mlp model(train_set.dim(), {32}, 10);
  TrainConfig config;
  config.sgd.momentum = 0.9f;
  const auto a = train(model, train_set, test_set, config);
  const auto b = train(model, train_set, test_set, config);
  config.seed = 2;
  const auto c = train(model, train_set, test_set, config);
  CHECK(a == b);
  CHECK(a != c);
}
