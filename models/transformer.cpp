// The transformer's layout, initialisation and passes (see transformer.hpp); the blocks' kernels
// are in transformer_kernels.cpp.
#include "models/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/loss.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/transformer_kernels.hpp"

namespace failsim::models {
namespace {

using std::to_string;

std::size_t sz(long long v) { return static_cast<std::size_t>(v); }

/// The token id stored as a float at column `col` of window `row`, or std::invalid_argument
/// naming where it is and what it holds when it is not an integer in [0, vocab).
std::int32_t token_at(const float* x, int row, int col, int width, int vocab) {
  const float v = x[static_cast<std::ptrdiff_t>(row) * width + col];
  if (!(v >= 0.0f && v < static_cast<float>(vocab) && v == std::floor(v))) {
    throw std::invalid_argument("Transformer: window " + to_string(row) + ", position " +
                                to_string(col) + ": expected a token id, an integer in [0, " +
                                to_string(vocab) + "), got " + to_string(v));
  }
  return static_cast<std::int32_t>(v);
}

}  // namespace

Transformer::Transformer(TransformerConfig config) : config_(config) {
  const auto& c = config;
  if (c.vocab < 2 || c.sequence < 1 || c.layers < 1 || c.hidden < 1 || c.heads < 1 ||
      c.mlp_ratio < 1) {
    throw std::invalid_argument(
        "Transformer: need vocab >= 2 and sequence, layers, hidden, heads, mlp_ratio >= 1, got "
        "vocab " +
        to_string(c.vocab) + ", sequence " + to_string(c.sequence) + ", layers " +
        to_string(c.layers) + ", hidden " + to_string(c.hidden) + ", heads " + to_string(c.heads) +
        ", mlp_ratio " + to_string(c.mlp_ratio));
  }
  if (c.hidden % c.heads != 0) {
    throw std::invalid_argument("Transformer: heads must divide hidden, got hidden " +
                                to_string(c.hidden) + ", heads " + to_string(c.heads));
  }
  const std::size_t d = sz(c.hidden);
  const std::size_t f = d * sz(c.mlp_ratio);
  std::size_t at = 0;
  auto take = [&at](std::size_t size) {
    const std::size_t start = at;
    at += size;
    return start;
  };
  layout_.wte = take(sz(c.vocab) * d);
  layout_.wpe = take(sz(c.sequence) * d);
  for (int l = 0; l < c.layers; ++l) {
    TransformerBlockLayout b;
    b.ln1_g = take(d);
    b.ln1_b = take(d);
    b.qkv_w = take(3 * d * d);
    b.qkv_b = take(3 * d);
    b.proj_w = take(d * d);
    b.proj_b = take(d);
    b.ln2_g = take(d);
    b.ln2_b = take(d);
    b.fc_w = take(f * d);
    b.fc_b = take(f);
    b.out_w = take(d * f);
    b.out_b = take(d);
    layout_.blocks.push_back(b);
  }
  layout_.lnf_g = take(d);
  layout_.lnf_b = take(d);
  layout_.head = c.tied ? layout_.wte : take(sz(c.vocab) * d);
  layout_.total = at;
}

std::unique_ptr<Model> Transformer::clone() const { return std::make_unique<Transformer>(config_); }

std::string Transformer::name() const {
  const auto& c = config_;
  return "transformer[L" + to_string(c.layers) + ",D" + to_string(c.hidden) + ",H" +
         to_string(c.heads) + ",T" + to_string(c.sequence) + ",V" + to_string(c.vocab) +
         (c.tied ? ",tied]" : "]");
}

std::vector<Tensor> Transformer::tensors() const {
  const std::size_t d = sz(config_.hidden);
  const std::size_t f = d * sz(config_.mlp_ratio);
  std::vector<Tensor> t{{"wte.weight", layout_.wte, sz(config_.vocab) * d, d},
                        {"wpe.weight", layout_.wpe, sz(config_.sequence) * d, d}};
  for (std::size_t l = 0; l < layout_.blocks.size(); ++l) {
    const auto& b = layout_.blocks[l];
    const std::string p = "h." + to_string(l) + ".";
    t.push_back({p + "ln_1.weight", b.ln1_g, d, 1});
    t.push_back({p + "ln_1.bias", b.ln1_b, d, 1});
    t.push_back({p + "attn.c_attn.weight", b.qkv_w, 3 * d * d, d});
    t.push_back({p + "attn.c_attn.bias", b.qkv_b, 3 * d, 1});
    t.push_back({p + "attn.c_proj.weight", b.proj_w, d * d, d});
    t.push_back({p + "attn.c_proj.bias", b.proj_b, d, 1});
    t.push_back({p + "ln_2.weight", b.ln2_g, d, 1});
    t.push_back({p + "ln_2.bias", b.ln2_b, d, 1});
    t.push_back({p + "mlp.c_fc.weight", b.fc_w, f * d, d});
    t.push_back({p + "mlp.c_fc.bias", b.fc_b, f, 1});
    t.push_back({p + "mlp.c_proj.weight", b.out_w, d * f, f});
    t.push_back({p + "mlp.c_proj.bias", b.out_b, d, 1});
  }
  t.push_back({"ln_f.weight", layout_.lnf_g, d, 1});
  t.push_back({"ln_f.bias", layout_.lnf_b, d, 1});
  if (!config_.tied) t.push_back({"lm_head.weight", layout_.head, sz(config_.vocab) * d, d});
  return t;
}

void Transformer::init(std::span<float> params, std::uint64_t seed) const {
  if (params.size() != layout_.total) {
    throw std::invalid_argument("Transformer::init: params has " + to_string(params.size()) +
                                " floats, the model " + to_string(layout_.total));
  }
  constexpr double STD = 0.02;
  const double residual_std = STD / std::sqrt(2.0 * config_.layers);
  Rng rng(seed);
  auto normal = [&](std::size_t offset, std::size_t size, double std_dev) {
    for (std::size_t i = 0; i < size; ++i) {
      params[offset + i] = static_cast<float>(rng.normal() * std_dev);
    }
  };
  // In parameter order: biases 0, LayerNorm gains 1, and a normal draw for every other tensor
  // (the weight matrices and both embeddings).
  for (const Tensor& t : tensors()) {
    const auto begin = params.begin() + static_cast<std::ptrdiff_t>(t.offset);
    const bool gain = t.name.ends_with("ln_1.weight") || t.name.ends_with("ln_2.weight") ||
                      t.name == "ln_f.weight";
    if (t.name.ends_with(".bias")) {
      std::fill_n(begin, t.size, 0.0f);
    } else if (gain) {
      std::fill_n(begin, t.size, 1.0f);
    } else {
      const bool residual = t.name.ends_with("c_proj.weight");
      normal(t.offset, t.size, residual ? residual_std : STD);
    }
  }
}

double Transformer::forward_flops_per_sample() const {
  const double t = config_.sequence, d = config_.hidden, v = config_.vocab;
  const double f = d * config_.mlp_ratio;
  const double block = 2.0 * t * (3.0 * d * d + d * d + 2.0 * d * f) + 2.0 * 2.0 * t * t * d;
  return config_.layers * block + 2.0 * t * d * v;
}

double Transformer::train_flops_per_sample() const { return 3.0 * forward_flops_per_sample(); }

void Transformer::reserve(int n) {
  if (n <= capacity_) return;
  const std::size_t rows = sz(n) * sz(config_.sequence);
  const std::size_t d = sz(config_.hidden);
  const std::size_t f = d * sz(config_.mlp_ratio);
  const std::size_t layers = sz(config_.layers);
  const std::size_t slices = 2 * layers + 1;
  const std::size_t t = sz(config_.sequence);
  tokens_.resize(rows);
  targets_.resize(rows);
  stream_.resize(slices * rows * d);
  mean_.resize(slices * rows);
  rstd_.resize(slices * rows);
  normed_.resize(slices * rows * d);
  qkv_.resize(layers * rows * 3 * d);
  probs_.resize(layers * sz(n) * sz(config_.heads) * t * t);
  att_.resize(layers * rows * d);
  fc_.resize(layers * rows * f);
  gelu_.resize(layers * rows * f);
  logits_.resize(rows * sz(config_.vocab));
  dstream_.resize(rows * d);
  dnormed_.resize(rows * d);
  datt_.resize(rows * d);
  dqkv_.resize(rows * 3 * d);
  dfc_.resize(rows * f);
  dprobs_.resize(t * t);
  capacity_ = n;
}

void Transformer::forward(const float* params, const float* x, int n, bool targets) {
  reserve(n);
  const int t = config_.sequence, d = config_.hidden, v = config_.vocab;
  const int f = d * config_.mlp_ratio;
  const int rows = n * t;
  const std::size_t nd = sz(rows) * sz(d);
  const int width = input_dim();
  for (int b = 0; b < n; ++b) {
    for (int i = 0; i < t; ++i) {
      tokens_[sz(b) * sz(t) + sz(i)] = token_at(x, b, i, width, v);
      if (targets) targets_[sz(b) * sz(t) + sz(i)] = token_at(x, b, i + 1, width, v);
    }
  }
  const transformer::Pack pack{pack_a_, pack_b_};
  const transformer::AttentionShape shape{n, t, config_.heads, d / config_.heads};
  // Embeddings: the stream's first slice.
  for (int r = 0; r < rows; ++r) {
    const float* te = params + layout_.wte + sz(tokens_[sz(r)]) * sz(d);
    const float* pe = params + layout_.wpe + sz(r % t) * sz(d);
    float* s = stream_.data() + sz(r) * sz(d);
    for (int c = 0; c < d; ++c) s[c] = te[c] + pe[c];
  }
  for (int l = 0; l < config_.layers; ++l) {
    const auto& p = layout_.blocks[sz(l)];
    const std::size_t in = 2 * sz(l), mid = in + 1;
    float* x_in = stream_.data() + in * nd;
    float* x_mid = stream_.data() + mid * nd;
    float* qkv = qkv_.data() + sz(l) * nd * 3;
    float* att = att_.data() + sz(l) * nd;
    float* fc = fc_.data() + sz(l) * sz(rows) * sz(f);
    float* act = gelu_.data() + sz(l) * sz(rows) * sz(f);
    float* probs = probs_.data() + sz(l) * sz(n) * sz(config_.heads) * sz(t) * sz(t);
    // x_mid = x_in + c_proj(attn(c_attn(ln_1(x_in)))).
    transformer::layer_norm(x_in, rows, d, params + p.ln1_g, params + p.ln1_b,
                            normed_.data() + in * nd, mean_.data() + in * sz(rows),
                            rstd_.data() + in * sz(rows));
    transformer::linear(normed_.data() + in * nd, rows, d, params + p.qkv_w, params + p.qkv_b,
                        3 * d, qkv, pack);
    transformer::causal_attention(qkv, shape, probs, att, pack);
    transformer::linear(att, rows, d, params + p.proj_w, params + p.proj_b, d, x_mid, pack);
    for (std::size_t i = 0; i < nd; ++i) x_mid[i] += x_in[i];
    // x_out = x_mid + c_proj(gelu(c_fc(ln_2(x_mid)))).
    float* x_out = stream_.data() + (mid + 1) * nd;
    transformer::layer_norm(x_mid, rows, d, params + p.ln2_g, params + p.ln2_b,
                            normed_.data() + mid * nd, mean_.data() + mid * sz(rows),
                            rstd_.data() + mid * sz(rows));
    transformer::linear(normed_.data() + mid * nd, rows, d, params + p.fc_w, params + p.fc_b, f, fc,
                        pack);
    transformer::gelu(fc, sz(rows) * sz(f), act);
    transformer::linear(act, rows, f, params + p.out_w, params + p.out_b, d, x_out, pack);
    for (std::size_t i = 0; i < nd; ++i) x_out[i] += x_mid[i];
  }
  const std::size_t last = 2 * sz(config_.layers);
  transformer::layer_norm(stream_.data() + last * nd, rows, d, params + layout_.lnf_g,
                          params + layout_.lnf_b, normed_.data() + last * nd,
                          mean_.data() + last * sz(rows), rstd_.data() + last * sz(rows));
  transformer::linear(normed_.data() + last * nd, rows, d, params + layout_.head, nullptr, v,
                      logits_.data(), pack);
}

void Transformer::backward(const float* params, int n, float* grad) {
  const int t = config_.sequence, d = config_.hidden, v = config_.vocab;
  const int f = d * config_.mlp_ratio;
  const int rows = n * t;
  const std::size_t nd = sz(rows) * sz(d);
  const transformer::Pack pack{pack_a_, pack_b_};
  const transformer::AttentionShape shape{n, t, config_.heads, d / config_.heads};
  // lm_head (written first: when tied, the embedding's gradient is added to it below), ln_f.
  const std::size_t last = 2 * sz(config_.layers);
  transformer::linear_backward(normed_.data() + last * nd, logits_.data(), rows, d,
                               params + layout_.head, v, grad + layout_.head, nullptr,
                               dnormed_.data(), false, pack);
  std::fill(dstream_.begin(), dstream_.begin() + static_cast<std::ptrdiff_t>(nd), 0.0f);
  transformer::layer_norm_backward(stream_.data() + last * nd, dnormed_.data(), rows, d,
                                   params + layout_.lnf_g, mean_.data() + last * sz(rows),
                                   rstd_.data() + last * sz(rows), grad + layout_.lnf_g,
                                   grad + layout_.lnf_b, dstream_.data());
  for (int l = config_.layers - 1; l >= 0; --l) {
    const auto& p = layout_.blocks[sz(l)];
    const std::size_t in = 2 * sz(l), mid = in + 1;
    const float* qkv = qkv_.data() + sz(l) * nd * 3;
    const float* fc = fc_.data() + sz(l) * sz(rows) * sz(f);
    const float* probs = probs_.data() + sz(l) * sz(n) * sz(config_.heads) * sz(t) * sz(t);
    // The MLP's residual branch: dstream is dL/d(its output).
    transformer::linear_backward(gelu_.data() + sz(l) * sz(rows) * sz(f), dstream_.data(), rows, f,
                                 params + p.out_w, d, grad + p.out_w, grad + p.out_b, dfc_.data(),
                                 false, pack);
    transformer::gelu_backward(fc, sz(rows) * sz(f), dfc_.data());
    transformer::linear_backward(normed_.data() + mid * nd, dfc_.data(), rows, d, params + p.fc_w,
                                 f, grad + p.fc_w, grad + p.fc_b, dnormed_.data(), false, pack);
    transformer::layer_norm_backward(stream_.data() + mid * nd, dnormed_.data(), rows, d,
                                     params + p.ln2_g, mean_.data() + mid * sz(rows),
                                     rstd_.data() + mid * sz(rows), grad + p.ln2_g, grad + p.ln2_b,
                                     dstream_.data());
    // The attention's residual branch.
    transformer::linear_backward(att_.data() + sz(l) * nd, dstream_.data(), rows, d,
                                 params + p.proj_w, d, grad + p.proj_w, grad + p.proj_b,
                                 datt_.data(), false, pack);
    transformer::causal_attention_backward(qkv, probs, datt_.data(), shape, dqkv_.data(),
                                           dprobs_.data(), pack);
    transformer::linear_backward(normed_.data() + in * nd, dqkv_.data(), rows, d, params + p.qkv_w,
                                 3 * d, grad + p.qkv_w, grad + p.qkv_b, dnormed_.data(), false,
                                 pack);
    transformer::layer_norm_backward(stream_.data() + in * nd, dnormed_.data(), rows, d,
                                     params + p.ln1_g, mean_.data() + in * sz(rows),
                                     rstd_.data() + in * sz(rows), grad + p.ln1_g, grad + p.ln1_b,
                                     dstream_.data());
  }
  // The embeddings: a scatter of dstream by token and by position.
  float* dwte = grad + layout_.wte;
  float* dwpe = grad + layout_.wpe;
  if (!config_.tied) std::fill(dwte, dwte + sz(v) * sz(d), 0.0f);
  std::fill(dwpe, dwpe + sz(t) * sz(d), 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* ds = dstream_.data() + sz(r) * sz(d);
    float* te = dwte + sz(tokens_[sz(r)]) * sz(d);
    float* pe = dwpe + sz(r % t) * sz(d);
    for (int c = 0; c < d; ++c) {
      te[c] += ds[c];
      pe[c] += ds[c];
    }
  }
}

float Transformer::loss_and_gradient(std::span<const float> params, const Batch& batch,
                                     std::span<float> grad, std::uint64_t /*dropout_seed*/) {
  if (params.size() != layout_.total || grad.size() != layout_.total) {
    throw std::invalid_argument("Transformer::loss_and_gradient: params and grad need " +
                                to_string(layout_.total) + " floats, got " +
                                to_string(params.size()) + " and " + to_string(grad.size()));
  }
  if (batch.n < 1) throw std::invalid_argument("Transformer::loss_and_gradient: empty batch");
  forward(params.data(), batch.x, batch.n, true);
  const int rows = batch.n * config_.sequence;
  const float loss =
      softmax_cross_entropy(logits_.data(), targets_.data(), rows, config_.vocab, logits_.data());
  backward(params.data(), batch.n, grad.data());
  return loss;
}

const float* Transformer::sequence_logits(std::span<const float> params, const float* x, int n) {
  if (params.size() != layout_.total) {
    throw std::invalid_argument("Transformer::logits: params has " + to_string(params.size()) +
                                " floats, the model " + to_string(layout_.total));
  }
  forward(params.data(), x, n, false);
  return logits_.data();
}

void Transformer::logits(std::span<const float> params, const float* x, int n, float* out) {
  const float* all = sequence_logits(params, x, n);
  const std::size_t v = sz(config_.vocab);
  for (int b = 0; b < n; ++b) {
    const float* row = all + (sz(b) * sz(config_.sequence) + sz(config_.sequence) - 1) * v;
    std::copy(row, row + v, out + sz(b) * v);
  }
}

std::unique_ptr<Model> make_transformer(const ModelSpec& spec, const DataShape& data) {
  const ModelSpec::Transformer& t = spec.transformer;
  if (data.width != t.sequence + 1) {
    throw std::invalid_argument(
        "Transformer: windows of sequence + 1 = " + to_string(t.sequence + 1) + " tokens, got " +
        to_string(data.width));
  }
  return std::make_unique<Transformer>(TransformerConfig{data.num_classes, t.sequence, t.layers,
                                                         t.hidden, t.heads, t.mlp_ratio, t.tied});
}

}  // namespace failsim::models
