// One gradient on several threads of the math pool (sim/engine/split_gradient.hpp): the same
// bits for 1, 2 and 3 threads, the whole-batch gradient within rounding, one part exactly the
// model's own step, and no allocation once constructed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "count_mallocs.hpp"
#include "gradient_check.hpp"
#include "models/rng.hpp"
#include "models/transformer.hpp"
#include "sim/engine/math_pool.hpp"
#include "sim/engine/split_gradient.hpp"
#include "skip.hpp"

namespace {

using failsim::sim::MathPool;
using failsim::sim::SplitGradient;
using failsim::testing::g_count_mallocs;
using failsim::testing::g_mallocs;
using failsim::testing::initial;
using namespace failsim::models;

const TransformerConfig CONFIG{.vocab = 13, .sequence = 8, .layers = 2, .hidden = 16, .heads = 2};

/// n windows of uniform token ids (the transformer's rows: T + 1 ids as floats).
struct Windows {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  explicit Windows(int n) {
    Rng rng(4);
    for (int i = 0; i < n * (CONFIG.sequence + 1); ++i) {
      x.push_back(static_cast<float>(rng.below(static_cast<std::uint64_t>(CONFIG.vocab))));
    }
    for (int b = 0; b < n; ++b) y.push_back(static_cast<std::int32_t>(x[(b + 1) * 9 - 1]));
  }
  Batch view() const { return Batch{x.data(), y.data(), static_cast<int>(y.size())}; }
};

struct Result {
  float loss;
  std::vector<float> grad;
};

Result split(int parts, int threads, const Windows& w) {
  const Transformer model(CONFIG);
  const auto params = initial(model, 3);
  MathPool pool(threads);
  SplitGradient split(model, parts, pool);
  Result r{0.0f, std::vector<float>(params.size())};
  r.loss = split.loss_and_gradient(params, w.view(), r.grad, 0);
  return r;
}

}  // namespace

TEST_CASE("a split gradient has the same bits on 1, 2 and 3 threads", "[split_gradient]") {
  const Windows w(7);  // parts of 2, 2 and 3 windows
  const Result one = split(3, 1, w);
  for (const int threads : {2, 3}) {
    INFO(threads << " threads");
    const Result more = split(3, threads, w);
    CHECK(more.loss == one.loss);
    CHECK(more.grad == one.grad);
  }
}

TEST_CASE("a split gradient is the whole batch's within rounding", "[split_gradient]") {
  const Windows w(7);
  Transformer model(CONFIG);
  const auto params = initial(model, 3);
  std::vector<float> whole(params.size());
  const float loss = model.loss_and_gradient(params, w.view(), whole, 0);
  SECTION("one part is the model's own step, bit for bit") {
    const Result r = split(1, 2, w);
    CHECK(r.loss == loss);
    CHECK(r.grad == whole);
  }
  // Parts of unequal size: a weight of 1/parts instead of n_p / n would be off by ~10%.
  for (const int parts : {3, 9}) {
    INFO(parts << " parts");
    const Result r = split(parts, 2, w);
    CHECK(r.loss == Approx(loss).epsilon(1e-6));
    double largest = 0.0, worst = 0.0;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      largest = std::max(largest, std::abs(static_cast<double>(whole[i])));
      worst = std::max(worst, std::abs(static_cast<double>(r.grad[i]) - whole[i]));
    }
    CHECK(worst <= 1e-5 * largest);
    CHECK(r.grad != whole);  // the parts were really summed, not one batch computed
  }
}

TEST_CASE("a split gradient refuses no parts and an empty batch", "[split_gradient]") {
  const Transformer model(CONFIG);
  MathPool pool(1);
  CHECK_THROWS_AS(SplitGradient(model, 0, pool), std::invalid_argument);
  SplitGradient split(model, 2, pool);
  std::vector<float> params = initial(model, 3), grad(params.size());
  CHECK_THROWS_AS(split.loss_and_gradient(params, Batch{nullptr, nullptr, 0}, grad, 0),
                  std::invalid_argument);
  std::vector<float> short_grad(params.size() - 1);
  const Windows w(2);
  CHECK_THROWS_AS(split.loss_and_gradient(params, w.view(), short_grad, 0), std::invalid_argument);
}

TEST_CASE("a split gradient's steady state does not allocate", "[split_gradient]") {
#ifdef FAILSIM_COUNT_MALLOC
  const Transformer model(CONFIG);
  MathPool pool(1);  // the counting is per thread: every part on this one
  SplitGradient split(model, 3, pool);
  std::vector<float> params = initial(model, 3), grad(params.size());
  const Windows w(7);
  split.loss_and_gradient(params, w.view(), grad, 0);
  g_mallocs = 0;
  g_count_mallocs = true;
  split.loss_and_gradient(params, w.view(), grad, 0);
  g_count_mallocs = false;
  CHECK(g_mallocs == 0);
#else
  FAILSIM_SKIP("allocation counting needs glibc without sanitizers");
#endif
}
