// A step's communication on the cluster's network (docs/cluster.md, "Time model of a step"): the
// plan's collectives made into flows between the ranks' accelerators, every group's at once so
// that they share the links they cross. Three parts, each run on its own and timed:
//   - tensor parallel: the step's all-reduces of every tensor-parallel group, aggregated into one
//     ring all-reduce per group of all their bytes (tp_all_reduces_per_micro_batch x m of them,
//     each paying its 2(tp - 1) latencies);
//   - pipeline sends: one micro-batch's activations across every stage boundary of every chain;
//   - data parallel: the plan's collectives in order (ZeRO's), every data-parallel group at
//     once, as rings or hierarchically (all-reduces only; reduce-scatters and all-gathers are
//     rings).
// The job composes the step from these times (collective_job.hpp); checkpoint writes and reads
// are flows between the ranks and the file system.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "sim/collective/job/assignment.hpp"
#include "sim/collective/network/cluster_platform.hpp"
#include "sim/collective/network/collectives.hpp"
#include "sim/collective/network/groups_at_once.hpp"
#include "sim/collective/network/representatives.hpp"
#include "sim/collective/network/tracked_flows.hpp"
#include "sim/scenario/collective/plan.hpp"

namespace failsim::sim {

/// A step's three communication parts, in the order they run.
enum class StepPart : std::size_t { TENSOR_PARALLEL, PIPELINE_SEND, DATA_PARALLEL };
inline constexpr std::size_t STEP_PARTS = 3;

/// Simulated seconds of a step's three communication parts.
struct StepTimes {
  double tensor_parallel = 0.0;  ///< the whole step's tensor-parallel all-reduces
  double pipeline_send = 0.0;    ///< one micro-batch's send across every stage boundary
  double data_parallel = 0.0;    ///< the step's data-parallel collectives, in order

  double& operator[](StepPart part);
  double operator[](StepPart part) const { return const_cast<StepTimes&>(*this)[part]; }
};

/// Which flows measure() simulates: every flow of the step, or, on a network known to be idle,
/// one independent group of each shape per phase (representatives.hpp), which take the same time.
enum class StepFlows { EVERY, REPRESENTATIVES };

/// Per part of a step, its seconds when known without simulating it (measure()).
using KnownParts = std::array<std::optional<double>, STEP_PARTS>;

/// `times` with the parts `known` gives taken from it.
StepTimes with_known(StepTimes times, const KnownParts& known);

/// The shape of a part's flows: one FlowShape per phase, in order. The phases run one after
/// another, each on the network its predecessor left idle, so two parts of one shape take the
/// same time (up to the rounding of the clock they start at: flows.hpp).
using PartShape = std::vector<FlowShape>;

class StepNetwork {
 public:
  /// The step of the full assignment (every replica on its own node).
  StepNetwork(const CollectivePlan& plan, const ClusterPlatform& platform,
              DataParallelAlgorithm algorithm);

  /// Makes the step's flows those of `assignment`: the groups of the active replicas only (a
  /// data-parallel group of one replica has nothing to send), each rank on its assigned node.
  /// Only the groups it moves are built again (a spare swap's: those of one node's ranks), and
  /// only when the step's flows are next asked for (measure(), shape(), collective(), the counts):
  /// a job's failures during a restart swap several nodes before the next step, and the groups
  /// are built once for all of them. The checkpoints' flows follow at once (cheap).
  void assign(const Assignment& assignment);
  const Assignment& assignment() const { return assignment_; }

  /// Runs the three parts one after another from the calling actor, on the network as it is
  /// (background flows share it: then `flows` must be EVERY), and returns their times; nullopt
  /// when `deadlines` stopped them (the flows are cancelled, the clock is at that deadline). A
  /// part `known` gives is not run: its time is the known one.
  std::optional<StepTimes> measure(const Deadlines& deadlines, const KnownParts& known = {},
                                   StepFlows flows = StepFlows::EVERY);

  /// The shape of `part`'s representatives (the flows that time it) under the current
  /// assignment: two parts of one shape take the same time on an idle network. Kept while the
  /// representatives stay the same (a swap seldom changes a part's first group of each shape).
  std::shared_ptr<const PartShape> shape(StepPart part);

  /// Every running rank's share of a checkpoint to the file system, and back at a restart, as
  /// the active replicas hold it (CollectivePlan::checkpoint_share). Built when first asked
  /// under a set of active replicas, then kept: a spare swap writes its moved ranks' flows.
  const TrackedFlows& checkpoint_writes();
  const TrackedFlows& checkpoint_reads();

  /// Flows one step starts (all three parts).
  std::size_t flows_per_step();
  /// Phases of flows one step runs one after another (all three parts).
  std::size_t phases_per_step();

  /// `part`'s flows under the current assignment: all, or its representatives.
  const Collective& collective(StepPart part, StepFlows flows = StepFlows::EVERY);

  /// The accelerator rank `rank` runs on under the current assignment.
  simgrid::s4u::Host* host(int rank) const;
  const ClusterPlatform& platform() const { return platform_; }

 private:
  std::vector<simgrid::s4u::Host*> hosts(const std::vector<int>& ranks) const;
  /// Whether rank `rank` runs under the current assignment.
  bool active(int rank) const;
  /// The groups to build again (assign()): indices into the plan's tp_groups, pipelines and
  /// dp_groups, ascending.
  struct Changed {
    std::vector<std::size_t> tensor_parallel;
    std::vector<std::size_t> pipelines;
    std::vector<std::size_t> data_parallel;
  };
  /// Build the `changed` groups again and write their flows over their old ones in the part's
  /// collective (GroupsAtOnce), or join every group's again when `every` group changed or a
  /// group's flows are not as many as before.
  void build_tensor_parallel(const std::vector<std::size_t>& changed, bool every);
  void build_pipeline_sends(const std::vector<std::size_t>& changed, bool every);
  void build_data_parallel(const std::vector<std::size_t>& changed, bool every);
  /// Builds again the groups that the assignments since the last build moved (assign()).
  void build();
  /// Each phase's groups of flows and representatives, after the flows changed.
  void follow_groups();
  /// Data-parallel group i's collective `dc` under the current assignment.
  Collective data_parallel_group(const DataParallelCollective& dc, std::size_t i);
  /// A checkpoint's flows, one per running rank with bytes to move, and where each rank's is.
  struct CheckpointFlows {
    TrackedFlows flows;
    std::vector<std::uint32_t> of_rank;  // its index in flows, or NO_FLOW
    bool built = false;
  };
  static constexpr std::uint32_t NO_FLOW = 0xffffffffU;
  /// The flows of a checkpoint write (`write`) or read under the current assignment.
  void build_checkpoint(CheckpointFlows& checkpoint, bool write);
  /// After assign(): the checkpoints' flows of the ranks of the `moved` plan nodes follow them,
  /// or, when `every` group was built again, both are dropped (built again when asked).
  void move_checkpoints(const std::vector<int>& moved, bool every);

  const CollectivePlan& plan_;
  const ClusterPlatform& platform_;
  DataParallelAlgorithm algorithm_;
  Assignment assignment_;
  bool assigned_ = false;
  // The assignment the groups below were last built for, and whether assignment_ differs.
  Assignment built_;
  bool ever_built_ = false;
  bool stale_ = false;
  // Per group, its collective under the current assignment (empty when it sends nothing): a
  // new assignment builds again those of the groups it moves (assign()).
  std::vector<Collective> tp_groups_;
  std::vector<Collective> pp_chains_;
  std::vector<std::vector<Collective>> dp_groups_;  // per data-parallel collective, per group
  Collective tensor_parallel_;
  Collective pipeline_sends_;
  Collective data_parallel_;
  // Where the groups' flows sit in tensor_parallel_, pipeline_sends_ (per part) and
  // data_parallel_ (per data-parallel collective); per part, whether its groups were joined
  // again, else per phase the indices of the flows written over (for follow_groups()).
  std::array<GroupsAtOnce, STEP_PARTS> at_once_;
  std::vector<GroupsAtOnce> dp_at_once_;
  std::array<bool, STEP_PARTS> rejoined_{};
  std::array<std::vector<std::vector<std::uint32_t>>, STEP_PARTS> changed_;
  // Per part, per phase, its flows' groups and representatives (assign()).
  std::array<std::vector<FlowGroups>, STEP_PARTS> groups_;
  std::array<Collective, STEP_PARTS> representatives_;
  // The shapes of representatives_, once asked (shape()): the links' bandwidths, latencies and
  // states do not change during a run (the collective platform's), so they hold until
  // representatives_ change.
  std::array<std::shared_ptr<const PartShape>, STEP_PARTS> shapes_;
  // The rings' hops, measured once: the tensor-parallel groups' in one table, each
  // data-parallel group's in its own (a swap looks up hundreds of hops of a few groups: a small
  // table each stays in the cache, one of every hop ever met does not).
  HopLatencies hops_;
  std::vector<HopLatencies> dp_hops_;
  // Built when first asked (checkpoint_writes(), checkpoint_reads()); a new assignment that only
  // moves nodes writes the moved ranks' flows, any other drops them.
  CheckpointFlows checkpoint_writes_;
  CheckpointFlows checkpoint_reads_;
  // Per data-parallel group, its running ranks and those by node (CollectivePlan::by_node),
  // found when first needed and kept while the same replicas run (build()).
  struct DataParallelMembers {
    std::optional<std::vector<int>> ranks;
    std::optional<std::vector<std::vector<int>>> by_node;
  };
  std::vector<DataParallelMembers> dp_members_;
  // A buffer of data_parallel_group().
  std::vector<std::vector<simgrid::s4u::Host*>> part_hosts_;
};

}  // namespace failsim::sim
