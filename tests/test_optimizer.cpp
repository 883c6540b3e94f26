// The optimiser behind one call (models/optimizer.hpp): its state saved after k steps and set into
// a fresh optimiser resumes the uninterrupted run bit for bit, for SGD with momentum and AdamW.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "models/optimizer.hpp"

using namespace failsim::models;

namespace {

Optimizer make(bool adamw) {
  AdamWConfig adam;
  adam.learning_rate = 0.1f;
  adam.warmup_steps = 2;
  adam.decay_steps = 5;  // the schedule's every piece within the 6 steps
  if (adamw) return {adam, 3};
  return {SgdConfig{0.1f, 0.9f, 0.01f}, 3};
}

/// Gradient k of a fixed sequence (never the same twice).
std::vector<float> gradient(int k) {
  return {0.5f * static_cast<float>(k) - 1.0f, 2.0f / static_cast<float>(k + 1), -0.3f};
}

}  // namespace

TEST_CASE("an optimiser's state set into a fresh one resumes the run bit for bit", "[optimizer]") {
  const bool adamw = GENERATE(false, true);
  Optimizer whole = make(adamw);
  Optimizer first = make(adamw);
  std::vector<float> p{1.0f, -2.0f, 0.5f};
  std::vector<float> q = p;
  for (int k = 0; k < 6; ++k) whole.step(p, gradient(k));
  for (int k = 0; k < 3; ++k) first.step(q, gradient(k));
  const auto saved = first.state();
  REQUIRE(saved != nullptr);
  CHECK(saved->moments.size() == (adamw ? 2 : 1));
  CHECK(saved->steps == (adamw ? 3 : 0));

  Optimizer restored = make(adamw);
  restored.set_state(*saved);
  std::vector<float> r = q;
  for (int k = 3; k < 6; ++k) restored.step(r, gradient(k));
  CHECK(r == p);

  // Without the state the resumed steps differ (the comparison can fail).
  Optimizer fresh = make(adamw);
  std::vector<float> s = q;
  for (int k = 3; k < 6; ++k) fresh.step(s, gradient(k));
  CHECK(s != p);

  // reset() is the fresh optimiser again.
  restored.reset();
  std::vector<float> t = q;
  for (int k = 3; k < 6; ++k) restored.step(t, gradient(k));
  CHECK(t == s);
}

TEST_CASE("an optimiser's state: its size and the checks of set_state", "[optimizer]") {
  CHECK(Optimizer(SgdConfig{0.1f, 0.0f, 0.0f}, 3).state() == nullptr);
  CHECK(Optimizer(SgdConfig{0.1f, 0.0f, 0.0f}, 3).moments() == 0);
  CHECK(make(false).moments() == 1);
  CHECK(make(true).moments() == 2);
  Optimizer adam = make(true);
  CHECK_THROWS_WITH(adam.set_state(OptimizerState{{FloatBuffer(3)}, 1}),
                    "Optimizer::set_state: a state of 1 moments for an optimiser of 2");
}

TEST_CASE("AdamW behind the one call: a lowered rate scales its schedule's", "[optimizer]") {
  // The peak is 0.1 and step 1 of the warm-up is at 0.05: a rule's rate 0.01 (a tenth of the
  // peak) gives 0.005; the configured rate gives the schedule's.
  Optimizer low = make(true), plain = make(true);
  std::vector<float> p{1.0f, -2.0f, 0.5f}, q = p;
  CHECK(low.step(p, p, gradient(1), 0.01f) == Approx(0.005f));
  CHECK(plain.step(q, gradient(1)) == 0.05f);
  CHECK(p != q);
}
