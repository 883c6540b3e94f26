// The CNN: analytic gradient against central finite differences for every parameter tensor,
// hand-computed forward passes (convolution, pooling, flatten order), dropout determinism,
// chunking of large batches, initialisation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "count_mallocs.hpp"
#include "gradient_check.hpp"
#include "models/cnn.hpp"
#include "models/rng.hpp"
#include "skip.hpp"

using namespace failsim::models;
using failsim::testing::g_count_mallocs;
using failsim::testing::g_mallocs;
using failsim::testing::initial;
using failsim::testing::RandomBatch;

namespace {

struct NamedRange {
  const char* name;
  std::size_t begin, end;
};

std::vector<NamedRange> tensors(const Cnn& cnn) {
  const CnnLayout& l = cnn.layout();
  return {{"conv1.weight", l.conv1_w, l.conv1_b}, {"conv1.bias", l.conv1_b, l.conv2_w},
          {"conv2.weight", l.conv2_w, l.conv2_b}, {"conv2.bias", l.conv2_b, l.fc1_w},
          {"fc1.weight", l.fc1_w, l.fc1_b},       {"fc1.bias", l.fc1_b, l.fc2_w},
          {"fc2.weight", l.fc2_w, l.fc2_b},       {"fc2.bias", l.fc2_b, l.total}};
}

/// A straightforward double-precision CNN (direct convolution loops, ReLU before pooling, the
/// dropout mask drawn as cnn.hpp documents), independent of the im2col/GEMM/fused code under
/// test. Returns the mean loss; `logits` (if not null) receives n x classes values.
struct Reference {
  int channels, height, width, classes;
  float dropout;

  double loss(const std::vector<double>& p, const CnnLayout& l, const Batch& b, std::uint64_t seed,
              std::vector<double>* logits = nullptr) const {
    Rng rng(seed);
    double total = 0.0;
    const float scale = 1.0f / (1.0f - dropout);
    for (int s = 0; s < b.n; ++s) {
      const float* x = b.x + static_cast<std::ptrdiff_t>(s) * channels * height * width;
      std::vector<double> in(x, x + channels * height * width);
      const auto a1 = conv_relu_pool(in, channels, height, width, p, l.conv1_w, l.conv1_b, 16);
      const auto a2 = conv_relu_pool(a1, 16, height / 2, width / 2, p, l.conv2_w, l.conv2_b, 32);
      const int features = static_cast<int>(a2.size());  // (c, h, w) order already
      std::vector<double> hidden(512);
      for (int j = 0; j < 512; ++j) {
        double u = p[l.fc1_b + j];
        for (int k = 0; k < features; ++k) u += p[l.fc1_w + j * features + k] * a2[k];
        u = std::max(u, 0.0);
        if (dropout > 0.0f) u = rng.uniform_float() < dropout ? 0.0 : u * scale;
        hidden[j] = u;
      }
      std::vector<double> z(classes);
      double m = -1e300;
      for (int c = 0; c < classes; ++c) {
        z[c] = p[l.fc2_b + c];
        for (int j = 0; j < 512; ++j) z[c] += p[l.fc2_w + c * 512 + j] * hidden[j];
        m = std::max(m, z[c]);
        if (logits != nullptr) logits->push_back(z[c]);
      }
      double sum = 0.0;
      for (int c = 0; c < classes; ++c) sum += std::exp(z[c] - m);
      total += m + std::log(sum) - z[b.y[s]];
    }
    return total / b.n;
  }

  /// 3x3 convolution with zero padding 1, bias, ReLU, then 2x2 max-pool with stride 2.
  static std::vector<double> conv_relu_pool(const std::vector<double>& in, int cin, int h, int w,
                                            const std::vector<double>& p, std::size_t wo,
                                            std::size_t bo, int cout) {
    std::vector<double> act(static_cast<std::size_t>(cout) * h * w);
    for (int o = 0; o < cout; ++o) {
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          double v = p[bo + o];
          for (int c = 0; c < cin; ++c) {
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                const int sy = y + ky - 1, sx = x + kx - 1;
                if (sy < 0 || sy >= h || sx < 0 || sx >= w) continue;
                v += p[wo + ((o * cin + c) * 3 + ky) * 3 + kx] * in[(c * h + sy) * w + sx];
              }
            }
          }
          act[(o * h + y) * w + x] = std::max(v, 0.0);
        }
      }
    }
    std::vector<double> out(static_cast<std::size_t>(cout) * (h / 2) * (w / 2));
    for (int o = 0; o < cout; ++o) {
      for (int y = 0; y < h / 2; ++y) {
        for (int x = 0; x < w / 2; ++x) {
          const double* a = &act[(o * h + 2 * y) * w + 2 * x];
          out[(o * (h / 2) + y) * (w / 2) + x] = std::max({a[0], a[1], a[w], a[w + 1]});
        }
      }
    }
    return out;
  }
};

/// Worst relative error |analytic - numeric| / max(|analytic| + |numeric|, floor) over
/// `per_tensor` random coordinates of each tensor, and the same for one random unit direction
/// within each tensor (which weighs every coordinate at once, so a gradient wrong only where the
/// sampler does not look still fails). numeric = (L(p + h v) - L(p - h v)) / 2h on the double
/// reference, with the same dropout seed on both sides: in double a tiny h is exact enough and
/// crosses no ReLU or pooling kink, which a float difference quotient at a usable h often does.
struct TensorError {
  double coordinate = 0.0;
  double direction = 0.0;
};

std::vector<TensorError> gradient_errors(const Cnn& cnn, const Reference& ref,
                                         const std::vector<float>& params,
                                         const std::vector<float>& grad, const Batch& batch,
                                         std::uint64_t dropout_seed, int per_tensor) {
  constexpr double h = 1e-6;
  const double floor = 1e-5;
  std::vector<double> p(params.begin(), params.end());
  auto numeric = [&](const std::vector<double>& v) {
    std::vector<double> q(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) q[i] = p[i] + h * v[i];
    const double up = ref.loss(q, cnn.layout(), batch, dropout_seed);
    for (std::size_t i = 0; i < p.size(); ++i) q[i] = p[i] - h * v[i];
    const double down = ref.loss(q, cnn.layout(), batch, dropout_seed);
    return (up - down) / (2.0 * h);
  };
  auto rel = [floor](double a, double b) {
    return std::abs(a - b) / std::max(std::abs(a) + std::abs(b), floor);
  };
  Rng rng(99);
  std::vector<TensorError> errors;
  std::vector<double> v(params.size(), 0.0);
  for (const NamedRange& t : tensors(cnn)) {
    TensorError e;
    for (int k = 0; k < per_tensor; ++k) {
      const std::size_t i = t.begin + rng.below(t.end - t.begin);
      v[i] = 1.0;
      e.coordinate = std::max(e.coordinate, rel(grad[i], numeric(v)));
      v[i] = 0.0;
    }
    double norm = 0.0;
    for (std::size_t i = t.begin; i < t.end; ++i) {
      v[i] = rng.normal();
      norm += v[i] * v[i];
    }
    double analytic = 0.0;
    for (std::size_t i = t.begin; i < t.end; ++i) {
      v[i] /= std::sqrt(norm);
      analytic += v[i] * grad[i];
    }
    e.direction = rel(analytic, numeric(v));
    std::fill(v.begin() + static_cast<std::ptrdiff_t>(t.begin),
              v.begin() + static_cast<std::ptrdiff_t>(t.end), 0.0);
    errors.push_back(e);
  }
  return errors;
}

}  // namespace

TEST_CASE("CNN parameter count and layout follow PyTorch", "[cnn]") {
  const Cnn cnn;
  const CnnLayout& l = cnn.layout();
  CHECK(l.conv1_w == 0);
  CHECK(l.conv1_b == 144);
  CHECK(l.conv2_w == 160);
  CHECK(l.conv2_b == 160 + 4608);
  CHECK(l.fc1_w == 4800);
  CHECK(l.fc1_b == 4800 + 512 * 1568);
  CHECK(l.fc2_w == l.fc1_b + 512);
  CHECK(l.fc2_b == l.fc2_w + 5120);
  CHECK(cnn.num_params() == 813'258);  // torch: sum(p.numel() for p in model.parameters())
  CHECK(cnn.input_dim() == 784);
  CHECK(cnn.num_classes() == 10);
  CHECK(cnn.name() == "cnn");
  CHECK(cnn.forward_flops_per_sample() == 3'648'000.0);
  CHECK(cnn.train_flops_per_sample() == 3.0 * 3'648'000.0 - 225'792.0);
}

TEST_CASE("CNN rejects shapes and dropout it cannot handle", "[cnn]") {
  CHECK_THROWS_AS(Cnn(1.0f), std::invalid_argument);
  CHECK_THROWS_AS(Cnn(-0.1f), std::invalid_argument);
  CHECK_THROWS_AS(Cnn(0.25f, 1, 30, 28), std::invalid_argument);
  CHECK_THROWS_AS(Cnn(0.25f, 0, 28, 28), std::invalid_argument);
  CHECK_THROWS_AS(Cnn(0.25f, 1, 28, 28, 1), std::invalid_argument);
  CHECK_NOTHROW(Cnn(0.25f, 3, 32, 32, 10));
  Cnn cnn(0.0f, 1, 8, 8, 3);
  std::vector<float> p(cnn.num_params()), g(p.size() - 1);
  const RandomBatch batch(2, 64, 3, 1);
  CHECK_THROWS_AS(cnn.loss_and_gradient(p, batch.view(), g, 0), std::invalid_argument);
}

TEST_CASE("CNN initialisation is reproducible and within PyTorch's fan-in bounds", "[cnn]") {
  const Cnn cnn;
  const auto a = initial(cnn, 42);
  const auto b = initial(cnn, 42);
  const auto c = initial(cnn, 43);
  CHECK(a == b);
  CHECK(a != c);
  const double fan_in[] = {9, 9, 144, 144, 1568, 1568, 512, 512};
  int k = 0;
  for (const NamedRange& t : tensors(cnn)) {
    const double bound = 1.0 / std::sqrt(fan_in[k++]);
    double lo = 1.0, hi = -1.0, sum = 0.0;
    for (std::size_t i = t.begin; i < t.end; ++i) {
      lo = std::min(lo, static_cast<double>(a[i]));
      hi = std::max(hi, static_cast<double>(a[i]));
      sum += a[i];
    }
    INFO(t.name);
    CHECK(lo >= -bound);
    CHECK(hi <= bound);
    if (t.end - t.begin >= 144) {
      // Uniform on [-bound, bound]: the extremes come close to the bounds, the mean near 0.
      CHECK(hi > 0.9 * bound);
      CHECK(lo < -0.9 * bound);
      CHECK(std::abs(sum / static_cast<double>(t.end - t.begin)) < 0.2 * bound);
    }
  }
}

TEST_CASE("CNN forward pass matches a hand computation", "[cnn]") {
  // 4x4 input, 2 classes: every stage is small enough to follow by hand.
  Cnn cnn(0.0f, 1, 4, 4, 2);
  const CnnLayout& l = cnn.layout();
  std::vector<float> p(cnn.num_params(), 0.0f);
  // conv1 filter 0 sums the 3x3 neighbourhood (zero padding); bias -60.
  for (int k = 0; k < 9; ++k) p[l.conv1_w + k] = 1.0f;
  p[l.conv1_b] = -60.0f;
  // conv2 filter 0 copies channel 0 (centre tap); filter 1 sums its 3x3 neighbourhood, bias -50.
  p[l.conv2_w + 4] = 1.0f;
  for (int k = 0; k < 9; ++k) p[l.conv2_w + 144 + k] = 1.0f;
  p[l.conv2_b + 1] = -50.0f;
  // fc1 on the 32 features (one 1x1 pixel per channel): u0 = f0, u1 = f1 - f0, u2 = f1/2 + 1.
  p[l.fc1_w + 0 * 32 + 0] = 1.0f;
  p[l.fc1_w + 1 * 32 + 1] = 1.0f;
  p[l.fc1_w + 1 * 32 + 0] = -1.0f;
  p[l.fc1_w + 2 * 32 + 1] = 0.5f;
  p[l.fc1_b + 2] = 1.0f;
  // fc2: logit0 = u0 + u1, logit1 = u2 - 2.
  p[l.fc2_w + 0] = 1.0f;
  p[l.fc2_w + 1] = 1.0f;
  p[l.fc2_w + 512 + 2] = 1.0f;
  p[l.fc2_b + 1] = -2.0f;

  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
  // Box sums of 1..16:    14 24 30 22 / 33 54 63 45 / 57 90 99 69 / 46 72 78 54.
  // Pool, bias, ReLU:     max(14,24,33,54) - 60 = 0 (ReLU), 63-60 = 3, 90-60 = 30, 99-60 = 39.
  // conv2 ch0 = [0 3; 30 39] -> pool 39. ch1 = 72 everywhere - 50 = 22 -> pool 22.
  // u = (39, relu(22-39) = 0, 22/2 + 1 = 12) -> logits (39 + 0, 12 - 2).
  float out[2] = {0.0f, 0.0f};
  cnn.logits(p, x.data(), 1, out);
  CHECK(out[0] == 39.0f);
  CHECK(out[1] == 10.0f);

  // Gradient of the bias of fc2 at label 1: softmax - onehot = (~1, ~-1).
  std::vector<float> g(p.size());
  const std::int32_t y = 1;
  const float loss = cnn.loss_and_gradient(p, Batch{x.data(), &y, 1}, g, 0);
  CHECK(loss == Approx(29.0).epsilon(1e-6));
  CHECK(g[l.fc2_b] == Approx(1.0));
  CHECK(g[l.fc2_b + 1] == Approx(-1.0));
  // dL/d(conv1 bias 0): only the windows with ReLU on and a path to the loss count. Filter 0's
  // windows feed conv2's ch0 (centre) and ch1 (box); with u1 = 0, only u0 = f0 and u2 = f1/2
  // carry gradient: dL/du0 = 1, dL/du2 = -1 (approximately), so dL/df0 = 1, dL/df1 = -0.5.
  // f0 = pool(conv2 ch0) picks pixel (1,1) = 39 (window winner 99 at (2,2)) -> +1 there.
  // f1 = 22 from every pixel; its pool winner is the first, (0,0), whose box covers all four
  // pooled pixels; three of them (3, 30, 39) are on -> -0.5 * 3.
  CHECK(g[l.conv1_b] == Approx(1.0 - 1.5).margin(1e-5));
}

TEST_CASE("CNN flattens channel-major (c, h, w) like PyTorch", "[cnn]") {
  // 8x8 input, so the second pool leaves 2x2 per channel and feature (c, h, w) = c*4 + h*2 + w.
  Cnn cnn(0.0f, 1, 8, 8, 2);
  const CnnLayout& l = cnn.layout();
  std::vector<float> p(cnn.num_params(), 0.0f);
  p[l.conv1_w + 4] = 1.0f;                // conv1 ch0 = input
  p[l.conv2_w + 144 + 4] = 1.0f;          // conv2 ch1 = conv1 ch0
  p[l.fc1_w + 1 * 4 + 0 * 2 + 1] = 1.0f;  // u0 = feature (c=1, h=0, w=1)
  p[l.fc2_w + 0] = 1.0f;                  // logit0 = u0
  std::vector<float> x(64, 0.0f);
  x[1 * 8 + 6] = 5.0f;  // row 1, column 6: quadrant (0, 1) of the 2x2 grid
  float out[2];
  cnn.logits(p, x.data(), 1, out);
  CHECK(out[0] == 5.0f);
  x[1 * 8 + 6] = 0.0f;
  x[6 * 8 + 1] = 5.0f;  // quadrant (1, 0): feature 6, not read
  cnn.logits(p, x.data(), 1, out);
  CHECK(out[0] == 0.0f);
}

TEST_CASE("CNN matches a naive double-precision reference", "[cnn][gradients]") {
  struct Case {
    int channels, height, width, classes, n;
    float dropout;
    int per_tensor;
  };
  // Small shapes with and without dropout, two channels, a non-square image, and the study's
  // 1x28x28 (fewer coordinates there: the reference is slow at that size).
  const Case c = GENERATE(Case{2, 8, 8, 4, 3, 0.0f, 6}, Case{2, 8, 8, 4, 3, 0.25f, 6},
                          Case{1, 12, 8, 3, 2, 0.5f, 4}, Case{1, 28, 28, 10, 2, 0.25f, 2});
  Cnn cnn(c.dropout, c.channels, c.height, c.width, c.classes);
  const Reference ref{c.channels, c.height, c.width, c.classes, c.dropout};
  const RandomBatch batch(c.n, cnn.input_dim(), c.classes, 11);
  const auto params = initial(cnn, 12);
  const std::uint64_t seed = 5;
  INFO(c.channels << "x" << c.height << "x" << c.width << " dropout " << c.dropout);

  std::vector<float> grad(params.size());
  const float loss = cnn.loss_and_gradient(params, batch.view(), grad, seed);
  const std::vector<double> p(params.begin(), params.end());
  std::vector<double> ref_logits;
  CHECK(loss == Approx(ref.loss(p, cnn.layout(), batch.view(), seed)).epsilon(1e-5));

  // Inference: no dropout on either side.
  const Reference plain{c.channels, c.height, c.width, c.classes, 0.0f};
  plain.loss(p, cnn.layout(), batch.view(), seed, &ref_logits);
  std::vector<float> out(static_cast<std::size_t>(c.n) * c.classes);
  cnn.logits(params, batch.x.data(), c.n, out.data());
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == Approx(ref_logits[i]).margin(1e-5));

  const auto errors = gradient_errors(cnn, ref, params, grad, batch.view(), seed, c.per_tensor);
  const auto names = tensors(cnn);
  for (std::size_t t = 0; t < errors.size(); ++t) {
    INFO(names[t].name);
    CHECK(errors[t].coordinate < 1e-3);
    CHECK(errors[t].direction < 1e-3);
  }
}

TEST_CASE("the CNN gradient check catches a wrong gradient", "[cnn][gradients]") {
  // Guards the check itself: a gradient off by 1% in one tensor must fail it there only.
  Cnn cnn(0.0f, 1, 8, 8, 3);
  const Reference ref{1, 8, 8, 3, 0.0f};
  const RandomBatch batch(3, cnn.input_dim(), 3, 31);
  const auto params = initial(cnn, 32);
  std::vector<float> grad(params.size());
  cnn.loss_and_gradient(params, batch.view(), grad, 0);
  const CnnLayout& l = cnn.layout();
  for (std::size_t i = l.conv2_w; i < l.conv2_b; ++i) grad[i] *= 1.01f;
  const auto errors = gradient_errors(cnn, ref, params, grad, batch.view(), 0, 0);
  CHECK(errors[2].direction > 3e-3);
  CHECK(errors[0].direction < 1e-3);
  CHECK(errors[4].direction < 1e-3);
}

TEST_CASE("CNN gradient is deterministic and dropout follows its seed", "[cnn][dropout]") {
  Cnn cnn;  // p = 0.25
  const RandomBatch batch(4, cnn.input_dim(), 10, 41);
  const auto params = initial(cnn, 42);
  std::vector<float> g1(params.size()), g2(params.size()), g3(params.size());
  const float l1 = cnn.loss_and_gradient(params, batch.view(), g1, 7);
  auto other = cnn.clone();
  const float l2 = other->loss_and_gradient(params, batch.view(), g2, 7);
  CHECK(l1 == l2);
  CHECK(std::memcmp(g1.data(), g2.data(), g1.size() * sizeof(float)) == 0);
  const float l3 = cnn.loss_and_gradient(params, batch.view(), g3, 8);
  CHECK(l3 != l1);
  CHECK(g3 != g1);

  SECTION("without dropout the seed does not matter") {
    Cnn plain(0.0f);
    plain.loss_and_gradient(params, batch.view(), g1, 7);
    plain.loss_and_gradient(params, batch.view(), g2, 8);
    CHECK(g1 == g2);
  }
  SECTION("inference has no dropout") {
    Cnn plain(0.0f);
    std::vector<float> a(4 * 10), b(4 * 10);
    cnn.logits(params, batch.x.data(), 4, a.data());
    plain.logits(params, batch.x.data(), 4, b.data());
    CHECK(a == b);
  }
  SECTION("the dropout rate is p") {
    // fc2's weight gradient row k is sum_i dlogits_ik * hidden_i: a dropped unit's column is 0
    // in every row. With one sample, the fraction of zero columns estimates p (the ReLU also
    // zeroes some; compare with p = 0 on the same input to separate the two).
    const RandomBatch one(1, cnn.input_dim(), 10, 43);
    Cnn plain(0.0f);
    plain.loss_and_gradient(params, one.view(), g1, 0);
    int active = 0, kept = 0;
    for (int trial = 0; trial < 20; ++trial) {
      cnn.loss_and_gradient(params, one.view(), g2, static_cast<std::uint64_t>(trial));
      for (int j = 0; j < 512; ++j) {
        const std::size_t i = cnn.layout().fc2_w + j;  // row 0 of fc2.weight
        if (g1[i] != 0.0f) {
          ++active;
          if (g2[i] != 0.0f) ++kept;
        }
      }
    }
    REQUIRE(active > 1000);
    CHECK(static_cast<double>(kept) / active == Approx(0.75).margin(0.03));
  }
}

TEST_CASE("CNN logits have the right shape and agree across batch sizes", "[cnn]") {
  Cnn cnn(0.25f, 1, 8, 8, 5);
  const int n = 300;  // more than one internal chunk
  const RandomBatch batch(n, cnn.input_dim(), 5, 51);
  const auto params = initial(cnn, 52);
  std::vector<float> all(n * 5 + 1, -123.0f);
  cnn.logits(params, batch.x.data(), n, all.data());
  CHECK(all[n * 5] == -123.0f);  // nothing written past n x classes
  for (int i : {0, 1, 255, 256, 299}) {
    float one[5];
    cnn.logits(params, batch.x.data() + i * cnn.input_dim(), 1, one);
    for (int c = 0; c < 5; ++c) CHECK(one[c] == Approx(all[i * 5 + c]).margin(1e-5));
  }
}

TEST_CASE("CNN gradient over several chunks is the mean of per-sample gradients", "[cnn]") {
  Cnn cnn(0.0f, 1, 8, 8, 3);
  const int n = Cnn::MAX_CHUNK + 20;
  const RandomBatch batch(n, cnn.input_dim(), 3, 61);
  const auto params = initial(cnn, 62);
  std::vector<float> grad(params.size()), one(params.size());
  std::vector<double> mean(params.size(), 0.0);
  double mean_loss = 0.0;
  for (int i = 0; i < n; ++i) {
    const Batch b{batch.x.data() + i * cnn.input_dim(), batch.y.data() + i, 1};
    mean_loss += cnn.loss_and_gradient(params, b, one, 0) / n;
    for (std::size_t k = 0; k < one.size(); ++k) mean[k] += static_cast<double>(one[k]) / n;
  }
  const float loss = cnn.loss_and_gradient(params, batch.view(), grad, 0);
  CHECK(loss == Approx(mean_loss).epsilon(1e-5));
  double max_err = 0.0, max_abs = 0.0;
  for (std::size_t k = 0; k < grad.size(); ++k) {
    max_err = std::max(max_err, std::abs(grad[k] - mean[k]));
    max_abs = std::max(max_abs, std::abs(mean[k]));
  }
  CHECK(max_err < 1e-5 * max_abs + 1e-7);
}

TEST_CASE("CNN steady state does not allocate", "[cnn]") {
#ifdef FAILSIM_COUNT_MALLOC
  Cnn cnn;
  const RandomBatch batch(32, cnn.input_dim(), 10, 71);
  const auto params = initial(cnn, 72);
  std::vector<float> grad(params.size()), out(32 * 10);
  // The first calls grow the scratch buffers; later ones, with up to as many samples, must not.
  cnn.loss_and_gradient(params, batch.view(), grad, 1);
  cnn.logits(params, batch.x.data(), 32, out.data());
  g_mallocs = 0;
  g_count_mallocs = true;
  cnn.loss_and_gradient(params, batch.view(), grad, 2);
  cnn.loss_and_gradient(params, Batch{batch.x.data(), batch.y.data(), 7}, grad, 3);
  cnn.logits(params, batch.x.data(), 32, out.data());
  cnn.logits(params, batch.x.data(), 5, out.data());
  g_count_mallocs = false;
  CHECK(g_mallocs == 0);
  // The counter itself works: a vector of the batch's size allocates.
  g_count_mallocs = true;
  std::vector<float> fresh(batch.x.begin(), batch.x.end());
  g_count_mallocs = false;
  CHECK(g_mallocs > 0);
#else
  FAILSIM_SKIP("allocation counting needs glibc without sanitizers");
#endif
}
