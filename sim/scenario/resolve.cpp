#include "sim/scenario/resolve.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "models/idx.hpp"
#include "models/model_spec.hpp"

namespace failsim::sim {

namespace {

std::unique_ptr<models::Model> describe_model(const Scenario& s, const models::DataShape& data,
                                              const std::string& file) {
  models::ModelSpec spec;
  spec.kind = s.model.kind;
  spec.hidden = s.model.hidden;
  spec.dropout = static_cast<float>(s.model.dropout);
  try {
    return models::make_model(spec, data.channels, data.height, data.width, data.num_classes);
  } catch (const std::invalid_argument& e) {
    throw input::InputError(file, "/model/kind",
                            fmt::format("a model for the data's {}x{}x{} samples of {} classes",
                                        data.channels, data.height, data.width, data.num_classes),
                            fmt::format("\"{}\" ({})", to_string(s.model.kind), e.what()));
  }
}

// Every worker draws its batches from its own share of the training set (docs/time-model.md).
void check_data_sizes(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  const bool synthetic = s.data.kind == DatasetKind::SYNTHETIC;
  const std::string size_field = synthetic ? "/data/train_size" : "/data/train_limit";
  const int workers = s.cluster.num_workers();
  if (job.train.samples < workers) {
    throw input::InputError(
        file, size_field,
        fmt::format("at least one training sample per worker ({} workers)", workers),
        std::to_string(job.train.samples));
  }
  const int smallest_shard = job.train.samples / workers;
  if (s.optimizer.batch_size > smallest_shard) {
    throw input::InputError(
        file, "/optimizer/batch_size",
        fmt::format("at most the smallest worker shard ({} training samples / {} workers = {})",
                    job.train.samples, workers, smallest_shard),
        std::to_string(s.optimizer.batch_size));
  }
  if (s.evaluation.test_subset > job.test.samples) {
    throw input::InputError(
        file, "/evaluation/test_subset",
        fmt::format("at most the {} test samples of the data set (0 = all)", job.test.samples),
        std::to_string(s.evaluation.test_subset));
  }
}

void check_shards(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  if (static_cast<std::size_t>(s.cluster.shards) > job.num_params) {
    throw input::InputError(file, "/cluster/servers/shards",
                            fmt::format("at most the model's {} parameters", job.num_params),
                            std::to_string(s.cluster.shards));
  }
}

/// The largest parameter message the workers send or receive: the largest shard's (the whole
/// vector without shards; with elastic resume too, as the job may shrink to one shard).
double largest_message(const Scenario& s, const ResolvedJob& job) {
  if (s.recovery.elastic_patience()) return job.time.param_bytes;
  double bytes = 0.0;
  for (const models::ShardRange& shard : job.shards) {
    // As sim/job.cpp's shards: the time model's bytes times the shard's fraction.
    const double fraction = static_cast<double>(shard.size) / static_cast<double>(job.num_params);
    bytes = std::max(bytes, job.time.param_bytes * fraction);
  }
  return bytes;
}

// A request must be able to complete within the workers' request timeout, or every push
// would time out and be lost even without a failure.
void check_request_timeout(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  if (s.cluster.kind != ClusterKind::STAR) return;
  const double bytes = largest_message(s, job);
  // SimGrid's default network model (LV08) stretches latency by 13.01 and keeps 97% of the
  // bandwidth: estimate with those factors, whichever model runs (it is the slower one).
  const double transfer =
      13.01 * 2 * s.cluster.star.latency + bytes / (0.97 * s.cluster.star.bandwidth);
  if (s.failures.request_timeout <= 2 * transfer) {
    throw input::InputError(
        file, "/failures/request_timeout",
        fmt::format("more than twice the time one parameter message takes on the "
                    "network ({} s for {} bytes)",
                    transfer, bytes),
        fmt::format("{}", s.failures.request_timeout));
  }
}

}  // namespace

models::DataShape data_shape(const Scenario& s, models::Split split, const std::string& file) {
  const DataConfig& d = s.data;
  if (d.kind == DatasetKind::SYNTHETIC) {
    models::DataShape shape;
    shape.samples = split == models::Split::TRAIN ? d.synthetic.train_size : d.synthetic.test_size;
    shape.width = d.synthetic.dim;
    shape.num_classes = d.synthetic.num_classes;
    return shape;
  }
  const int limit = split == models::Split::TRAIN ? d.train_limit : d.test_limit;
  try {
    return models::read_idx_split_shape(d.dir, split, limit > 0 ? limit : -1);
  } catch (const models::DataError& e) {
    throw input::InputError(file, "/data/dir", "a directory of Fashion-MNIST IDX files that load",
                            e.what());
  }
}

ResolvedJob resolve(const Scenario& s, const std::string& file) {
  ResolvedJob job;
  job.train = data_shape(s, models::Split::TRAIN, file);
  job.test = data_shape(s, models::Split::TEST, file);
  const auto model = describe_model(s, job.train, file);
  job.num_params = model->num_params();
  job.time = TimeModel::from(s, *model);
  check_data_sizes(s, job, file);
  check_shards(s, job, file);
  job.shards = models::partition(model->tensors(), s.cluster.shards);
  check_request_timeout(s, job, file);
  return job;
}

}  // namespace failsim::sim
