// The transformer's training trace for tests/transformer_parity.py, which trains the same model
// in PyTorch and compares: from one configuration and seed, the initial flat parameters, the
// batches' token ids, the loss before each of `steps` plain SGD steps and the final parameters,
// each a raw float32 little-endian file in the output directory (the parity test reads them with
// numpy; float32 is what both sides compute in, so nothing is rounded on the way).
//
// The windows follow a rule the model can learn in context (each token the previous one plus a
// stride, mod V; start and stride drawn per window), so the loss falls over the steps and the
// comparison covers a trajectory that moves, not one that stays at log V.
#include <CLI/CLI.hpp>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dataset.hpp"
#include "models/rng.hpp"
#include "models/sgd.hpp"
#include "models/transformer.hpp"

using namespace failsim::models;

namespace {

static_assert(std::endian::native == std::endian::little, "the trace files are little-endian");

void write_floats(const std::filesystem::path& path, std::span<const float> values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size_bytes()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// `steps` batches of n windows of T + 1 ids, one after the other: window b starts at a uniform
/// id and adds a uniform stride in [1, V) mod V at each position.
std::vector<float> make_batches(const TransformerConfig& c, int steps, int n, std::uint64_t seed) {
  Rng rng(seed);
  const auto v = static_cast<std::uint64_t>(c.vocab);
  std::vector<float> ids;
  ids.reserve(static_cast<std::size_t>(steps) * n * (c.sequence + 1));
  for (int w = 0; w < steps * n; ++w) {
    std::uint64_t token = rng.below(v);
    const std::uint64_t stride = 1 + rng.below(v - 1);
    for (int t = 0; t <= c.sequence; ++t) {
      ids.push_back(static_cast<float>(token));
      token = (token + stride) % v;
    }
  }
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains failsim's transformer with plain SGD and writes its trace (float32 files)"};
  TransformerConfig config;
  std::uint64_t seed = 1;
  std::uint64_t data_seed = 2;
  int steps = 0;
  int batch = 0;
  float learning_rate = 0;
  double rough = 0;
  std::string out_dir;
  app.add_option("--vocab", config.vocab, "V")->required()->check(CLI::Range(2, 1 << 24));
  app.add_option("--sequence", config.sequence, "T")->required()->check(CLI::PositiveNumber);
  app.add_option("--layers", config.layers, "L")->required()->check(CLI::PositiveNumber);
  app.add_option("--hidden", config.hidden, "D")->required()->check(CLI::PositiveNumber);
  app.add_option("--heads", config.heads, "H, dividing D")->required()->check(CLI::PositiveNumber);
  app.add_option("--tied", config.tied, "lm_head is wte (true) or its own tensor (false)")
      ->required();
  app.add_option("--seed", seed, "Transformer::init's seed")->required();
  app.add_option("--data-seed", data_seed, "the batches' seed");
  app.add_option("--steps", steps, "SGD steps")->required()->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "windows per step")->required()->check(CLI::PositiveNumber);
  app.add_option("--lr", learning_rate, "learning rate")->required()->check(CLI::PositiveNumber);
  app.add_option("--rough", rough,
                 "instead of Transformer::init, every parameter normal(0, this) from Rng(seed): "
                 "GELU, softmax and LayerNorm away from the near-linear region GPT-2's init keeps")
      ->check(CLI::PositiveNumber);
  app.add_option("--out", out_dir, "existing directory for the trace files")
      ->required()
      ->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);

  try {
    Transformer model(config);
    std::vector<float> params(model.num_params());
    std::vector<float> grad(model.num_params());
    if (rough > 0) {
      Rng rng(seed);
      for (float& p : params) p = static_cast<float>(rough * rng.normal());
    } else {
      model.init(params, seed);
    }
    const std::filesystem::path dir(out_dir);
    write_floats(dir / "params_initial.f32", params);

    const std::vector<float> ids = make_batches(config, steps, batch, data_seed);
    write_floats(dir / "tokens.f32", ids);

    Sgd sgd(SgdConfig{.learning_rate = learning_rate}, model.num_params());
    std::vector<std::int32_t> last(static_cast<std::size_t>(batch));
    std::vector<float> losses;
    const std::size_t window = static_cast<std::size_t>(config.sequence) + 1;
    for (int s = 0; s < steps; ++s) {
      const float* x = ids.data() + static_cast<std::size_t>(s) * batch * window;
      for (int b = 0; b < batch; ++b) {
        last[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(x[(b + 1) * window - 1]);
      }
      losses.push_back(model.loss_and_gradient(params, Batch{x, last.data(), batch}, grad, 0));
      sgd.step(params, grad);
    }
    write_floats(dir / "losses.f32", losses);
    write_floats(dir / "params_final.f32", params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transformer_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
