// AdamW, its schedule and its clipping, each checked against steps worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/adamw.hpp"

using namespace failsim::models;

namespace {

/// lr 0.1, betas 0.9 and 0.999, eps 1e-8, weight decay 0.1, warm-up 2 steps, the cosine down to
/// 0.01 at step 10, clipping at norm 1.
AdamWConfig worked() {
  AdamWConfig c;
  c.learning_rate = 0.1f;
  c.beta1 = 0.9f;
  c.beta2 = 0.999f;
  c.eps = 1e-8f;
  c.weight_decay = 0.1f;
  c.warmup_steps = 2;
  c.decay_steps = 10;
  c.min_lr_ratio = 0.1f;
  c.clip_norm = 1.0f;
  return c;
}

}  // namespace

TEST_CASE("AdamW's schedule: linear warm-up, cosine decay, then the floor", "[adamw]") {
  const AdamW adam(worked(), 1);
  CHECK(adam.learning_rate(1) == Approx(0.05));  // 0.1 * 1/2
  CHECK(adam.learning_rate(2) == Approx(0.1));   // the peak
  // Step 4: progress (4 - 2)/(10 - 2) = 1/4; 0.01 + 0.09 (1 + cos(pi/4))/2 = 0.0868198.
  CHECK(adam.learning_rate(4) == Approx(0.0868198));
  CHECK(adam.learning_rate(6) == Approx(0.055));  // halfway: 0.01 + 0.09/2
  CHECK(adam.learning_rate(10) == Approx(0.01));
  CHECK(adam.learning_rate(50) == Approx(0.01));
  CHECK_THROWS_AS(adam.learning_rate(0), std::invalid_argument);
}

TEST_CASE("AdamW's first two steps on two parameters, worked by hand", "[adamw]") {
  AdamW adam(worked(), 2);
  std::vector<float> p{1.0f, -2.0f};
  // Step 1, lr 0.05. g = (3, 4), norm 5: clipped by 1/(5 + 1e-6) to g' = (0.6, 0.8) (to 2e-7).
  // m = 0.1 g' = (0.06, 0.08), v = 0.001 g'^2 = (3.6e-4, 6.4e-4); bias-corrected, m^ = g' and
  // v^ = g'^2, so the Adam update is g'/|g'| = (1, 1) (less eps/|g'|). With the decay
  // p (1 - 0.05 * 0.1) = 0.995 p: p = (0.995 - 0.05, -1.99 - 0.05) = (0.945, -2.04).
  const std::vector<float> g1{3.0f, 4.0f};
  CHECK(adam.step(p, g1) == Approx(5.0f));
  CHECK(p[0] == Approx(0.945).epsilon(1e-6));
  CHECK(p[1] == Approx(-2.04).epsilon(1e-6));
  CHECK(adam.first_moment()[0] == Approx(0.06).epsilon(1e-5));
  // 1 - 0.999f is 0.00099998713 in float: v is 1.3e-5 below 6.4e-4 relatively.
  CHECK(adam.second_moment()[1] == Approx(6.4e-4).epsilon(2e-5));
  // Step 2, lr 0.1. g = (-1, 0.5), norm 1.118034: g' = g / 1.118034 = (-0.894427, 0.447214).
  // m = 0.9 (0.06, 0.08) + 0.1 g' = (-0.0354427, 0.1167213); m^ = m / 0.19 = (-0.186541,
  // 0.614323). v = 0.999 (3.6e-4, 6.4e-4) + 0.001 g'^2 = (1.159638e-3, 8.393594e-4);
  // sqrt(v^) = sqrt(v / 0.001999) = (0.761650, 0.647989). Update m^ / sqrt(v^) = (-0.244917,
  // 0.948045); p = 0.99 p - 0.1 update = (0.935550 + 0.0244917, -2.0196 - 0.0948045)
  //   = (0.960042, -2.114404).
  const std::vector<float> g2{-1.0f, 0.5f};
  CHECK(adam.step(p, g2) == Approx(1.118034f));
  CHECK(p[0] == Approx(0.9600416).epsilon(1e-6));
  CHECK(p[1] == Approx(-2.1144045).epsilon(1e-6));
  CHECK(adam.steps() == 2);
  // The caller's gradient is not clipped in place.
  CHECK(g2 == std::vector<float>{-1.0f, 0.5f});
}

TEST_CASE("AdamW leaves a gradient under the clipping norm unscaled", "[adamw]") {
  AdamWConfig c = worked();
  c.weight_decay = 0.0f;
  c.clip_norm = 10.0f;
  c.beta1 = 0.0f;  // m = g: the update is g / (|g| + eps) times sqrt(1 - b2)/sqrt(1 - b2) = sign
  AdamW adam(c, 1);
  std::vector<float> p{0.0f};
  adam.step(p, std::vector<float>{3.0f});
  CHECK(p[0] == Approx(-0.05).epsilon(1e-6));
  CHECK(adam.first_moment()[0] == 3.0f);  // unscaled: 3 < 10
}

TEST_CASE("AdamW rejects a bad configuration, naming the field", "[adamw]") {
  AdamWConfig c = worked();
  c.decay_steps = 2;
  CHECK_THROWS_WITH(AdamW(c, 1),
                    "AdamW: decay_steps must be 0 (no decay) or > warmup_steps, got 2.000000");
  c = worked();
  c.beta2 = 1.0f;
  CHECK_THROWS_WITH(AdamW(c, 1), Catch::Contains("beta2 must be in [0, 1)"));
  c = worked();
  c.clip_norm = -1.0f;
  CHECK_THROWS_WITH(AdamW(c, 1), Catch::Contains("clip_norm"));
  AdamW adam(worked(), 2);
  std::vector<float> p(3);
  CHECK_THROWS_AS(adam.step(p, std::vector<float>(3)), std::invalid_argument);
}

TEST_CASE("AdamW restored from its state steps as the original", "[adamw]") {
  AdamW original(worked(), 2);
  std::vector<float> p{1.0f, -2.0f};
  original.step(p, std::vector<float>{3.0f, 4.0f});
  AdamW restored(worked(), 2);
  restored.set_state(original.first_moment(), original.second_moment(), original.steps());
  std::vector<float> q = p;
  const std::vector<float> g{-1.0f, 0.5f};
  original.step(p, g);
  restored.step(q, g);
  CHECK(q == p);  // bit for bit: the same state, learning rate and bias corrections
  CHECK(restored.steps() == 2);
  CHECK_THROWS_AS(restored.set_state(std::vector<float>(3), original.second_moment(), 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(restored.set_state(original.first_moment(), original.second_moment(), -1),
                  std::invalid_argument);
}

TEST_CASE("AdamW without decay holds the peak after the warm-up", "[adamw]") {
  AdamWConfig c = worked();
  c.decay_steps = 0;
  const AdamW adam(c, 1);
  CHECK(adam.learning_rate(1) == Approx(0.05));
  CHECK(adam.learning_rate(2) == 0.1f);
  CHECK(adam.learning_rate(1000) == 0.1f);
}

TEST_CASE("AdamW from one buffer into another is the step in place, and scales its rate",
          "[adamw]") {
  const std::vector<float> g{0.3f, -2.0f, 0.5f};
  AdamW in_place(worked(), 3), into(worked(), 3), halved(worked(), 3);
  std::vector<float> p{1.0f, -1.0f, 0.5f};
  const std::vector<float> from = p;
  std::vector<float> to(3), half(3);
  in_place.step(p, g);
  into.step(from, to, g, 1.0f);
  CHECK(to == p);
  // At half the rate the step (after the decoupled decay) is half as long: step 1's rate is
  // 0.05 (warm-up), halved 0.025.
  halved.step(from, half, g, 0.5f);
  for (std::size_t i = 0; i < 3; ++i) {
    const float decayed = from[i] * (1.0f - 0.05f * 0.1f);
    const float half_decayed = from[i] * (1.0f - 0.025f * 0.1f);
    CHECK(half[i] - half_decayed == Approx((to[i] - decayed) / 2).epsilon(1e-4));
  }
}
