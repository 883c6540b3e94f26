#include "sim/engine/training_math.hpp"

#include <fmt/core.h>

#include <chrono>
#include <stdexcept>

#include "models/idx.hpp"
#include "models/model_spec.hpp"
#include "models/rng.hpp"
#include "models/synthetic.hpp"
#include "models/text_corpus.hpp"

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
  if (d.kind == DatasetKind::TEXT) {
    return models::load_text_split(d.dir, split, s.model.transformer.sequence,
                                   limit > 0 ? limit : -1);
  }
  return models::load_fashion_mnist(split, d.dir, limit > 0 ? limit : -1);
}

std::unique_ptr<models::Model> build_model(const models::ModelSpec& m,
                                           const models::Dataset& data) {
  return models::make_model(m, data.shape());
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

/// One chunk of an evaluation.
class EvalJob : public MathJob {
 public:
  TrainingMath* math = nullptr;
  const float* params = nullptr;
  std::size_t num_params = 0;
  int start = 0, size = 0;
  models::EvalPart part;

 protected:
  void run(int slot) override {
    TrainingMath::Slot& s = *math->slots_[static_cast<std::size_t>(slot)];
    const auto begin = Clock::now();
    part = s.evaluator.evaluate_part({params, num_params}, math->test_, start, size);
    s.seconds += seconds_since(begin);
  }
};

GradientJob::~GradientJob() {
  if (!pending_) return;
  if (parts_) {
    parts_->abandon(math_->pool_);
    math_->spare_parts_.push_back(std::move(parts_));
  } else {
    math_->pool_.abandon(*this);
  }
}

void GradientJob::run(int slot) {
  loss_ = part_gradient(slot, 0, static_cast<int>(indices_.size()), dropout_seed_, grad_);
}

float GradientJob::part_gradient(int slot, int begin, int end, std::uint64_t seed,
                                 std::span<float> grad) {
  TrainingMath::Slot& s = *math_->slots_[static_cast<std::size_t>(slot)];
  const auto start = Clock::now();
  const models::Batch batch = s.batch.gather(
      math_->train_,
      indices_.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
  const float loss = s.model->loss_and_gradient(snapshot_->params, batch, grad, seed);
  s.seconds += seconds_since(start);
  return loss;
}

TrainingMath::Slot::Slot(const models::Model& m, int batch_size)
    : model(m.clone()), batch(batch_size, m.input_dim()), evaluator(m) {}

std::vector<std::unique_ptr<TrainingMath::Slot>> TrainingMath::make_slots(
    const models::Model& model, int batch_size, int threads) {
  if (threads < 1) {
    throw std::invalid_argument("TrainingMath: need at least 1 thread, got " +
                                std::to_string(threads));
  }
  std::vector<std::unique_ptr<Slot>> slots;
  for (int t = 0; t < threads; ++t) slots.push_back(std::make_unique<Slot>(model, batch_size));
  return slots;
}

TrainingMath::TrainingMath(const Scenario& scenario, int threads)
    : scenario_(scenario),
      train_(load_split(scenario, models::Split::TRAIN)),
      test_(load_split(scenario, models::Split::TEST)),
      model_(build_model(scenario.model, train_)),
      slots_(make_slots(*model_, scenario.optimizer.batch_size, threads)),
      shard_order_(
          models::shuffled_indices(train_.size(), models::derive_seed(scenario.seed, SEED_SHARD))),
      gradient_parts_(scenario.model.kind == models::ModelKind::TRANSFORMER
                          ? scenario.model.transformer.gradient_parts
                          : 1),
      pool_(threads) {}

TrainingMath::~TrainingMath() = default;

SnapshotPtr TrainingMath::initial_snapshot() const {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->params.resize(model_->num_params());
  model_->init(snapshot->params, models::derive_seed(scenario_.seed, SEED_INIT));
  return snapshot;
}

BatchStream TrainingMath::batch_stream(int worker) const {
  // The training set is cut into one shard per worker, or per data-parallel replica.
  const int shards = scenario_.protocol == Protocol::COLLECTIVE ? scenario_.collective.layout.dp
                                                                : scenario_.cluster.num_workers();
  return BatchStream(models::shard_of(shard_order_, worker, shards), scenario_.optimizer.batch_size,
                     models::derive_seed(models::derive_seed(scenario_.seed, SEED_BATCHES),
                                         static_cast<std::uint64_t>(worker)));
}

std::uint64_t TrainingMath::dropout_seed(int worker, std::int64_t step) const {
  const std::uint64_t per_worker = models::derive_seed(
      models::derive_seed(scenario_.seed, SEED_DROPOUT), static_cast<std::uint64_t>(worker));
  return models::derive_seed(per_worker, static_cast<std::uint64_t>(step));
}

void TrainingMath::start_gradient(GradientJob& job, const Snapshot& snapshot,
                                  std::span<const int> indices, std::uint64_t dropout_seed,
                                  std::span<float> grad) {
  job.snapshot_ = &snapshot;
  job.indices_ = indices;
  job.dropout_seed_ = dropout_seed;
  job.grad_ = grad;
  job.math_ = this;
  if (gradient_parts_ == 1) {
    pool_.submit(job);
  } else {
    if (spare_parts_.empty()) {
      spare_parts_.push_back(std::make_unique<GradientParts>(gradient_parts_, grad.size()));
    }
    job.parts_ = std::move(spare_parts_.back());
    spare_parts_.pop_back();
    job.parts_->start(pool_, job, static_cast<int>(indices.size()), dropout_seed, grad);
  }
  job.pending_ = true;
}

float TrainingMath::finish_gradient(GradientJob& job) {
  job.pending_ = false;  // collected: nothing to abandon, even if it threw
  if (!job.parts_) {
    pool_.wait(job);
    return job.loss_;
  }
  // The parts go back to the spares whatever happens: every part has finished when wait returns.
  struct GiveBack {
    std::vector<std::unique_ptr<GradientParts>>& spares;
    std::unique_ptr<GradientParts>& parts;
    ~GiveBack() { spares.push_back(std::move(parts)); }
  } give_back{spare_parts_, job.parts_};
  job.parts_->wait(pool_);
  return timed([&] { return job.parts_->sum(job.grad_); });
}

float TrainingMath::gradient(const Snapshot& snapshot, std::span<const int> indices,
                             std::uint64_t dropout_seed, std::span<float> grad) {
  GradientJob job;
  start_gradient(job, snapshot, indices, dropout_seed, grad);
  return finish_gradient(job);
}

models::EvalResult TrainingMath::evaluate(const SnapshotPtr& snapshot, int limit) {
  if (cached_ && cached_->snapshot == snapshot && cached_->limit == limit) return cached_->result;
  const int n = models::Evaluator::samples(test_, limit);
  const int chunk = slots_[0]->evaluator.chunk();
  const auto chunks = static_cast<std::size_t>((n + chunk - 1) / chunk);
  while (eval_jobs_.size() < chunks) eval_jobs_.push_back(std::make_unique<EvalJob>());
  for (std::size_t c = 0; c < chunks; ++c) {
    EvalJob& job = *eval_jobs_[c];
    job.math = this;
    job.params = snapshot->params.data();
    job.num_params = snapshot->params.size();
    job.start = static_cast<int>(c) * chunk;
    job.size = std::min(chunk, n - job.start);
    pool_.submit(job);
  }
  models::EvalPart sum;
  for (std::size_t c = 0; c < chunks; ++c) {
    try {
      pool_.wait(*eval_jobs_[c]);
    } catch (...) {
      for (std::size_t rest = c + 1; rest < chunks; ++rest) pool_.abandon(*eval_jobs_[rest]);
      throw;
    }
    sum.loss_sum += eval_jobs_[c]->part.loss_sum;
    sum.correct += eval_jobs_[c]->part.correct;
  }
  const models::EvalResult result = models::Evaluator::result(sum, n);
  cached_ = CachedEval{snapshot, limit, result};
  return result;
}

double TrainingMath::math_seconds() const {
  double total = 0.0;
  for (const auto& slot : slots_) total += slot->seconds;
  return total;
}

}  // namespace failsim::sim
