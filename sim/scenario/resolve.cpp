#include "sim/scenario/resolve.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "models/cnn.hpp"
#include "models/evaluate.hpp"
#include "models/idx.hpp"
#include "models/model_spec.hpp"
#include "models/text_corpus.hpp"
#include "sim/scenario/collective/recovery.hpp"

namespace failsim::sim {

namespace {

std::unique_ptr<models::Model> describe_model(const Scenario& s, const models::DataShape& data,
                                              const std::string& file) {
  try {
    return models::make_model(s.model, data);
  } catch (const std::invalid_argument& e) {
    throw input::InputError(file, "/model/kind",
                            fmt::format("a model for the data's {}x{}x{} samples of {} classes",
                                        data.channels, data.height, data.width, data.num_classes),
                            fmt::format("\"{}\" ({})", to_string(s.model.kind), e.what()));
  }
}

// Every worker (every data-parallel replica of a collective job) draws its batches from its own
// share of the training set (docs/time-model.md).
void check_data_sizes(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  const bool synthetic = s.data.kind == DatasetKind::SYNTHETIC;
  const std::string size_field = synthetic ? "/data/train_size" : "/data/train_limit";
  const bool collective = s.protocol == Protocol::COLLECTIVE;
  const int workers = collective ? s.collective.layout.dp : s.cluster.num_workers();
  const char* noun = collective ? "data-parallel replica" : "worker";
  if (job.train.samples < workers) {
    throw input::InputError(
        file, size_field,
        fmt::format("at least one training sample per {} ({} {}s)", noun, workers, noun),
        std::to_string(job.train.samples));
  }
  const int smallest_shard = job.train.samples / workers;
  if (s.optimizer.batch_size > smallest_shard) {
    throw input::InputError(
        file, "/optimizer/batch_size",
        fmt::format("at most the smallest {} shard ({} training samples / {} {}s = {})", noun,
                    job.train.samples, workers, noun, smallest_shard),
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
  for (const ShardShare& shard : job.shards) bytes = std::max(bytes, shard.bytes);
  return bytes;
}

/// The time one message of `bytes` takes from a worker to a server of a star. SimGrid's default
/// network model (LV08) stretches latency by 13.01 and keeps 97% of the bandwidth: estimated
/// with those factors, whichever model runs (it is the slower one).
double message_seconds(const Scenario& s, double bytes) {
  return 13.01 * 2 * s.cluster.star.latency + bytes / (0.97 * s.cluster.star.bandwidth);
}

// A request must be able to complete within the workers' request timeout, or every push
// would time out and be lost even without a failure.
void check_request_timeout(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  if (s.cluster.kind != ClusterKind::STAR) return;
  const double bytes = largest_message(s, job);
  const double transfer = message_seconds(s, bytes);
  if (s.failures.request_timeout <= 2 * transfer) {
    throw input::InputError(
        file, "/failures/request_timeout",
        fmt::format("more than twice the time one parameter message takes on the "
                    "network ({} s for {} bytes)",
                    transfer, bytes),
        fmt::format("{}", s.failures.request_timeout));
  }
}

/// Floats of one window's scratch in the transformer's training step (Transformer::reserve,
/// models/transformer.cpp): per position the residual stream and LayerNorm outputs of 2L + 1
/// slices, per block q, k, v, the heads' outputs, c_fc's output and GELU's, the logits and the
/// backward pass's row buffers; per block and head the T x T attention weights.
double transformer_activations_per_sample(const ModelSpec::Transformer& t, int vocab) {
  const double T = t.sequence, D = t.hidden, L = t.layers, H = t.heads;
  const double F = D * t.mlp_ratio;
  const double per_position = (2.0 * L + 1.0) * (2.0 * D + 2.0) + L * (3.0 * D + D + 2.0 * F) +
                              vocab + 3.0 * D + 3.0 * D + F + 2.0;
  return T * per_position + L * H * T * T;
}

/// Floats of one sample's activations in a training step: its inputs, every layer's outputs and
/// their gradients. The CNN computes in chunks of Cnn::MAX_CHUNK samples (models/cnn.hpp).
double activations_per_sample(const Scenario& s, const models::DataShape& data) {
  if (s.model.kind == ModelKind::TRANSFORMER)
    return transformer_activations_per_sample(s.model.transformer, data.num_classes);
  const double inputs = static_cast<double>(data.channels) * data.height * data.width;
  double layers = data.num_classes;
  for (const int h : s.model.hidden) layers += h;
  if (s.model.kind == ModelKind::CNN) {
    layers +=
        static_cast<double>(models::Cnn::CONV1_FILTERS) * data.height * data.width +
        static_cast<double>(models::Cnn::CONV2_FILTERS) * (data.height / 2) * (data.width / 2) +
        models::Cnn::HIDDEN;
  }
  return inputs + 2.0 * layers;
}

double samples_per_step(const Scenario& s, const models::Model& model) {
  const double batch = s.optimizer.batch_size;
  if (s.model.kind == ModelKind::CNN) return std::min(batch, double{models::Cnn::MAX_CHUNK});
  // Each math thread's evaluator has a model of its own whose scratch grows to the chunk of
  // windows it evaluates at once: the transformer's attention weights alone are L x H x T x T
  // floats a window, so that chunk's scratch is counted beside the batch's.
  if (s.model.kind == ModelKind::TRANSFORMER) return batch + models::Evaluator(model).chunk();
  return batch;
}

/// What the run allocates at its peak (docs/scenario-format.md, "Limits"): the data sets as
/// floats with int labels; the parameters held by every server process (its parameters, its
/// optimizer's momentum and two snapshots, and AdamW's second moment), by every worker (the
/// parameters it computes on and its gradient) and by the observer; one batch's activations per
/// math thread.
MemoryEstimate estimate_memory(const Scenario& s, const ResolvedJob& job,
                               const models::Model& model) {
  MemoryEstimate m;
  const double floats = sizeof(float);
  const auto sample_bytes = [&](const models::DataShape& d) {
    return static_cast<double>(d.samples) *
           (floats * d.channels * d.height * d.width + sizeof(std::int32_t));
  };
  m.data_bytes = sample_bytes(job.train) + sample_bytes(job.test);
  const double workers = s.cluster.num_workers();
  const double servers = static_cast<double>(s.cluster.num_servers()) * s.cluster.shards;
  const double adamw = s.optimizer.kind == OptimizerKind::ADAMW ? 1.0 : 0.0;
  // A transformer's gradient split in P parts holds P - 1 gradients of its parts beside its own
  // (sim/engine/gradient_parts.hpp), and each worker has at most one gradient in flight.
  const double parts =
      s.model.kind == ModelKind::TRANSFORMER ? s.model.transformer.gradient_parts - 1.0 : 0.0;
  const double copies = (4.0 + adamw) * servers + (2.0 + parts) * workers + 2.0;
  m.model_bytes = copies * floats * static_cast<double>(job.num_params);
  const double threads = std::max(1u, std::thread::hardware_concurrency());
  m.scratch_bytes =
      threads * floats * samples_per_step(s, model) * activations_per_sample(s, job.train);
  // One actor per worker (and one per shard it talks to with shards), two per server process
  // (itself and its helpers: replication, storage, drains), one per scheduled failure, one per
  // host of a random failure process, and the observer, coordinator and transient ones.
  double actors = workers * (s.cluster.shards > 1 ? 1.0 + s.cluster.shards : 1.0) + 2.0 * servers +
                  static_cast<double>(s.failures.events.size()) + 16.0;
  for (const StochasticFailures& f : s.failures.stochastic) {
    actors += f.target == FailureTarget::WORKER   ? workers
              : f.target == FailureTarget::SERVER ? servers
                                                  : 1.0;
  }
  m.actors = actors;
  return m;
}

// A job larger than the machine's memory ends in std::bad_alloc inside SimGrid (an abort) or
// in swapping: refused here, at the field whose size dominates the estimate.
void check_memory(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  const MemoryEstimate& m = job.memory;
  const double budget = physical_memory_bytes();
  if (m.resident_bytes() <= budget) return;
  const bool synthetic = s.data.kind == DatasetKind::SYNTHETIC;
  std::string field;
  std::string found;
  if (m.data_bytes >= m.model_bytes && m.data_bytes >= m.scratch_bytes) {
    if (synthetic && job.train.width > job.train.samples) {
      field = "/data/dim";
      found = std::to_string(s.data.synthetic.dim);
    } else {
      field = synthetic ? "/data/train_size" : "/data/train_limit";
      found = std::to_string(job.train.samples);
    }
  } else if (m.model_bytes >= m.scratch_bytes) {
    const bool many_workers = s.cluster.num_workers() > 64;
    field = many_workers ? (s.cluster.kind == ClusterKind::STAR ? "/cluster/workers/count"
                                                                : "/cluster/workers/hosts")
            : synthetic  ? "/data/dim"
                         : "/model/kind";
    found = many_workers ? std::to_string(s.cluster.num_workers())
            : synthetic  ? std::to_string(s.data.synthetic.dim)
                         : fmt::format("\"{}\"", to_string(s.model.kind));
  } else {
    field = "/optimizer/batch_size";
    found = std::to_string(s.optimizer.batch_size);
  }
  throw input::InputError(
      file, field,
      fmt::format("a job that fits in this machine's {} of memory (estimated {}: data {}, {} "
                  "parameters x {} copies {}, batch scratch {})",
                  format_bytes(budget), format_bytes(m.resident_bytes()),
                  format_bytes(m.data_bytes), job.num_params,
                  m.model_bytes / (sizeof(float) * static_cast<double>(job.num_params)),
                  format_bytes(m.model_bytes), format_bytes(m.scratch_bytes)),
      found);
}

/// The real math of a gradient and of an evaluation, both protocols (the rest left at 0).
WorkEstimate math_work(const Scenario& s, const ResolvedJob& job, const models::Model& model) {
  WorkEstimate w;
  w.gradient_math_flops = model.train_flops_per_sample() * s.optimizer.batch_size;
  const double subset = s.evaluation.test_subset > 0 ? s.evaluation.test_subset : job.test.samples;
  w.evaluation_math_flops = model.forward_flops_per_sample() * subset;
  if (s.evaluation.final_full_test)
    w.final_evaluation_math_flops = model.forward_flops_per_sample() * job.test.samples;
  return w;
}

WorkEstimate estimate_work(const Scenario& s, const ResolvedJob& job, const models::Model& model) {
  WorkEstimate w = math_work(s, job, model);
  const double workers = s.cluster.num_workers();
  const double gradient_flops = job.time.gradient_flops;
  // The workers' gradients per simulated second, at most (star only: a platform file's speeds
  // are read by the probe).
  double rate = 0.0;
  if (s.cluster.kind == ClusterKind::STAR) {
    for (const double speed : s.cluster.star.worker_speeds) rate += speed / gradient_flops;
  }
  constexpr double UNBOUNDED = std::numeric_limits<double>::infinity();
  double gradients = UNBOUNDED;
  if (s.stop.time && s.cluster.kind == ClusterKind::STAR)
    gradients = std::min(gradients, *s.stop.time * rate + workers);
  // Each update takes at least one gradient and at most one from every worker (sync).
  if (s.stop.updates)
    gradients = std::min(gradients, static_cast<double>(*s.stop.updates) * workers);
  if (s.stop.version)
    gradients = std::min(gradients, static_cast<double>(*s.stop.version) * workers);
  if (gradients == UNBOUNDED && s.cluster.kind == ClusterKind::PLATFORM && s.stop.time)
    gradients = 0.0;
  w.gradients = gradients;
  // At most one per every_updates gradients: an update takes one gradient at least.
  if (s.evaluation.every_updates > 0)
    w.evaluations_by_updates = gradients / s.evaluation.every_updates;
  if (s.evaluation.interval > 0.0) {
    // The run lasts its stop time, or at least as long as the updates it stops at take.
    double duration = s.stop.time.value_or(0.0);
    const std::optional<std::int64_t> updates = s.stop.updates ? s.stop.updates : s.stop.version;
    if (!s.stop.time && updates && rate > 0.0) duration = static_cast<double>(*updates) / rate;
    w.evaluations = duration / s.evaluation.interval;
  }
  const double servers = static_cast<double>(s.cluster.num_servers()) * s.cluster.shards;
  for (const StochasticFailures& f : s.failures.stochastic) {
    const double hosts = f.target == FailureTarget::WORKER   ? workers
                         : f.target == FailureTarget::SERVER ? servers
                                                             : 1.0;
    w.failures += hosts * s.stop.time.value_or(0.0) / (mean_of(f.lifetime) + mean_of(f.repair));
  }
  return w;
}

/// WorkEstimate::paced_gradients: each worker's gradient also waits for a pull (its request, at
/// least the latency, and the reply) and a push of the largest parameter message (star with a
/// stop time; else the gradients bound as it is).
double paced_gradients(const Scenario& s, const ResolvedJob& job) {
  const WorkEstimate& w = job.work;
  if (s.cluster.kind != ClusterKind::STAR || !s.stop.time) return w.gradients;
  const double round_trip =
      message_seconds(s, 0.0) + 2.0 * message_seconds(s, largest_message(s, job));
  double rate = 0.0;
  for (const double speed : s.cluster.star.worker_speeds)
    rate += 1.0 / (job.time.gradient_flops / speed + round_trip);
  if (s.consistency.mode == ConsistencyMode::SYNC) {
    // A round waits for every live worker's gradient: the slowest worker paces them all.
    double slowest = 0.0;
    for (const double speed : s.cluster.star.worker_speeds)
      slowest = std::max(slowest, job.time.gradient_flops / speed);
    rate = s.cluster.num_workers() / (slowest + round_trip);
  }
  return std::min(w.gradients, *s.stop.time * rate + s.cluster.num_workers());
}

void check_work(const Scenario& s, const ResolvedJob& job, const std::string& file) {
  const WorkEstimate& w = job.work;
  if (w.gradients > MAX_GRADIENTS && w.gradients != std::numeric_limits<double>::infinity()) {
    const bool by_time = s.stop.time && s.cluster.kind == ClusterKind::STAR;
    const std::string field = by_time          ? "/stop/time"
                              : s.stop.updates ? "/stop/updates"
                                               : "/stop/version";
    const std::string found = by_time          ? fmt::format("{}", *s.stop.time)
                              : s.stop.updates ? std::to_string(*s.stop.updates)
                                               : std::to_string(*s.stop.version);
    throw input::InputError(
        file, field,
        fmt::format("a run of at most {:.0f} gradients (the workers can compute {:.3g} before "
                    "this stop: one per {:.3g} flops of a batch on each worker's CPU)",
                    MAX_GRADIENTS, w.gradients, job.time.gradient_flops),
        found);
  }
  if (w.evaluations > MAX_EVALUATIONS) {
    throw input::InputError(
        file, "/evaluation/interval",
        fmt::format("at most {:.0f} scheduled evaluations in the run ({:.3g} at this interval)",
                    MAX_EVALUATIONS, w.evaluations),
        fmt::format("{}", s.evaluation.interval));
  }
  if (w.failures > MAX_FAILURES) {
    std::size_t i = 0;
    double most = -1.0;
    for (std::size_t k = 0; k < s.failures.stochastic.size(); ++k) {
      const StochasticFailures& f = s.failures.stochastic[k];
      const double rate = 1.0 / (mean_of(f.lifetime) + mean_of(f.repair));
      if (rate > most) most = rate, i = k;
    }
    throw input::InputError(
        file, fmt::format("/failures/stochastic/{}/lifetime", i),
        fmt::format("at most {:.0f} random failures before the stop ({:.3g} expected with "
                    "these lifetimes and repairs)",
                    MAX_FAILURES, w.failures),
        fmt::format("a mean lifetime of {} s", mean_of(s.failures.stochastic[i].lifetime)));
  }
}

}  // namespace

double physical_memory_bytes() {
  double bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  // A container's memory limit (cgroup v2, then v1) when it is lower: "max" means none.
  for (const char* limit :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(limit);
    double value = 0.0;
    if (in >> value && value > 0.0) bytes = std::min(bytes, value);
  }
  return bytes;
}

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
  if (d.kind == DatasetKind::TEXT) {
    try {
      return models::text_split_shape(d.dir, split, s.model.transformer.sequence,
                                      limit > 0 ? limit : -1);
    } catch (const models::DataError& e) {
      throw input::InputError(
          file, "/data/corpus",
          fmt::format("a corpus of plain-text files that read, with text enough for one window of "
                      "model.sequence + 1 = {} tokens in each split",
                      s.model.transformer.sequence + 1),
          e.what());
    }
  }
  try {
    return models::read_idx_split_shape(d.dir, split, limit > 0 ? limit : -1);
  } catch (const models::DataError& e) {
    throw input::InputError(file, "/data/dir", "a directory of Fashion-MNIST IDX files that load",
                            e.what());
  }
}

namespace {

/// The data's shape, the real model's description and size and the time model into `job`, and
/// the data sizes checked against the workers (or replicas) that share the data.
std::unique_ptr<models::Model> resolve_model(const Scenario& s, ResolvedJob& job,
                                             const std::string& file) {
  job.train = data_shape(s, models::Split::TRAIN, file);
  job.test = data_shape(s, models::Split::TEST, file);
  auto model = describe_model(s, job.train, file);
  job.num_params = model->num_params();
  job.time = TimeModel::from(s, *model);
  check_data_sizes(s, job, file);
  return model;
}

/// The collective protocol's resolve step: the real model's sizes (with real math), the plan
/// (sim/scenario/collective/plan.hpp, which makes the layout's checks), memory and work.
/// With real math: the model's size and its memory (checked against the machine's).
std::optional<RealModelSize> resolve_real_math(const Scenario& s, ResolvedJob& job,
                                               const std::string& file) {
  std::optional<RealModelSize> real;
  const double floats = sizeof(float);
  if (s.collective.workload.real_math) {
    const auto model = resolve_model(s, job, file);
    job.work = math_work(s, job, *model);
    real = RealModelSize{static_cast<double>(job.num_params), model->train_flops_per_sample(),
                         job.train.samples};
    // The data sets; the parameters of the running step, its sum, a gradient per math thread,
    // a durable and a persisting checkpoint and the snapshots evaluations hold.
    const auto sample_bytes = [&](const models::DataShape& d) {
      return static_cast<double>(d.samples) *
             (floats * d.channels * d.height * d.width + sizeof(std::int32_t));
    };
    job.memory.data_bytes = sample_bytes(job.train) + sample_bytes(job.test);
    const double threads = std::max(1u, std::thread::hardware_concurrency());
    // AdamW's two moments in the running optimizer and in both checkpoints.
    const double moments = s.optimizer.kind == OptimizerKind::ADAMW ? 6.0 : 0.0;
    job.memory.model_bytes =
        (threads + 8.0 + moments) * floats * static_cast<double>(job.num_params);
    // The recovery design's own copies of the parameters (DiLoCo: every group's and its inner
    // velocity).
    const DesignChecks& design = collective_design(s.collective.recovery.strategy).settings.checks;
    if (design.parameter_copies != nullptr)
      job.memory.model_bytes +=
          design.parameter_copies(s) * floats * static_cast<double>(job.num_params);
    job.memory.scratch_bytes =
        threads * floats * samples_per_step(s, *model) * activations_per_sample(s, job.train);
    check_memory(s, job, file);
  }
  return real;
}

/// A pipeline whose 1F1B bubble (the plan's bubble_fraction, docs/cluster.md) idles it for more
/// than BUBBLE_WARNING_FRACTION of a step: too few micro-batches for its stages.
std::vector<std::string> collective_warnings(const CollectivePlan& plan, const std::string& file) {
  std::vector<std::string> warnings;
  if (plan.bubble_fraction > BUBBLE_WARNING_FRACTION) {
    warnings.push_back(fmt::format(
        "{}: /layout/micro_batches: the pipeline bubble idles {:.1f}% of a step's compute, more "
        "than {:g}% (1F1B: (pp - 1) / (micro_batches + pp - 1) = {} / ({} + {})); {} or more "
        "micro-batches keep it at {:g}% or less (with Megatron-LM's names: micro-batches = "
        "global_batch_size / (micro_batch_size x dp))",
        file, 100.0 * plan.bubble_fraction, 100.0 * BUBBLE_WARNING_FRACTION, plan.pp - 1,
        plan.micro_batches, plan.pp - 1, plan.pp - 1, 100.0 * BUBBLE_WARNING_FRACTION));
  }
  return warnings;
}

/// Says each of `warnings` on stderr once per process, unless print_warnings(false).
std::atomic<bool> printing_warnings{true};
void say_warnings(const std::vector<std::string>& warnings) {
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const std::string& warning : warnings) {
    if (!printing_warnings || !said.insert(warning).second) continue;
    fmt::print(stderr, "failsim: warning: {}\n", warning);
  }
}

ResolvedJob resolve_collective(const Scenario& s, const std::string& file) {
  // Before anything as large as the job is built (the plan's ranks, SimGrid's platform).
  check_collective_setup(s, file);
  ResolvedJob job;
  const std::optional<RealModelSize> real = resolve_real_math(s, job, file);
  // The recovery design's checks before the plan (its room's DesignChecks).
  const DesignChecks& design = collective_design(s.collective.recovery.strategy).settings.checks;
  if (design.before_plan != nullptr) design.before_plan(s, file);
  job.memory.actors = 2.0;  // the job's driver, and SimGrid's maestro
  job.collective = plan_collective(s, real, file);
  job.collective_work = check_collective_work(s, *job.collective, file);
  job.warnings = collective_warnings(*job.collective, file);
  return job;
}

}  // namespace

std::vector<ShardShare> share_shards(const std::vector<models::Tensor>& tensors,
                                     std::size_t num_params, const TimeModel& time, int count) {
  std::vector<ShardShare> shares;
  for (const models::ShardRange& range : models::partition(tensors, count)) {
    const double fraction = static_cast<double>(range.size) / static_cast<double>(num_params);
    shares.push_back({range, time.param_bytes * fraction, time.update_flops * fraction});
  }
  return shares;
}

void print_warnings(bool on) { printing_warnings = on; }

ResolvedJob resolve(const Scenario& s, const std::string& file) {
  if (s.protocol == Protocol::COLLECTIVE) {
    ResolvedJob job = resolve_collective(s, file);
    say_warnings(job.warnings);
    return job;
  }
  ResolvedJob job;
  const auto model = resolve_model(s, job, file);
  check_shards(s, job, file);
  job.memory = estimate_memory(s, job, *model);
  check_memory(s, job, file);
  job.work = estimate_work(s, job, *model);
  check_work(s, job, file);
  job.shards = share_shards(model->tensors(), job.num_params, job.time, s.cluster.shards);
  check_request_timeout(s, job, file);
  job.work.paced_gradients = paced_gradients(s, job);
  return job;
}

}  // namespace failsim::sim
