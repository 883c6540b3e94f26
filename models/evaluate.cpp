#include "models/evaluate.hpp"

#include <algorithm>

#include "models/loss.hpp"
#include "models/transformer.hpp"

namespace failsim::models {

namespace {

/// A language model's share of an evaluation. It predicts every position of a window, and its
/// forward pass computes all T positions' logits anyway: the loss is each window's mean
/// next-token cross-entropy over its T positions (as in training), so an evaluation of n windows
/// measures n x T tokens, not n. The accuracy stays the last position's (Batch::y, what logits()
/// predicts): next-token accuracy with the whole context.
EvalPart sequence_part(Transformer& model, std::span<const float> params, const Dataset& data,
                       int start, int m) {
  const int t = model.config().sequence, v = model.config().vocab;
  const int width = model.input_dim();
  const float* x = data.sample(start);
  const float* logits = model.sequence_logits(params, x, m);
  EvalPart part;
  for (int b = 0; b < m; ++b) {
    double window = 0.0;
    for (int i = 0; i < t; ++i) {
      const std::int32_t next =
          static_cast<std::int32_t>(x[static_cast<std::ptrdiff_t>(b) * width + i + 1]);
      const float* row = logits + (static_cast<std::ptrdiff_t>(b) * t + i) * v;
      window += softmax_cross_entropy(row, &next, 1, v, nullptr);
    }
    part.loss_sum += window / t;
    const float* last = logits + (static_cast<std::ptrdiff_t>(b) * t + t - 1) * v;
    const auto best = std::max_element(last, last + v) - last;
    part.correct += best == data.y[static_cast<std::size_t>(start + b)];
  }
  return part;
}

}  // namespace

Evaluator::Evaluator(const Model& model, int chunk)
    : model_(model.clone()),
      chunk_(chunk),
      logits_(static_cast<std::size_t>(chunk) * model.num_classes()) {}

int Evaluator::samples(const Dataset& data, int limit) {
  return (limit <= 0 || limit > data.size()) ? data.size() : limit;
}

EvalPart Evaluator::evaluate_part(std::span<const float> params, const Dataset& data, int start,
                                  int m) {
  if (auto* language_model = dynamic_cast<Transformer*>(model_.get())) {
    return sequence_part(*language_model, params, data, start, m);
  }
  const int classes = model_->num_classes();
  model_->logits(params, data.sample(start), m, logits_.data());
  EvalPart part;
  part.loss_sum = static_cast<double>(softmax_cross_entropy(logits_.data(), data.y.data() + start,
                                                            m, classes, nullptr)) *
                  m;
  for (int i = 0; i < m; ++i) {
    const float* row = logits_.data() + static_cast<std::ptrdiff_t>(i) * classes;
    const auto best = std::max_element(row, row + classes) - row;
    part.correct += best == data.y[static_cast<std::size_t>(start + i)];
  }
  return part;
}

EvalResult Evaluator::result(EvalPart part_sum, int n) {
  EvalResult result;
  result.samples = n;
  if (n > 0) {
    result.loss = part_sum.loss_sum / n;
    result.accuracy = static_cast<double>(part_sum.correct) / n;
  }
  return result;
}

EvalResult Evaluator::evaluate(std::span<const float> params, const Dataset& data, int limit) {
  const int n = samples(data, limit);
  EvalPart sum;
  for (int start = 0; start < n; start += chunk_) {
    const EvalPart part = evaluate_part(params, data, start, std::min(chunk_, n - start));
    sum.loss_sum += part.loss_sum;
    sum.correct += part.correct;
  }
  return result(sum, n);
}

}  // namespace failsim::models
