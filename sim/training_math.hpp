// The real math of a simulated run, engine-free: data sets, the model, each worker's stream of
// batches, gradients computed with exactly the parameters the protocol delivered, and cached
// evaluations. The actors decide *when* (simulated time); this decides *what* (the numbers).
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
#include "sim/scenario.hpp"
#include "sim/snapshot.hpp"

namespace failsim::sim {

/// Independent random streams derived from the scenario seed (models::derive_seed), so adding a
/// use of randomness never shifts another one.
enum SeedStream : std::uint64_t {
  SEED_INIT = 0,
  SEED_DATA = 1,
  SEED_SHARD = 2,
  SEED_BATCHES = 3,
  SEED_DROPOUT = 4,
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

class TrainingMath {
 public:
  /// Loads or generates the data set and builds the model. Throws ScenarioError (naming
  /// `file_label`) for data that cannot be used, e.g. a batch larger than a worker's shard,
  /// and models::DataError for unreadable data files.
  TrainingMath(const Scenario& scenario, const std::string& file_label);

  const models::Model& model() const { return *model_; }
  const models::Dataset& train_set() const { return train_; }
  const models::Dataset& test_set() const { return test_; }

  /// Seeded initial parameters as version 0.
  SnapshotPtr initial_snapshot() const;

  /// The batch stream of worker `w` (0-based).
  BatchStream batch_stream(int worker) const;

  /// Dropout seed of the `step`-th gradient of worker `w`: a pure function of (seed, w, step),
  /// so the numbers do not depend on the order in which gradients are computed.
  std::uint64_t dropout_seed(int worker, std::int64_t step) const;

  /// Mean loss and gradient of the batch `indices` at `snapshot`, written to `grad`.
  float gradient(const Snapshot& snapshot, std::span<const int> indices, std::uint64_t dropout_seed,
                 std::span<float> grad);

  /// Test loss and accuracy of `snapshot` on the first `limit` test samples (0 = all). The
  /// latest (snapshot, limit) is cached: the observer asks again while no update happened.
  models::EvalResult evaluate(const SnapshotPtr& snapshot, int limit);

  /// Runs `update` (an SGD step on a server) and counts its wall time as math.
  template <class F>
  auto timed(F&& update) {
    const auto start = std::chrono::steady_clock::now();
    auto result = update();
    math_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  /// Wall-clock seconds spent computing gradients, updates and evaluations so far.
  double math_seconds() const { return math_seconds_; }

 private:
  const Scenario& scenario_;
  models::Dataset train_;
  models::Dataset test_;
  std::unique_ptr<models::Model> model_;
  models::BatchBuffer batch_;
  models::Evaluator evaluator_;
  std::vector<int> shard_order_;  // the seeded permutation the workers' shards are cut from
  struct CachedEval {
    SnapshotPtr snapshot;  // held, so its address cannot be reused by another snapshot
    int limit;
    models::EvalResult result;
  };
  std::optional<CachedEval> cached_;
  double math_seconds_ = 0.0;
};

}  // namespace failsim::sim
