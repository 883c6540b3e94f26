// The scenario's size limits: counts and lengths refused as they are read, in a header of their
// own so that the readers' helpers (section_helpers.hpp) check them without the whole Scenario.
#pragma once

#include <cstddef>
#include <cstdint>

namespace failsim::sim {

/// Counts refused before anything proportional to them is allocated (docs/scenario-format.md,
/// "Limits"): far beyond what SimGrid's actors fit in memory (docs/performance.md, "Scale"), so
/// a typo of a few zeros is an error, not gigabytes of worker speeds.
constexpr std::int64_t MAX_WORKERS = 1'000'000;
/// Server processes: servers per shard x shards.
constexpr std::int64_t MAX_SERVER_PROCESSES = 100'000;
/// Bytes of a name, a path, and a path's component: Linux's NAME_MAX and PATH_MAX (a name is a
/// directory name).
constexpr std::size_t MAX_NAME_BYTES = 255;
constexpr std::size_t MAX_PATH_BYTES = 4095;
/// Links from one leaf switch of a fat-tree, spines x uplinks: SimGrid builds each of them
/// (2^32 threw std::bad_alloc); the largest switches have a few hundred ports.
constexpr std::int64_t MAX_LEAF_UPLINKS = 1 << 16;
/// Nodes of one power domain, nodes_per_rack x racks_per_power: far beyond the platform's
/// 2,000,000 nodes at most (nodes and spares), and far from an int's wrap.
constexpr std::int64_t MAX_POWER_DOMAIN_NODES = 1 << 24;

/// The work of a run with real math, checked by the resolve step (docs/scenario-format.md,
/// "Limits"). At the simulator's ~100,000 gradients per wall second, 1e9 gradients are about
/// three hours.
constexpr double MAX_GRADIENTS = 1e9;
/// Each evaluation is a timeseries row and a test pass on its cached parameters.
constexpr double MAX_EVALUATIONS = 1e6;

}  // namespace failsim::sim
