// The real math of a simulated run, engine-free: data sets, the model, each worker's stream of
// batches, gradients computed with exactly the parameters the protocol delivered, and cached
// evaluations. The actors decide *when* (simulated time); this decides *what* (the numbers).
// Gradients and evaluations are jobs of a MathPool (math_pool.hpp): a gradient is started when
// its simulated computation starts and collected when it ends, so several compute at once. A
// transformer's gradient is cut into the scenario's model.gradient_parts parts, each a job of its
// own (gradient_parts.hpp), so even one gradient in flight computes on every thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "models/dataset.hpp"
#include "models/evaluate.hpp"
#include "models/model.hpp"
#include "sim/engine/gradient_parts.hpp"
#include "sim/engine/math_pool.hpp"
#include "sim/engine/snapshot.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sim {

/// Independent random streams derived from the scenario seed (models::derive_seed), so adding a
/// use of randomness never shifts another one.
enum SeedStream : std::uint64_t {
  SEED_INIT = 0,
  SEED_DATA = 1,
  SEED_SHARD = 2,
  SEED_BATCHES = 3,
  SEED_DROPOUT = 4,
  SEED_FAILURES = 5,          ///< the parameter-server protocol's random failures
  SEED_CLUSTER_FAILURES = 6,  ///< the collective protocol's random failures
  SEED_STRAGGLERS = 7,        ///< the collective protocol's random stragglers
  SEED_TRACE_MAPPING = 8,     ///< failures.trace's "random" mapping of trace nodes onto nodes
  SEED_NODE_RATES = 9,        ///< failures.stochastic's heterogeneity: bad nodes, rate factors
};

/// The batches of one worker: its shard of the training set (a seeded partition), reshuffled
/// every pass over the shard; a pass's last partial batch is skipped.
class BatchStream {
 public:
  BatchStream(std::vector<int> shard, int batch_size, std::uint64_t seed);
  /// Indices of the next batch; the span stays valid until the stream passes its shard again.
  std::span<const int> next();

 private:
  std::vector<int> shard_;
  int batch_size_;
  std::uint64_t seed_;
  std::int64_t pass_ = -1;
  std::size_t position_ = 0;
};

class TrainingMath;
class EvalJob;

/// One gradient in flight: TrainingMath::start_gradient submits it (or its parts), finish_gradient
/// collects its loss. Its inputs (parameters, indices, output buffer) must stay valid until then;
/// destroying it uncollected abandons it (a worker killed mid-computation), so it may live on an
/// actor's stack.
class GradientJob : public MathJob, private GradientSource {
 public:
  GradientJob() = default;
  ~GradientJob() override;

 protected:
  /// The whole batch as one job (model.gradient_parts 1).
  void run(int slot) override;

 private:
  friend class TrainingMath;
  /// Gathers indices [begin, end) into the slot's batch buffer and computes on the slot's model.
  float part_gradient(int slot, int begin, int end, std::uint64_t seed,
                      std::span<float> grad) override;

  TrainingMath* math_ = nullptr;
  bool pending_ = false;                  // submitted and not collected
  std::unique_ptr<GradientParts> parts_;  // split: the parts in flight, taken from TrainingMath
  const Snapshot* snapshot_ = nullptr;
  std::span<const int> indices_;
  std::uint64_t dropout_seed_ = 0;
  std::span<float> grad_;
  float loss_ = 0.0f;
};

class TrainingMath {
 public:
  /// Loads or generates the data set and builds the model; `threads` computing threads (see
  /// MathPool). The number of parts of a gradient is the scenario's, never `threads`. The scenario
  /// is one that resolve() accepted (sim/scenario/resolve.hpp); throws models::DataError if a data
  /// file fails past its header.
  TrainingMath(const Scenario& scenario, int threads = 1);
  ~TrainingMath();

  const models::Model& model() const { return *model_; }
  const models::Dataset& train_set() const { return train_; }
  const models::Dataset& test_set() const { return test_; }

  /// Seeded initial parameters as version 0.
  SnapshotPtr initial_snapshot() const;

  /// The batch stream of worker `w` (0-based), or of data-parallel replica `w` in a collective
  /// scenario.
  BatchStream batch_stream(int worker) const;

  /// Dropout seed of the `step`-th gradient of worker `w`: a pure function of (seed, w, step),
  /// so the numbers do not depend on the order in which gradients are computed.
  std::uint64_t dropout_seed(int worker, std::int64_t step) const;

  /// Starts computing the mean loss and gradient of the batch `indices` at `snapshot` into
  /// `grad`, on whichever thread is free (a transformer's in gradient_parts() parts, summed in
  /// part order when collected); every argument must stay valid until `job` is collected.
  void start_gradient(GradientJob& job, const Snapshot& snapshot, std::span<const int> indices,
                      std::uint64_t dropout_seed, std::span<float> grad);
  /// Waits for `job` (computing queued math meanwhile) and returns its mean loss.
  float finish_gradient(GradientJob& job);
  /// The parts each gradient is computed in: the transformer's model.gradient_parts, else 1.
  int gradient_parts() const { return gradient_parts_; }
  /// start_gradient then finish_gradient.
  float gradient(const Snapshot& snapshot, std::span<const int> indices, std::uint64_t dropout_seed,
                 std::span<float> grad);

  /// Test loss and accuracy of `snapshot` on the first `limit` test samples (0 = all), its
  /// chunks computed on every thread and summed in order (the same bits as one thread). The
  /// latest (snapshot, limit) is cached: the observer asks again while no update happened.
  models::EvalResult evaluate(const SnapshotPtr& snapshot, int limit);

  /// Runs `update` (math in the simulation thread: a server's step, the stateless store's sums)
  /// and counts its wall time as math.
  template <class F>
  auto timed(F&& update) {
    const auto start = std::chrono::steady_clock::now();
    struct Count {  // counts when the update returns, whatever it returns
      double& seconds;
      std::chrono::steady_clock::time_point start;
      ~Count() {
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } count{slots_[0]->seconds, start};
    return update();
  }

  /// Thread-seconds spent computing gradients, updates and evaluations so far, summed over the
  /// threads (so up to `threads` times the wall time). Read it while no job is in flight.
  double math_seconds() const;
  int threads() const { return pool_.threads(); }

 private:
  friend class GradientJob;
  friend class EvalJob;
  /// What one computing thread works in: its own model (scratch buffers), batch and evaluator.
  struct Slot {
    Slot(const models::Model& model, int batch_size);
    std::unique_ptr<models::Model> model;
    models::BatchBuffer batch;
    models::Evaluator evaluator;
    double seconds = 0.0;  // math time of this thread
  };
  /// `threads` slots; throws std::invalid_argument unless threads >= 1.
  static std::vector<std::unique_ptr<Slot>> make_slots(const models::Model& model, int batch_size,
                                                       int threads);

  const Scenario& scenario_;
  models::Dataset train_;
  models::Dataset test_;
  std::unique_ptr<models::Model> model_;
  std::vector<std::unique_ptr<Slot>> slots_;         // one per thread, [0] the simulation thread's
  std::vector<std::unique_ptr<EvalJob>> eval_jobs_;  // one per chunk of an evaluation
  std::vector<int> shard_order_;  // the seeded permutation the workers' shards are cut from
  int gradient_parts_;
  // The parts of split gradients not in flight: one set per gradient in flight at most, reused.
  std::vector<std::unique_ptr<GradientParts>> spare_parts_;
  struct CachedEval {
    SnapshotPtr snapshot;  // held, so its address cannot be reused by another snapshot
    int limit;
    models::EvalResult result;
  };
  std::optional<CachedEval> cached_;
  MathPool pool_;  // last: its threads stop before anything they use is destroyed
};

}  // namespace failsim::sim
