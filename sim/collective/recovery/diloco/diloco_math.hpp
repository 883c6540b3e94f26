// The real math of DiLoCo (Douillard et al. 2023, "DiLoCo: Distributed Low-Communication
// Training of Language Models"; docs/cluster.md "DiLoCo"): each data-parallel replica (a group)
// holds its own parameters theta_g and its own inner optimizer (the scenario's, SGD with its own
// velocity or AdamW with its own moments and steps, as in the paper) and takes inner steps on its
// own data stream; the outer parameters theta_outer are what every group started the round from. An
// outer step over the participating groups P:
//   Delta = (1 / |P|) sum_{g in P} (theta_outer - theta_g)      (the outer gradient)
//   v     = mu v + Delta                                         (v = Delta on the first step)
//   theta_outer -= lr_outer (Delta + mu v)   with Nesterov momentum,
//   theta_outer -= lr_outer v                without,
// then every group of P starts the next round from theta_outer (its inner optimizer's state
// goes on).
// Deterministic for any number of threads: a group's gradient depends on its own parameters and
// batch only, and the deltas are summed in group order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/optimizer.hpp"
#include "sim/collective/recovery/diloco/settings.hpp"
#include "sim/engine/snapshot.hpp"
#include "sim/engine/training_math.hpp"
#include "sim/scenario/collective/config.hpp"

namespace failsim::sim {

class DilocoMath {
 public:
  /// Every group at the seeded initial parameters (version 0), at the start of its data stream
  /// (stream g = data-parallel replica g's, as ReplicaMath's).
  DilocoMath(TrainingMath& math, const OptimizerConfig& inner, const DilocoConfig& outer,
             int groups);

  /// One inner step of each group of `groups` (ascending): a gradient of one batch of its own
  /// stream at its own parameters, then its own optimizer step. Returns their mean loss.
  double inner_step(const std::vector<int>& groups);
  /// The outer step over `groups` (ascending, not empty): the formulas above, Delta summed in
  /// group order. The outer parameters' version becomes `version`; each group of `groups`
  /// restarts from them.
  void outer_step(const std::vector<int>& groups, std::int64_t version);
  /// Group `g` rejoins: the outer parameters, and `inner` as its inner optimizer (a copy of a
  /// live group's, taken when the copy to `g` started).
  void rejoin(int g, const models::Optimizer& inner);
  /// Every group back to version 0 (the run starts again from scratch).
  void reset();

  /// What the job evaluates and a user deploys.
  const SnapshotPtr& outer() const { return outer_; }
  const std::vector<float>& outer_velocity() const { return outer_velocity_; }
  std::span<const float> group_parameters(int g) const;
  const models::Optimizer& inner_optimizer(int g) const;
  /// Inner steps taken since the start (the dropout seeds' step index, as ReplicaMath's version).
  std::int64_t inner_steps() const { return steps_; }

 private:
  struct Group {
    Snapshot params;  // theta_g (its version field unused)
    models::Optimizer optimizer;
    BatchStream stream;
  };

  TrainingMath& math_;
  OptimizerConfig inner_;
  DilocoConfig outer_config_;
  int groups_count_;
  std::vector<Group> groups_;
  SnapshotPtr outer_;
  SnapshotPool pool_;
  std::vector<float> outer_velocity_;  // empty until the first outer step with momentum
  std::int64_t steps_ = 0;
  std::vector<std::vector<float>> grads_;  // one per gradient in flight
  std::vector<GradientJob> jobs_;
  std::vector<float> delta_;
};

}  // namespace failsim::sim
