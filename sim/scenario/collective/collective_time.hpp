// Reference times of the collective protocol's parts under the alpha-beta model (docs/cluster.md,
// "Time model of a step"): a message of B bytes over a link of latency alpha and bandwidth beta
// takes alpha + B / beta. The simulation does not use these: it runs the collectives as flows on
// SimGrid's network, where links are shared. They are the formulas the docs state and the tests
// check the simulated times against, on a network where every flow has its link to itself.
// Engine-free, pure functions.
#pragma once

namespace failsim::sim {

/// A ring all-reduce of `bytes` (each rank's whole buffer) over `ranks` ranks, each sending to
/// the next over a link of `latency` alpha and `bandwidth` beta: a reduce-scatter then an
/// all-gather, 2 (N - 1) steps of B / N bytes each (Thakur, Rabenseifner & Gropp 2005; Patarasuk
/// & Yuan 2009):  2 (N - 1) alpha + 2 (N - 1) / N x B / beta.  0 for one rank.
double ring_all_reduce_seconds(int ranks, double bytes, double latency, double bandwidth);

/// A ring reduce-scatter of `bytes` (each rank's whole input; it keeps B / N reduced):
/// (N - 1) alpha + (N - 1) / N x B / beta.  0 for one rank.
double ring_reduce_scatter_seconds(int ranks, double bytes, double latency, double bandwidth);

/// A ring all-gather whose output is `bytes` (each rank contributes B / N): the same time as the
/// reduce-scatter, (N - 1) alpha + (N - 1) / N x B / beta.  0 for one rank.
double ring_all_gather_seconds(int ranks, double bytes, double latency, double bandwidth);

/// A hierarchical all-reduce (Jia et al. 2018, "Highly Scalable Deep Learning Training System
/// with Mixed-Precision"; NCCL's intra-node then inter-node rings) of `bytes` over
/// `nodes` x `ranks_per_node` ranks: a ring reduce-scatter of B inside each node (k ranks, intra
/// link), k concurrent ring all-reduces of B / k across the n nodes (each at `inter_bandwidth`,
/// the bandwidth one of the k concurrent flows gets: a rail's NIC, or the node's NICs / k), and a
/// ring all-gather of B inside each node:
///   2 [(k - 1) alpha_i + (k - 1) / k x B / beta_i] + 2 (n - 1) alpha_e + 2 (n - 1) / n x B / (k
///   beta_e).
double hierarchical_all_reduce_seconds(int ranks_per_node, int nodes, double bytes,
                                       double intra_latency, double intra_bandwidth,
                                       double inter_latency, double inter_bandwidth);

/// The idle fraction of a 1F1B pipeline schedule (Narayanan et al. 2021, "Efficient Large-Scale
/// Language Model Training on GPU Clusters Using Megatron-LM", section 2.2.1) of `stages` stages
/// and `micro_batches` micro-batches: (pp - 1) / (m + pp - 1) of its time.
double pipeline_bubble_fraction(int stages, int micro_batches);

/// The compute part of a 1F1B step: (m + pp - 1) x t_mb, where t_mb is one stage's forward and
/// backward of one micro-batch (the last micro-batch leaves the last stage pp - 1 slots late).
double pipeline_compute_seconds(int stages, int micro_batches, double micro_batch_seconds);

}  // namespace failsim::sim
