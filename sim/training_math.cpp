#include "sim/training_math.hpp"

#include <fmt/core.h>

#include <chrono>

#include "models/idx.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/synthetic.hpp"

namespace failsim::sim {

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

models::Dataset load_split(const Scenario& s, models::Split split) {
  const DataConfig& d = s.data;
  if (d.kind == DatasetKind::SYNTHETIC) {
    models::BlobSpec spec;
    spec.num_classes = d.synthetic.num_classes;
    spec.dim = d.synthetic.dim;
    spec.separation = d.synthetic.separation;
    spec.sigma = d.synthetic.noise_sigma;
    spec.seed = models::derive_seed(s.seed, SEED_DATA);
    return models::make_gaussian_blobs(
        spec, split,
        split == models::Split::TRAIN ? d.synthetic.train_size : d.synthetic.test_size);
  }
  const int limit = split == models::Split::TRAIN ? d.train_limit : d.test_limit;
  return models::load_fashion_mnist(split, d.dir, limit > 0 ? limit : -1);
}

std::unique_ptr<models::Model> build_model(const ModelConfig& m, const models::Dataset& data) {
  models::ModelSpec spec;
  spec.kind = m.kind == ModelKind::CNN   ? models::ModelKind::CNN
              : m.kind == ModelKind::MLP ? models::ModelKind::MLP
                                         : models::ModelKind::SOFTMAX;
  spec.hidden = m.hidden;
  spec.dropout = static_cast<float>(m.dropout);
  return models::make_model(spec, data.channels, data.height, data.width, data.num_classes);
}
}  // namespace

BatchStream::BatchStream(std::vector<int> shard, int batch_size, std::uint64_t seed)
    : shard_(std::move(shard)), batch_size_(batch_size), seed_(seed) {}

std::span<const int> BatchStream::next() {
  const auto b = static_cast<std::size_t>(batch_size_);
  if (pass_ < 0 || position_ + b > shard_.size()) {
    // A new pass: the shard in a fresh order (Fisher-Yates from this pass's seed).
    ++pass_;
    models::Rng rng(models::derive_seed(seed_, static_cast<std::uint64_t>(pass_)));
    for (std::size_t i = shard_.size(); i > 1; --i) std::swap(shard_[i - 1], shard_[rng.below(i)]);
    position_ = 0;
  }
  const std::span<const int> batch(shard_.data() + position_, b);
  position_ += b;
  return batch;
}

TrainingMath::TrainingMath(const Scenario& scenario, const std::string& file_label)
    : scenario_(scenario),
      train_(load_split(scenario, models::Split::TRAIN)),
      test_(load_split(scenario, models::Split::TEST)),
      model_(build_model(scenario.model, train_)),
      batch_(scenario.optimizer.batch_size, train_.dim()),
      evaluator_(*model_),
      shard_order_(
          models::shuffled_indices(train_.size(), models::derive_seed(scenario.seed, SEED_SHARD))) {
  const int workers = scenario.cluster.num_workers();
  const int smallest_shard = train_.size() / workers;
  if (scenario.optimizer.batch_size > smallest_shard) {
    throw ScenarioError(
        file_label, "/optimizer/batch_size",
        fmt::format("at most the smallest worker shard ({} training samples / {} workers = {})",
                    train_.size(), workers, smallest_shard),
        std::to_string(scenario.optimizer.batch_size));
  }
}

SnapshotPtr TrainingMath::initial_snapshot() const {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->params.resize(model_->num_params());
  model_->init(snapshot->params, models::derive_seed(scenario_.seed, SEED_INIT));
  return snapshot;
}

BatchStream TrainingMath::batch_stream(int worker) const {
  return BatchStream(models::shard_of(shard_order_, worker, scenario_.cluster.num_workers()),
                     scenario_.optimizer.batch_size,
                     models::derive_seed(models::derive_seed(scenario_.seed, SEED_BATCHES),
                                         static_cast<std::uint64_t>(worker)));
}

std::uint64_t TrainingMath::dropout_seed(int worker, std::int64_t step) const {
  const std::uint64_t per_worker = models::derive_seed(
      models::derive_seed(scenario_.seed, SEED_DROPOUT), static_cast<std::uint64_t>(worker));
  return models::derive_seed(per_worker, static_cast<std::uint64_t>(step));
}

float TrainingMath::gradient(const Snapshot& snapshot, std::span<const int> indices,
                             std::uint64_t dropout_seed, std::span<float> grad) {
  const auto start = Clock::now();
  const models::Batch batch = batch_.gather(train_, indices);
  const float loss = model_->loss_and_gradient(snapshot.params, batch, grad, dropout_seed);
  math_seconds_ += seconds_since(start);
  return loss;
}

models::EvalResult TrainingMath::evaluate(const SnapshotPtr& snapshot, int limit) {
  if (cached_ && cached_->snapshot == snapshot && cached_->limit == limit) return cached_->result;
  const auto start = Clock::now();
  const models::EvalResult result = evaluator_.evaluate(snapshot->params, test_, limit);
  math_seconds_ += seconds_since(start);
  cached_ = CachedEval{snapshot, limit, result};
  return result;
}

}  // namespace failsim::sim
