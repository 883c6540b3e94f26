// Analytic gradients of the dense models against central finite differences
// (the CNN has its own checks in test_cnn.cpp, using the same helper).
#include <catch2/catch.hpp>
#include <vector>

#include "gradient_check.hpp"
#include "models/mlp.hpp"
#include "models/rng.hpp"
#include "models/softmax_regression.hpp"

using namespace failsim::models;
using failsim::testing::check_gradient;
using failsim::testing::initial;
using failsim::testing::RandomBatch;

TEST_CASE("softmax regression gradient matches finite differences", "[gradients]") {
  SoftmaxRegression model(7, 4);
  const RandomBatch batch(5, 7, 4, 1);
  const auto result = check_gradient(model, initial(model, 2), batch.view(), 30, 1e-2f);
  CHECK(result.checked == 32);
  CHECK(result.max_rel_error < 1e-2);
}

TEST_CASE("MLP gradient matches finite differences", "[gradients]") {
  Mlp model(6, {9, 5}, 3);
  const RandomBatch batch(4, 6, 3, 3);
  // h = 1e-3: a larger step crosses ReLU kinks of units whose pre-activation is near zero.
  const auto result = check_gradient(model, initial(model, 4), batch.view(), 60, 1e-3f);
  CHECK(result.max_rel_error < 2e-2);
}

TEST_CASE("MLP without hidden layers is softmax regression", "[gradients]") {
  Mlp mlp(5, {}, 3);
  SoftmaxRegression softmax(5, 3);
  REQUIRE(mlp.num_params() == softmax.num_params());
  const auto p = initial(softmax, 9);
  const RandomBatch batch(3, 5, 3, 5);
  std::vector<float> g1(p.size()), g2(p.size());
  CHECK(mlp.loss_and_gradient(p, batch.view(), g1, 0) ==
        softmax.loss_and_gradient(p, batch.view(), g2, 0));
  CHECK(g1 == g2);
}

TEST_CASE("a broken gradient is caught by the check", "[gradients]") {
  // Guards the checker itself: a model whose gradient is off by a factor must fail it.
  struct Wrong : SoftmaxRegression {
    using SoftmaxRegression::SoftmaxRegression;
    float loss_and_gradient(std::span<const float> p, const Batch& b, std::span<float> g,
                            std::uint64_t s) override {
      const float loss = SoftmaxRegression::loss_and_gradient(p, b, g, s);
      for (float& v : g) v *= 1.1f;
      return loss;
    }
  } model(4, 3);
  const RandomBatch batch(3, 4, 3, 6);
  CHECK(check_gradient(model, initial(model, 1), batch.view(), 20, 1e-2f).max_rel_error > 4e-2);
}

TEST_CASE("initialisation is seeded and within the fan-in bound", "[models]") {
  Mlp model(16, {8}, 4);
  const auto a = initial(model, 11), b = initial(model, 11), c = initial(model, 12);
  CHECK(a == b);
  CHECK(a != c);
  for (std::size_t i = 0; i < 16 * 8; ++i) CHECK(std::abs(a[i]) <= 0.25f);  // 1/sqrt(16)
  CHECK(model.num_params() == 16 * 8 + 8 + 8 * 4 + 4);
  CHECK(model.name() == "mlp[8]");
  CHECK(model.forward_flops_per_sample() == 2.0 * 16 * 8 + 8 + 2.0 * 8 * 4 + 4);
}
