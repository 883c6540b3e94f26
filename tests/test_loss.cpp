#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "models/loss.hpp"

using failsim::models::softmax_cross_entropy;

TEST_CASE("cross-entropy of uniform logits is log(classes)", "[loss]") {
  const std::vector<float> logits(2 * 4, 3.0f);
  const std::vector<std::int32_t> y{0, 3};
  std::vector<float> d(8);
  CHECK(softmax_cross_entropy(logits.data(), y.data(), 2, 4, d.data()) == Approx(std::log(4.0)));
  // d = (softmax - onehot) / n = (0.25 - [y]) / 2
  CHECK(d[0] == Approx(-0.375f));
  CHECK(d[1] == Approx(0.125f));
  CHECK(d[7] == Approx(-0.375f));
}

TEST_CASE("cross-entropy is stable for huge logits and its gradient rows sum to zero", "[loss]") {
  std::vector<float> logits{1000.0f, 0.0f, -1000.0f};
  const std::int32_t y = 1;
  const float loss = softmax_cross_entropy(logits.data(), &y, 1, 3, logits.data());  // aliasing
  CHECK(loss == Approx(1000.0f));
  CHECK(std::isfinite(logits[0]));
  CHECK(logits[0] + logits[1] + logits[2] == Approx(0.0f).margin(1e-6));
  CHECK(logits[1] == Approx(-1.0f));
}
