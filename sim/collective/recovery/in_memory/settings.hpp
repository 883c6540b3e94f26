// Design "in-memory"'s settings (recovery.in_memory, docs/cluster.md "In-memory checkpoints"):
// its struct; settings.cpp reads, writes and checks them (engine-free, in failsim_scenario).
#pragma once

#include <cstdint>

namespace failsim::sim {

/// Where an in-memory checkpoint keeps its copies: only in each node's own host memory, or
/// also in a partner node's (the next node of the job, Gemini's placement).
enum class CopyPlacement { SAME_NODE, PARTNER_NODE };

/// In-memory checkpoints (docs/cluster.md, "In-memory checkpoints"): after every `every_steps`-th
/// step each rank copies its state to host memory while the next step computes, a copy goes to
/// a partner node's host memory, and every `file_system_every`-th one to the file system.
struct InMemoryConfig {
  std::int64_t every_steps = 1;       ///< >= 1
  double host_copy_bandwidth = 50e9;  ///< bytes/s of each accelerator's copy to host and back
  CopyPlacement placement = CopyPlacement::PARTNER_NODE;
  std::int64_t file_system_every = 10;  ///< >= 0; 0: never to the file system

  bool operator==(const InMemoryConfig&) const = default;
};

}  // namespace failsim::sim
