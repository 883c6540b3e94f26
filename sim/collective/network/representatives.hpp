// Steps measured by symmetry (docs/cluster.md, "Steps measured by symmetry", issue 33): a phase
// of flows on an idle network takes the time of one group of each kind among its independent
// groups. Under max-min fair sharing (CM02), flows interact only through links that can
// saturate; two groups of flows that share none are independent (each takes the time it takes
// alone), and groups of one shape (FlowShape: the same links up to their names) take the same
// time. Every data-parallel ring of a pipeline stage on a uniform fat-tree looks alike, every
// pipeline send between two nodes too: a step of 16,384 ranks is measured from a few hundred
// flows, and a spare swap changes only the groups its node is in.
#pragma once

#include <vector>

#include "sim/collective/network/flows.hpp"

namespace failsim::sim {

/// The flows of `flows` whose set, started alone on an idle network, ends when `flows` would:
/// the flows split into independent groups (joined by the links that can saturate), one group
/// of each shape kept, in the order of `flows`. A link cannot saturate when what its flows can
/// carry, bounded by the other links they cross, fits in its bandwidth (the bound is in
/// representatives.cpp). With a link off, every flow.
std::vector<Flow> representatives(const std::vector<Flow>& flows);

}  // namespace failsim::sim
