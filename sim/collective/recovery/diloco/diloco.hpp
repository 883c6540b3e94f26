// DiLoCo / local SGD (Douillard et al. 2023, "DiLoCo: Distributed Low-Communication Training of
// Language Models"; docs/cluster.md "DiLoCo"): the data-parallel replicas are groups that each
// take H inner steps on their own parameters with no data-parallel collective, then an outer
// step all-reduces the outer gradient (diloco_math.hpp) among the participating groups. A failed
// group misses outer rounds while the others go on; repaired and restarted, it copies the outer
// parameters and its optimizer state from a live group over the network in the background,
// receives the outer steps meanwhile and rejoins after the first outer step that finds the copy
// ended. Only when every group is down does training start again from
// scratch (DiLoCo takes no checkpoint).
#pragma once

#include <optional>
#include <vector>

#include "models/optimizer.hpp"
#include "sim/collective/job/assignment.hpp"
#include "sim/collective/job/replica_math.hpp"
#include "sim/collective/network/flows.hpp"
#include "sim/collective/recovery/diloco/diloco_math.hpp"
#include "sim/collective/recovery/recovery.hpp"

namespace failsim::sim {

class Diloco : public CollectiveRecovery {
 public:
  void start(CollectiveJob& job) override;
  void poll(CollectiveJob& job) override;
  void apply_update(CollectiveJob& job) override;
  Interrupt after_step(CollectiveJob& job) override;
  bool network_busy() const override { return copying_; }
  bool recover(CollectiveJob& job) override;
  void finish(CollectiveJob& job) override;

 private:
  /// A group coming back: its processes restart once its nodes are up, then it copies the
  /// state of a live group (the outer parameters of the last outer step, the outer momentum and
  /// that group's inner optimizer state) and receives every outer step's outer gradient from
  /// then on; it joins the round after the first outer step that finds its copy ended.
  struct Heal {
    double ready_at = 0.0;  ///< its processes are up
    std::optional<FlowSet> copy;
    int source = -1;                         ///< the live group it copies from
    std::int64_t copy_of = -1;               ///< the outer version the copy started from
    bool copied = false;                     ///< the copy ended
    std::optional<models::Optimizer> inner;  ///< the source's inner optimizer (real math only)
  };

  /// Whether the step about to run (or just run) ends its round with an outer step.
  bool outer_now() const { return round_steps_ + 1 == inner_steps_; }
  std::vector<int> group_nodes(const CollectiveJob& job, int g) const;
  bool group_up(const CollectiveJob& job, int g) const;
  /// The assignment of the next step: the live groups' streams, joining groups active in an
  /// outer step's all-reduce, the round's data-parallel collectives.
  Assignment next_assignment(const CollectiveJob& job) const;
  void start_copy(CollectiveJob& job, int g);
  void update_copying();
  /// Makes the outer parameters the job's (what it evaluates and a user deploys).
  void publish(CollectiveJob& job) const;
  /// Every group is down: training starts again from version 0 on every group.
  bool restart_from_scratch(CollectiveJob& job);

  std::int64_t inner_steps_ = 1;   // H
  double outer_bytes_ = 0.0;       // each rank's share of the outer all-reduce
  double copy_outer_bytes_ = 0.0;  // each rank's share of the outer momentum in a copy
  std::optional<DilocoMath> math_;
  std::optional<ReplicaMath::State> initial_;
  std::vector<bool> live_;      // per group
  std::vector<int> receiving_;  // groups coming back that the outer step about to run updates
  std::vector<int> joining_;    // of those, the ones whose copy ended: live after it
  std::vector<std::optional<Heal>> heal_;  // per group not live, once its nodes are up
  std::int64_t round_steps_ = 0;           // inner steps done in this round
  std::int64_t round_start_ = 0;           // the job's version at the last outer step
  bool copying_ = false;
};

}  // namespace failsim::sim
