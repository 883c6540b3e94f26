#include "models/evaluate.hpp"

#include <algorithm>

#include "models/loss.hpp"

namespace failsim::models {

Evaluator::Evaluator(const Model& model, int chunk)
    : model_(model.clone()),
      chunk_(chunk),
      logits_(static_cast<std::size_t>(chunk) * model.num_classes()) {}

EvalResult Evaluator::evaluate(std::span<const float> params, const Dataset& data, int limit) {
  const int n = (limit <= 0 || limit > data.size()) ? data.size() : limit;
  const int classes = model_->num_classes();
  double loss_sum = 0.0;
  long correct = 0;
  for (int start = 0; start < n; start += chunk_) {
    const int m = std::min(chunk_, n - start);
    model_->logits(params, data.sample(start), m, logits_.data());
    loss_sum += static_cast<double>(softmax_cross_entropy(logits_.data(), data.y.data() + start, m,
                                                          classes, nullptr)) *
                m;
    for (int i = 0; i < m; ++i) {
      const float* row = logits_.data() + static_cast<std::ptrdiff_t>(i) * classes;
      const auto best = std::max_element(row, row + classes) - row;
      correct += best == data.y[static_cast<std::size_t>(start + i)];
    }
  }
  EvalResult result;
  result.samples = n;
  if (n > 0) {
    result.loss = loss_sum / n;
    result.accuracy = static_cast<double>(correct) / n;
  }
  return result;
}

}  // namespace failsim::models
