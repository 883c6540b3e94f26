#include "sim/collective/network/step_network.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <utility>

#include "sim/engine/setup_interrupts.hpp"

namespace failsim::sim {

namespace sg4 = simgrid::s4u;

namespace {
/// Groups between two looks for a signal: a group costs a route per rank (ring_latency).
constexpr long long POLL_GROUPS = 256;

/// Built before the run (and again in the job's actor after a failure): the loops over groups
/// look for a signal between groups (poll_outside_actors), each group being up to millions of
/// flows whose routes are computed.
void poll(std::size_t group, std::size_t groups, const char* doing) {
  poll_outside_actors(static_cast<long long>(group), static_cast<long long>(groups), doing, "group",
                      POLL_GROUPS);
}
}  // namespace

simgrid::s4u::Host* StepNetwork::host(int rank) const {
  // Ranks fill the plan's nodes in order, as the accelerators are numbered (node-major); the
  // assignment says which platform node stands for each.
  return platform_.accelerator(assignment_.node_of(plan_, rank),
                               rank % plan_.accelerators_per_node);
}

std::vector<simgrid::s4u::Host*> StepNetwork::hosts(const std::vector<int>& ranks) const {
  std::vector<simgrid::s4u::Host*> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(host(r));
  return out;
}

StepNetwork::StepNetwork(const CollectivePlan& plan, const ClusterPlatform& platform,
                         DataParallelAlgorithm algorithm)
    : plan_(plan), platform_(platform), algorithm_(algorithm) {
  // Built now, in the set-up (its loops look for a signal), not at the first step.
  assign(Assignment::full(plan));
  build();
}

namespace {
/// Whether `b` runs the same groups as `a` (the same replicas, the same data-parallel
/// collectives), its ranks maybe on other nodes.
bool same_groups(const Assignment& a, const Assignment& b) {
  return a.active == b.active && a.data_parallel == b.data_parallel &&
         a.node.size() == b.node.size();
}

/// The plan nodes on another platform node in `b` than in `a` (of the same groups), ascending.
std::vector<int> moved_nodes(const Assignment& a, const Assignment& b) {
  std::vector<int> moved;
  for (std::size_t n = 0; n < b.node.size(); ++n) {
    if (b.node[n] != a.node[n]) moved.push_back(static_cast<int>(n));
  }
  return moved;
}
}  // namespace

void StepNetwork::assign(const Assignment& assignment) {
  const bool every = !assigned_ || !same_groups(assignment_, assignment);
  const std::vector<int> moved = every ? std::vector<int>{} : moved_nodes(assignment_, assignment);
  assigned_ = true;
  assignment_ = assignment;
  stale_ = true;
  move_checkpoints(moved, every);
}

void StepNetwork::build() {
  if (!stale_) return;
  const CollectivePlan& plan = plan_;
  // The groups to build again: every one when the replicas that run or the data-parallel
  // collectives changed since the last build, else those with a rank on a plan node now on
  // another platform node (a spare swap moves one node's ranks: found from them, not by looking
  // at every group).
  const bool every = !ever_built_ || !same_groups(built_, assignment_);
  Changed changed;
  if (every) {
    const auto all = [](std::size_t n) {
      std::vector<std::size_t> groups(n);
      for (std::size_t i = 0; i < n; ++i) groups[i] = i;
      return groups;
    };
    changed = {all(plan.tp_groups.size()), all(plan.pipelines.size()), all(plan.dp_groups.size())};
    dp_members_.assign(plan.dp_groups.size(), {});
  } else {
    // Ranks fill the plan's nodes in order, G each (CollectivePlan::node_of_rank); the groups'
    // indices are their coordinates' (CollectivePlan::tp_groups, pipelines, dp_groups).
    const int g = plan.accelerators_per_node;
    for (const int n : moved_nodes(built_, assignment_)) {
      for (int r = n * g; r < std::min((n + 1) * g, plan.ranks()); ++r) {
        const RankCoordinates c = plan.coordinates(r);
        changed.tensor_parallel.push_back(static_cast<std::size_t>(c.d * plan.pp + c.p));
        changed.pipelines.push_back(static_cast<std::size_t>(c.d * plan.tp + c.t));
        changed.data_parallel.push_back(static_cast<std::size_t>(c.p * plan.tp + c.t));
      }
    }
    for (std::vector<std::size_t>* groups :
         {&changed.tensor_parallel, &changed.pipelines, &changed.data_parallel}) {
      std::sort(groups->begin(), groups->end());
      groups->erase(std::unique(groups->begin(), groups->end()), groups->end());
    }
  }
  ever_built_ = true;
  stale_ = false;
  built_ = assignment_;
  build_tensor_parallel(changed.tensor_parallel, every);
  build_pipeline_sends(changed.pipelines, every);
  build_data_parallel(changed.data_parallel, every);
  follow_groups();
}

bool StepNetwork::active(int rank) const { return assignment_.runs(plan_, rank); }

void StepNetwork::build_tensor_parallel(const std::vector<std::size_t>& changed, bool every) {
  const CollectivePlan& plan = plan_;
  // k all-reduces of B per group and step, aggregated into one of k x B that pays the latencies
  // of all k: (k x 2(N-1) - 1) alpha beyond the one its flows' routes charge.
  const double k = static_cast<double>(plan.tp_all_reduces_per_micro_batch) * plan.micro_batches;
  const std::size_t part = static_cast<std::size_t>(StepPart::TENSOR_PARALLEL);
  bool rejoin = every;
  if (k > 0) {
    tp_groups_.resize(plan.tp_groups.size());
    for (std::size_t n = 0; n < changed.size(); ++n) {
      poll(n, changed.size(), "building the tensor-parallel all-reduces' flows");
      const std::size_t i = changed[n];
      const std::vector<int>& group = plan.tp_groups[i];
      Collective c;
      if (active(group.front())) {
        const std::vector<sg4::Host*> ring = hosts(group);
        c = ring_all_reduce(ring, k * plan.tp_all_reduce_bytes, &hops_);
        const double more =
            (k - 1.0) * 2.0 * static_cast<double>(ring.size() - 1) * ring_latency(ring, &hops_);
        for (Phase& phase : c.phases) {
          for (Flow& f : phase.flows) f.extra_latency += more;
        }
      }
      rejoin =
          rejoin || !at_once_[part].replace(i, tp_groups_[i], c, tensor_parallel_, changed_[part]);
      tp_groups_[i] = std::move(c);
    }
  }
  if (rejoin) {
    tensor_parallel_ = {};
    at_once_[part].join(tp_groups_, tensor_parallel_);
  }
  rejoined_[part] = rejoin;
}

void StepNetwork::build_pipeline_sends(const std::vector<std::size_t>& changed, bool every) {
  // One micro-batch's activations from every stage to the next, in every chain.
  const CollectivePlan& plan = plan_;
  const std::size_t part = static_cast<std::size_t>(StepPart::PIPELINE_SEND);
  bool rejoin = every;
  if (plan.pp > 1) {
    pp_chains_.resize(plan.pipelines.size());
    for (std::size_t n = 0; n < changed.size(); ++n) {
      poll(n, changed.size(), "building the pipelines' flows");
      const std::size_t i = changed[n];
      const std::vector<int>& chain = plan.pipelines[i];
      Collective c;
      if (active(chain.front())) {
        std::vector<Collective> sends;
        for (std::size_t p = 0; p + 1 < chain.size(); ++p) {
          sends.push_back(send(host(chain[p]), host(chain[p + 1]), plan.pipeline_send_bytes));
        }
        c = concurrently(sends);
      }
      rejoin =
          rejoin || !at_once_[part].replace(i, pp_chains_[i], c, pipeline_sends_, changed_[part]);
      pp_chains_[i] = std::move(c);
    }
  }
  if (rejoin) {
    pipeline_sends_ = {};
    at_once_[part].join(pp_chains_, pipeline_sends_);
  }
  rejoined_[part] = rejoin;
}

void StepNetwork::build_data_parallel(const std::vector<std::size_t>& changed, bool every) {
  // The plan's collectives (or the assignment's) in order, every group at once.
  const CollectivePlan& plan = plan_;
  const std::vector<DataParallelCollective>& collectives =
      assignment_.data_parallel ? *assignment_.data_parallel : plan.dp_collectives;
  const std::size_t part = static_cast<std::size_t>(StepPart::DATA_PARALLEL);
  bool rejoin = every;
  dp_groups_.resize(collectives.size());
  dp_at_once_.resize(collectives.size());
  dp_hops_.resize(plan.dp_groups.size());
  for (std::size_t j = 0; j < collectives.size(); ++j) {
    dp_groups_[j].resize(plan.dp_groups.size());
    for (std::size_t n = 0; n < changed.size(); ++n) {
      poll(n, changed.size(), "building the data-parallel collectives' flows");
      const std::size_t i = changed[n];
      Collective c = data_parallel_group(collectives[j], i);
      rejoin =
          rejoin || !dp_at_once_[j].replace(i, dp_groups_[j][i], c, data_parallel_, changed_[part]);
      dp_groups_[j][i] = std::move(c);
    }
  }
  if (rejoin) {
    data_parallel_ = {};
    for (std::size_t j = 0; j < collectives.size(); ++j)
      dp_at_once_[j].join(dp_groups_[j], data_parallel_);
  }
  rejoined_[part] = rejoin;
}

void StepNetwork::follow_groups() {
  // The phases' groups follow the flows: a spare swap forms again only those its node is in,
  // from the flows it wrote (changed_), without looking at the others.
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    const Collective& all = collective(static_cast<StepPart>(p));
    std::vector<FlowGroups>& groups = groups_[p];
    const bool written = !rejoined_[p] && groups.size() == all.phases.size();
    if (groups.size() != all.phases.size()) groups.clear();
    changed_[p].resize(all.phases.size());
    Collective representatives;
    for (std::size_t i = 0; i < all.phases.size(); ++i) {
      poll(i, all.phases.size(), "grouping the step's flows by kind");
      if (written) {
        groups[i].update(all.phases[i].flows, std::move(changed_[p][i]));
      } else if (i < groups.size()) {
        groups[i].update(all.phases[i].flows);
      } else {
        groups.emplace_back(all.phases[i].flows);
      }
      changed_[p][i].clear();
      representatives.phases.push_back({groups[i].representatives()});
    }
    if (representatives.phases != representatives_[p].phases) {
      representatives_[p] = std::move(representatives);
      shapes_[p].reset();
    }
  }
}

Collective StepNetwork::data_parallel_group(const DataParallelCollective& dc, std::size_t i) {
  // Its running ranks (and their nodes) are kept while the same replicas run: a swap builds
  // again groups of hundreds of ranks, each rank's coordinates a few divisions.
  DataParallelMembers& members = dp_members_[i];
  if (!members.ranks) {
    members.ranks.emplace();
    for (int r : plan_.dp_groups[i]) {
      if (assignment_.runs(plan_, r)) members.ranks->push_back(r);
    }
  }
  const std::vector<int>& group = *members.ranks;
  if (group.size() < 2) return {};  // a group of one replica has nothing to send
  // Its rings as the last build's, in the same order: a swap's moved hops alone are looked up.
  dp_hops_[i].start_rings();
  if (dc.op == CollectiveOp::ALL_REDUCE && algorithm_ == DataParallelAlgorithm::HIERARCHICAL) {
    if (!members.by_node) plan_.by_node(group, members.by_node.emplace());
    const std::vector<std::vector<int>>& parts = *members.by_node;
    part_hosts_.resize(parts.size());
    for (std::size_t n = 0; n < parts.size(); ++n) {
      part_hosts_[n].clear();
      for (int r : parts[n]) part_hosts_[n].push_back(host(r));
    }
    return hierarchical_all_reduce(part_hosts_, dc.bytes, &dp_hops_[i]);
  }
  if (dc.op == CollectiveOp::ALL_REDUCE)
    return ring_all_reduce(hosts(group), dc.bytes, &dp_hops_[i]);
  if (dc.op == CollectiveOp::REDUCE_SCATTER)
    return ring_reduce_scatter(hosts(group), dc.bytes, &dp_hops_[i]);
  return ring_all_gather(hosts(group), dc.bytes, &dp_hops_[i]);
}

double& StepTimes::operator[](StepPart part) {
  switch (part) {
    case StepPart::TENSOR_PARALLEL:
      return tensor_parallel;
    case StepPart::PIPELINE_SEND:
      return pipeline_send;
    case StepPart::DATA_PARALLEL:
      break;
  }
  return data_parallel;
}

StepTimes with_known(StepTimes times, const KnownParts& known) {
  for (std::size_t p = 0; p < STEP_PARTS; ++p) {
    if (known[p]) times[static_cast<StepPart>(p)] = *known[p];
  }
  return times;
}

const Collective& StepNetwork::collective(StepPart part, StepFlows flows) {
  build();
  if (flows == StepFlows::REPRESENTATIVES) return representatives_[static_cast<std::size_t>(part)];
  switch (part) {
    case StepPart::TENSOR_PARALLEL:
      return tensor_parallel_;
    case StepPart::PIPELINE_SEND:
      return pipeline_sends_;
    case StepPart::DATA_PARALLEL:
      break;
  }
  return data_parallel_;
}

std::optional<StepTimes> StepNetwork::measure(const Deadlines& deadline, const KnownParts& known,
                                              StepFlows flows) {
  StepTimes t;
  for (const StepPart part :
       {StepPart::TENSOR_PARALLEL, StepPart::PIPELINE_SEND, StepPart::DATA_PARALLEL}) {
    if (known[static_cast<std::size_t>(part)]) continue;
    const double begin = sg4::Engine::get_clock();
    if (!run(collective(part, flows), deadline)) return std::nullopt;
    t[part] = sg4::Engine::get_clock() - begin;
  }
  return with_known(t, known);
}

std::shared_ptr<const PartShape> StepNetwork::shape(StepPart part) {
  const Collective& representatives = collective(part, StepFlows::REPRESENTATIVES);
  std::shared_ptr<const PartShape>& kept = shapes_[static_cast<std::size_t>(part)];
  if (!kept) {
    PartShape shape;
    for (const Phase& phase : representatives.phases) shape.push_back(shape_of(phase.flows));
    kept = std::make_shared<const PartShape>(std::move(shape));
  }
  return kept;
}

// Under the assignment: the active replicas hold the state, ZeRO's shards spread over them and
// the first of them writes the replicated part (the plan's shares for the full assignment).
void StepNetwork::build_checkpoint(CheckpointFlows& checkpoint, bool write) {
  const CollectivePlan::CheckpointShare share =
      plan_.checkpoint_share(assignment_.active_replicas());
  const auto first =
      static_cast<int>(std::find(assignment_.active.begin(), assignment_.active.end(), true) -
                       assignment_.active.begin());
  std::vector<Flow> flows;
  checkpoint.of_rank.assign(static_cast<std::size_t>(plan_.ranks()), NO_FLOW);
  for (int r = 0; r < plan_.ranks(); ++r) {
    if (!assignment_.runs(plan_, r)) continue;
    double bytes = share.read;
    if (write) bytes = plan_.coordinates(r).d == first ? share.write_first : share.write_other;
    if (!(bytes > 0)) continue;
    checkpoint.of_rank[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(flows.size());
    if (write) {
      flows.push_back({host(r), platform_.file_system, bytes});
    } else {
      flows.push_back({platform_.file_system, host(r), bytes});
    }
  }
  checkpoint.flows.reset(std::move(flows));
  checkpoint.built = true;
}

void StepNetwork::move_checkpoints(const std::vector<int>& moved, bool every) {
  // The bytes depend on the active replicas only (the same unless `every`): a moved rank's flow
  // is its old one from or to its new host.
  const int g = plan_.accelerators_per_node;
  for (const auto& [checkpoint, write] :
       {std::pair{&checkpoint_writes_, true}, std::pair{&checkpoint_reads_, false}}) {
    if (every) checkpoint->built = false;
    if (!checkpoint->built) continue;
    for (const int n : moved) {
      for (int r = n * g; r < std::min((n + 1) * g, plan_.ranks()); ++r) {
        const std::uint32_t i = checkpoint->of_rank[static_cast<std::size_t>(r)];
        if (i == NO_FLOW) continue;
        Flow f = checkpoint->flows.flows()[i];
        (write ? f.from : f.to) = host(r);
        checkpoint->flows.write(i, f);
      }
    }
  }
}

const TrackedFlows& StepNetwork::checkpoint_writes() {
  if (!checkpoint_writes_.built) build_checkpoint(checkpoint_writes_, true);
  return checkpoint_writes_.flows;
}

const TrackedFlows& StepNetwork::checkpoint_reads() {
  if (!checkpoint_reads_.built) build_checkpoint(checkpoint_reads_, false);
  return checkpoint_reads_.flows;
}

std::size_t StepNetwork::flows_per_step() {
  build();
  return tensor_parallel_.flow_count() + pipeline_sends_.flow_count() + data_parallel_.flow_count();
}

std::size_t StepNetwork::phases_per_step() {
  build();
  return tensor_parallel_.phases.size() + pipeline_sends_.phases.size() +
         data_parallel_.phases.size();
}

}  // namespace failsim::sim
