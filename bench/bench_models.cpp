// Cost of the models' hot paths on one thread: a training step (loss and gradient) of the CNN,
// the MLP and softmax regression at batch 32, and CNN inference over 10,000 samples (the test
// set) in chunks of 256; and a training step and a forward pass of each shipped transformer size
// (models/transformer_sizes.hpp) at batch 8, which bench/transformer-vs-torch.py runs beside
// PyTorch, and the step split across 1 and 2 threads of the math pool. Random data: the cost does
// not depend on the values. Counters: GFLOP/s from the models' own FLOP counts
// (train_flops_per_sample). Times are CPU time of the benchmark thread, so other processes on the
// machine inflate them less.
//
//   bench_models --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/cnn.hpp"
#include "models/mlp.hpp"
#include "models/rng.hpp"
#include "models/softmax_regression.hpp"
#include "models/transformer.hpp"
#include "models/transformer_sizes.hpp"
#include "sim/engine/math_pool.hpp"
#include "sim/engine/split_gradient.hpp"

namespace {

using namespace failsim::models;

constexpr int IMAGE_DIM = 28 * 28;
constexpr int CLASSES = 10;

struct RandomData {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  RandomData(int n, int dim) : x(static_cast<std::size_t>(n) * dim), y(n) {
    Rng rng(2024);
    for (float& v : x) v = 2.0f * rng.uniform_float() - 1.0f;
    for (std::int32_t& v : y) v = static_cast<std::int32_t>(rng.below(CLASSES));
  }
};

/// One loss_and_gradient per iteration, on the same batch, with a new dropout seed each time.
void train_step(benchmark::State& state, Model& model) {
  const int batch = static_cast<int>(state.range(0));
  const RandomData data(batch, model.input_dim());
  std::vector<float> params(model.num_params()), grad(model.num_params());
  model.init(params, 1);
  const Batch view{data.x.data(), data.y.data(), batch};
  std::uint64_t seed = 0;
  model.loss_and_gradient(params, view, grad, seed);  // grows the scratch buffers
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.loss_and_gradient(params, view, grad, ++seed));
    benchmark::ClobberMemory();
  }
  const double steps = static_cast<double>(state.iterations());
  // kIsRate divides by the CPU time of the loop, so "GFLOP" reads as GFLOP/s. The time per
  // step is the CPU column (milliseconds for the CNN).
  state.counters["GFLOP"] = benchmark::Counter(model.train_flops_per_sample() * batch * steps / 1e9,
                                               benchmark::Counter::kIsRate);
  state.counters["MFLOP_per_step"] = model.train_flops_per_sample() * batch / 1e6;
}

void BM_cnn_train_step(benchmark::State& state) {
  Cnn model;
  train_step(state, model);
}

void BM_mlp_train_step(benchmark::State& state) {
  Mlp model(IMAGE_DIM, {128, 64}, CLASSES);
  train_step(state, model);
}

void BM_softmax_train_step(benchmark::State& state) {
  SoftmaxRegression model(IMAGE_DIM, CLASSES);
  train_step(state, model);
}

/// Logits of 10,000 samples per iteration, 256 at a time (as the evaluator does).
void BM_cnn_logits_10k(benchmark::State& state) {
  constexpr int N = 10'000;
  constexpr int CHUNK = 256;
  Cnn model;
  const RandomData data(N, model.input_dim());
  std::vector<float> params(model.num_params()), out(static_cast<std::size_t>(N) * CLASSES);
  model.init(params, 1);
  model.logits(params, data.x.data(), CHUNK, out.data());  // grows the scratch buffers
  for (auto _ : state) {
    for (int start = 0; start < N; start += CHUNK) {
      const int n = std::min(CHUNK, N - start);
      model.logits(params, data.x.data() + static_cast<std::ptrdiff_t>(start) * IMAGE_DIM, n,
                   out.data() + static_cast<std::ptrdiff_t>(start) * CLASSES);
    }
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP"] = benchmark::Counter(
      model.forward_flops_per_sample() * N * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

/// Windows of random token ids for the transformer (its rows hold T + 1 ids as floats).
struct RandomWindows {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  RandomWindows(int n, const TransformerConfig& c)
      : x(static_cast<std::size_t>(n) * (c.sequence + 1)), y(n) {
    Rng rng(2024);
    for (float& v : x) v = static_cast<float>(rng.below(static_cast<std::uint64_t>(c.vocab)));
    for (int b = 0; b < n; ++b) y[b] = static_cast<std::int32_t>(x[(b + 1) * (c.sequence + 1) - 1]);
  }
};

/// The size's name as the label and its shape as counters, so a script reading the JSON output
/// builds the same model (bench/transformer-vs-torch.py).
void describe(benchmark::State& state, const TransformerSize& size, int batch) {
  const TransformerConfig& c = size.config;
  state.SetLabel(std::string(size.name));
  for (const auto& [key, value] : {std::pair{"vocab", c.vocab},
                                   {"sequence", c.sequence},
                                   {"layers", c.layers},
                                   {"hidden", c.hidden},
                                   {"heads", c.heads},
                                   {"tied", c.tied ? 1 : 0},
                                   {"batch", batch}}) {
    state.counters[key] = value;
  }
  state.counters["parameters"] = static_cast<double>(Transformer(c).num_params());
}

/// Size range(0) of TRANSFORMER_SIZES at batch 8, with initial parameters and random windows.
struct TransformerCase {
  static constexpr int BATCH = 8;
  explicit TransformerCase(const benchmark::State& state)
      : size(TRANSFORMER_SIZES.at(static_cast<std::size_t>(state.range(0)))),
        model(size.config),
        data(BATCH, size.config),
        params(model.num_params()),
        grad(model.num_params()) {
    model.init(params, 1);
  }
  Batch batch() const { return Batch{data.x.data(), data.y.data(), BATCH}; }

  const TransformerSize& size;
  Transformer model;
  RandomWindows data;
  std::vector<float> params, grad;
};

/// Times `pass()` after one call that grows the scratch buffers; labels the benchmark.
template <class Pass>
void time_transformer(benchmark::State& state, const TransformerCase& c, Pass pass) {
  pass();
  for (auto _ : state) {
    benchmark::DoNotOptimize(pass());
    benchmark::ClobberMemory();
  }
  describe(state, c.size, TransformerCase::BATCH);
}

/// One training step (loss and gradient: forward and backward).
void BM_transformer_train_step(benchmark::State& state) {
  TransformerCase c(state);
  time_transformer(state, c,
                   [&c] { return c.model.loss_and_gradient(c.params, c.batch(), c.grad, 0); });
}

/// The same training step split in two parts (sim/engine/split_gradient.hpp) on a math pool of
/// range(1) threads: wall time, since the work is on several threads. 1 against 2 threads is the
/// pool's speed-up; 1 thread against the unsplit step is the split's own cost.
void BM_transformer_split_step(benchmark::State& state) {
  constexpr int PARTS = 2;
  TransformerCase c(state);
  failsim::sim::MathPool pool(static_cast<int>(state.range(1)));
  failsim::sim::SplitGradient split(c.model, PARTS, pool);
  time_transformer(state, c,
                   [&] { return split.loss_and_gradient(c.params, c.batch(), c.grad, 0); });
}

/// One evaluation's forward pass: the logits of every position.
void BM_transformer_forward(benchmark::State& state) {
  TransformerCase c(state);
  time_transformer(state, c, [&c] {
    return c.model.sequence_logits(c.params, c.data.x.data(), TransformerCase::BATCH);
  });
}

}  // namespace

BENCHMARK(BM_cnn_train_step)->Arg(32)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_cnn_train_step)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cnn_logits_10k)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_mlp_train_step)->Arg(32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_softmax_train_step)->Arg(32)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_transformer_train_step)
    ->DenseRange(0, static_cast<int>(TRANSFORMER_SIZES.size()) - 1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_transformer_split_step)
    ->ArgsProduct(
        {benchmark::CreateDenseRange(0, static_cast<int>(TRANSFORMER_SIZES.size()) - 1, 1), {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_transformer_forward)
    ->DenseRange(0, static_cast<int>(TRANSFORMER_SIZES.size()) - 1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
