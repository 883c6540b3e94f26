#include "sim/scenario/collective/collective_time.hpp"

namespace failsim::sim {

namespace {

/// One half of a ring all-reduce: N - 1 steps of B / N bytes each.
double ring_half_seconds(int ranks, double bytes, double latency, double bandwidth) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  return (n - 1.0) * latency + (n - 1.0) / n * bytes / bandwidth;
}

}  // namespace

double ring_all_reduce_seconds(int ranks, double bytes, double latency, double bandwidth) {
  return 2.0 * ring_half_seconds(ranks, bytes, latency, bandwidth);
}

double ring_reduce_scatter_seconds(int ranks, double bytes, double latency, double bandwidth) {
  return ring_half_seconds(ranks, bytes, latency, bandwidth);
}

double ring_all_gather_seconds(int ranks, double bytes, double latency, double bandwidth) {
  return ring_half_seconds(ranks, bytes, latency, bandwidth);
}

double hierarchical_all_reduce_seconds(int ranks_per_node, int nodes, double bytes,
                                       double intra_latency, double intra_bandwidth,
                                       double inter_latency, double inter_bandwidth) {
  const double k = ranks_per_node;
  return ring_reduce_scatter_seconds(ranks_per_node, bytes, intra_latency, intra_bandwidth) +
         ring_all_reduce_seconds(nodes, bytes / k, inter_latency, inter_bandwidth) +
         ring_all_gather_seconds(ranks_per_node, bytes, intra_latency, intra_bandwidth);
}

double pipeline_bubble_fraction(int stages, int micro_batches) {
  const double pp = stages;
  const double m = micro_batches;
  return (pp - 1.0) / (m + pp - 1.0);
}

double pipeline_compute_seconds(int stages, int micro_batches, double micro_batch_seconds) {
  return (static_cast<double>(micro_batches) + stages - 1.0) * micro_batch_seconds;
}

}  // namespace failsim::sim
