#include "models/evaluate.hpp"

#include <algorithm>

#include "models/loss.hpp"

namespace failsim::models {

Evaluator::Evaluator(const Model& model, int chunk)
    : model_(model.clone()),
      chunk_(chunk),
      logits_(static_cast<std::size_t>(chunk) * model.num_classes()) {}

int Evaluator::samples(const Dataset& data, int limit) {
  return (limit <= 0 || limit > data.size()) ? data.size() : limit;
}

EvalPart Evaluator::evaluate_part(std::span<const float> params, const Dataset& data, int start,
                                  int m) {
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
