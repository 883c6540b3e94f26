// The transformer language model: every parameter's gradient against central finite
// differences (tied and untied), causality, the initial loss, memorising a short sequence with
// SGD, initialisation, bad token ids, no allocation in the steady state, and the shipped sizes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "count_mallocs.hpp"
#include "gradient_check.hpp"
#include "models/adamw.hpp"
#include "models/rng.hpp"
#include "models/sgd.hpp"
#include "models/transformer.hpp"
#include "models/transformer_sizes.hpp"
#include "skip.hpp"

using namespace failsim::models;
using failsim::testing::g_count_mallocs;
using failsim::testing::g_mallocs;
using failsim::testing::initial;

namespace {

/// The gradient check's model: small enough that every coordinate is checked, with two blocks
/// (so the residual stream's gradient crosses a block) and two heads.
TransformerConfig tiny(bool tied) {
  return TransformerConfig{
      .vocab = 11, .sequence = 5, .layers = 2, .hidden = 8, .heads = 2, .tied = tied};
}

/// n windows of sequence + 1 uniform token ids, as floats, with Batch::y the last token.
struct Windows {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  Windows(int n, const TransformerConfig& c, std::uint64_t seed) {
    Rng rng(seed);
    for (int b = 0; b < n; ++b) {
      for (int i = 0; i <= c.sequence; ++i) {
        x.push_back(static_cast<float>(rng.below(static_cast<std::uint64_t>(c.vocab))));
      }
      y.push_back(static_cast<std::int32_t>(x.back()));
    }
  }
  Batch view() const { return Batch{x.data(), y.data(), static_cast<int>(y.size())}; }
};

/// Parameters far from the initialisation's (every one normal(0, 0.5), gains included), so
/// every coordinate has a gradient of order 1e-2..1 and GELU, softmax and LayerNorm are
/// exercised away from their near-linear regions.
std::vector<float> rough_params(const Transformer& model, std::uint64_t seed) {
  std::vector<float> p(model.num_params());
  Rng rng(seed);
  for (float& v : p) v = static_cast<float>(0.5 * rng.normal());
  return p;
}

/// Checks every coordinate: (L(p + h e_i) - L(p - h e_i)) / 2h against the analytic value a.
/// The loss is float32 (its sum over positions in double, by softmax_cross_entropy): rounding in
/// the forward pass moves one evaluation by ~1e-6 here, which over 2h = 2e-2 is ~5e-5 of noise
/// in the numeric value n, and the truncation error (h^2/6 times the third derivative) adds
/// ~1e-3 |n| at most. Hence |a - n| <= 1e-4 + 1e-3 |n| (the worst seen is 1.7e-5 above the
/// relative part), which a wrong factor, sign, transposition or missing term exceeds by far:
/// they give errors of the gradient's own size, 1e-2..1 with these parameters (dropping the
/// softmax's row term in the attention's backward pass gives errors of 0.1..0.5 in every tensor).
void check_every_coordinate(Transformer& model) {
  const Windows windows(3, model.config(), 5);
  std::vector<float> params = rough_params(model, 9);
  std::vector<float> grad(params.size()), scratch(params.size());
  model.loss_and_gradient(params, windows.view(), grad, 0);
  const float h = 1e-2f;
  for (const Tensor& t : model.tensors()) {
    double worst = -1.0, largest = 0.0;
    for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
      const float saved = params[i];
      params[i] = saved + h;
      const double up = model.loss_and_gradient(params, windows.view(), scratch, 0);
      params[i] = saved - h;
      const double down = model.loss_and_gradient(params, windows.view(), scratch, 0);
      params[i] = saved;
      const double numeric = (up - down) / (2.0 * static_cast<double>(h));
      worst = std::max(worst, std::abs(grad[i] - numeric) - 1e-3 * std::abs(numeric));
      largest = std::max(largest, std::abs(numeric));
    }
    INFO(t.name << ": worst |a - n| - 1e-3 |n| = " << worst << ", largest |n| = " << largest);
    CHECK(worst <= 1e-4);
    CHECK(largest > 1e-2);  // the tensor does have a gradient worth checking
  }
}

}  // namespace

TEST_CASE("transformer gradient matches finite differences for every parameter", "[transformer]") {
  SECTION("tied output layer") {
    Transformer model(tiny(true));
    check_every_coordinate(model);
  }
  SECTION("separate output layer") {
    Transformer model(tiny(false));
    check_every_coordinate(model);
  }
  SECTION("a context of several attention blocks, the last one partial") {
    // transformer_kernels.cpp's attention works in blocks of 32 query rows: 70 positions are
    // two whole blocks and a partial one, each against a different span of keys.
    TransformerConfig c = tiny(false);
    c.sequence = 70;
    c.layers = 1;
    Transformer model(c);
    check_every_coordinate(model);
  }
}

TEST_CASE("transformer layout tiles the vector in nanoGPT's order", "[transformer]") {
  const Transformer tied(tiny(true));
  const Transformer untied(tiny(false));
  const auto tensors = tied.tensors();
  std::size_t at = 0;
  for (const Tensor& t : tensors) {
    CHECK(t.offset == at);
    CHECK(t.size % t.row == 0);
    at += t.size;
  }
  CHECK(at == tied.num_params());
  // V*D + T*D + L * (2D + 3D*D + 3D + D*D + D + 2D + 4D*D + 4D + 4D*D + D) + 2D, D = 8.
  CHECK(tied.num_params() == 88 + 40 + 2 * (16 + 192 + 24 + 64 + 8 + 16 + 256 + 32 + 256 + 8) + 16);
  CHECK(untied.num_params() == tied.num_params() + 88);
  CHECK(tensors.front().name == "wte.weight");
  CHECK(tensors[2].name == "h.0.ln_1.weight");
  CHECK(untied.tensors().back().name == "lm_head.weight");
}

TEST_CASE("transformer is causal: a later token changes no earlier position", "[transformer]") {
  for (const bool tied : {true, false}) {
    Transformer model(tiny(tied));
    const auto params = rough_params(model, 3);
    Windows a(1, model.config(), 21);
    Windows b = a;
    const int changed = 3;
    b.x[changed] = static_cast<float>((static_cast<int>(a.x[changed]) + 1) % 11);
    const int v = model.config().vocab, t = model.config().sequence;
    const float* la = model.sequence_logits(params, a.x.data(), 1);
    const std::vector<float> first(la, la + static_cast<std::ptrdiff_t>(t) * v);
    const float* lb = model.sequence_logits(params, b.x.data(), 1);
    for (int i = 0; i < t; ++i) {
      const bool same = std::equal(first.begin() + i * v, first.begin() + (i + 1) * v, lb + i * v);
      INFO("position " << i << ", tied " << tied);
      // Bit for bit before the change: masked weights are exactly 0 and each row is computed
      // alone. From the changed token on, the logits move.
      CHECK(same == (i < changed));
    }
  }
}

TEST_CASE("transformer logits are the last position's of sequence_logits", "[transformer]") {
  Transformer model(tiny(true));
  const auto params = rough_params(model, 4);
  const Windows w(3, model.config(), 8);
  std::vector<float> last(3 * 11);
  model.logits(params, w.x.data(), 3, last.data());
  const float* all = model.sequence_logits(params, w.x.data(), 3);
  for (int b = 0; b < 3; ++b) {
    CHECK(std::equal(last.begin() + b * 11, last.begin() + (b + 1) * 11, all + (b * 5 + 4) * 11));
  }
}

TEST_CASE("transformer's initial loss is near ln(vocab)", "[transformer]") {
  const TransformerConfig c{.vocab = 256, .sequence = 16, .layers = 2, .hidden = 32, .heads = 4};
  Transformer model(c);
  const auto params = initial(model, 1);
  const Windows w(8, c, 2);
  std::vector<float> grad(params.size());
  const float loss = model.loss_and_gradient(params, w.view(), grad, 0);
  // The logits' spread at initialisation is ~0.02 sqrt(D) = 0.11, which raises the expected
  // loss above ln V by about its variance over two, 0.006: 0.05 leaves room for the sample.
  CHECK(std::abs(loss - std::log(256.0f)) < 0.05f);
}

namespace {

/// Eight windows of one fixed sequence: every next token is determined by its position.
struct Repeated {
  TransformerConfig config{.vocab = 11, .sequence = 8, .layers = 2, .hidden = 16, .heads = 2};
  Windows windows{8, config, 4};
  Repeated() {
    auto& x = windows.x;
    for (int b = 1; b < 8; ++b) std::copy(x.begin(), x.begin() + 9, x.begin() + b * 9);
  }
};

}  // namespace

TEST_CASE("transformer memorises a repeated sequence with SGD", "[transformer]") {
  const Repeated data;
  Transformer model(data.config);
  auto params = initial(model, 3);
  Sgd sgd(SgdConfig{0.1f, 0.9f, 0.0f}, params.size());
  std::vector<float> grad(params.size());
  const float first = model.loss_and_gradient(params, data.windows.view(), grad, 0);
  float loss = first;
  for (int step = 0; step < 150; ++step) {
    loss = model.loss_and_gradient(params, data.windows.view(), grad, 0);
    sgd.step(params, grad);
  }
  INFO("loss " << first << " -> " << loss);
  CHECK(first > 2.0f);  // ~ln 11 = 2.40
  CHECK(loss < 0.05f);
}

TEST_CASE("transformer memorises a repeated sequence with AdamW", "[transformer]") {
  const Repeated data;
  Transformer model(data.config);
  auto params = initial(model, 3);
  AdamWConfig config;
  config.learning_rate = 1e-2f;
  config.warmup_steps = 10;
  config.decay_steps = 100;
  AdamW adam(config, params.size());
  std::vector<float> grad(params.size());
  float loss = 0.0f;
  for (int step = 0; step < 100; ++step) {
    loss = model.loss_and_gradient(params, data.windows.view(), grad, 0);
    adam.step(params, grad);
  }
  INFO("loss after 100 steps " << loss);
  CHECK(loss < 0.05f);
}

TEST_CASE("transformer initialisation is GPT-2's and seeded", "[transformer]") {
  TransformerConfig c = tiny(false);
  c.hidden = 64;
  c.vocab = 200;
  Transformer model(c);
  const auto p = initial(model, 11);
  CHECK(p == initial(model, 11));
  CHECK(p != initial(model, 12));
  for (const Tensor& t : model.tensors()) {
    double sum = 0.0, sq = 0.0;
    for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
      sum += p[i];
      sq += static_cast<double>(p[i]) * p[i];
    }
    const double mean = sum / static_cast<double>(t.size);
    const double sd = std::sqrt(sq / static_cast<double>(t.size) - mean * mean);
    INFO(t.name);
    if (t.name.ends_with("ln_1.weight") || t.name.ends_with("ln_2.weight") ||
        t.name == "ln_f.weight") {
      CHECK((mean == 1.0 && sd == 0.0));
    } else if (t.row == 1) {
      CHECK((mean == 0.0 && sd == 0.0));
    } else {
      // c_proj's weights are scaled by 1/sqrt(2L) = 1/2; the others have std 0.02. Each
      // tensor has at least 4096 draws, so its sample std is within ~2% of the true one.
      const double want = t.name.ends_with("c_proj.weight") ? 0.01 : 0.02;
      CHECK(std::abs(sd - want) < 0.1 * want);
      CHECK(std::abs(mean) < 0.1 * want);
    }
  }
}

TEST_CASE("transformer rejects bad token ids and shapes", "[transformer]") {
  Transformer model(tiny(true));
  const auto params = initial(model, 1);
  std::vector<float> grad(params.size());
  for (const float bad : {-1.0f, 11.0f, 2.5f, std::nanf("")}) {
    Windows w(2, model.config(), 1);
    w.x[6 + 5] = bad;  // window 1 (6 ids a window), position 5: its last target
    INFO(bad);
    CHECK_THROWS_WITH(
        model.loss_and_gradient(params, w.view(), grad, 0),
        Catch::Contains("window 1, position 5") && Catch::Contains("an integer in [0, 11)"));
  }
  std::vector<float> short_grad(3);
  const Windows w(2, model.config(), 1);
  CHECK_THROWS_AS(model.loss_and_gradient(params, w.view(), short_grad, 0), std::invalid_argument);
  CHECK_THROWS_AS(model.loss_and_gradient(params, Batch{w.x.data(), w.y.data(), 0}, grad, 0),
                  std::invalid_argument);
  TransformerConfig odd = tiny(true);
  odd.heads = 3;
  CHECK_THROWS_WITH(Transformer(odd), Catch::Contains("heads must divide hidden"));
  odd = tiny(true);
  odd.vocab = 1;
  CHECK_THROWS_WITH(Transformer(odd), Catch::Contains("vocab 1"));
}

TEST_CASE("transformer steady state does not allocate", "[transformer]") {
#ifdef FAILSIM_COUNT_MALLOC
  Transformer model(tiny(false));
  const auto params = initial(model, 1);
  const Windows w(6, model.config(), 2);
  std::vector<float> grad(params.size()), out(6 * 11);
  model.loss_and_gradient(params, w.view(), grad, 0);
  g_mallocs = 0;
  g_count_mallocs = true;
  model.loss_and_gradient(params, w.view(), grad, 0);
  model.loss_and_gradient(params, Batch{w.x.data(), w.y.data(), 2}, grad, 0);
  model.logits(params, w.x.data(), 6, out.data());
  g_count_mallocs = false;
  CHECK(g_mallocs == 0);
#else
  FAILSIM_SKIP("allocation counting needs glibc without sanitizers");
#endif
}

TEST_CASE("transformer's shipped sizes span 0.1M to 10M parameters, named once each",
          "[transformer]") {
  // The counts models/transformer_sizes.hpp states.
  const std::vector<std::size_t> stated{120'576, 842'496, 10'844'160};
  REQUIRE(TRANSFORMER_SIZES.size() == stated.size());
  for (std::size_t i = 0; i < stated.size(); ++i) {
    INFO(TRANSFORMER_SIZES[i].name);
    CHECK(Transformer(TRANSFORMER_SIZES[i].config).num_params() == stated[i]);
    for (std::size_t j = 0; j < i; ++j)
      CHECK(TRANSFORMER_SIZES[j].name != TRANSFORMER_SIZES[i].name);
  }
}
