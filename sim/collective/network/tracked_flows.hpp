// Flows kept up to date in place, with a record of which were written: a checkpoint's one flow
// per rank (StepNetwork::checkpoint_reads, checkpoint_writes), of which a spare swap moves one
// node's. The times measured on the idle network (measured_times.hpp) compare a transfer with the
// last one of its name at the flows written since, not at every flow: 100,352 flows a restart in
// the AIReSim job (docs/cluster.md, "A swap costs what it moves").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/collective/network/flows.hpp"

namespace failsim::sim {

class TrackedFlows {
 public:
  /// No flow; a serial number no other TrackedFlows of this process has.
  TrackedFlows();
  TrackedFlows(const TrackedFlows&) = delete;
  TrackedFlows& operator=(const TrackedFlows&) = delete;

  const std::vector<Flow>& flows() const { return flows_; }
  /// Tells this list apart from every other of the process (a copy would not be tracked alike).
  std::uint64_t serial() const { return serial_; }
  /// Counts the changes: each reset() and each write() that changed a flow.
  std::uint64_t version() const { return version_; }

  /// Every flow replaced: which ones differ from those of an earlier version is not known.
  void reset(std::vector<Flow> flows);
  /// Flow `i` becomes `flow` (a new version when it differs).
  void write(std::size_t i, const Flow& flow);
  /// The indices of the flows written since version `since` of this list, ascending, each once:
  /// every other flow is as it was then. Nullopt when that is not known: a reset() since, or
  /// writes since of more than an eighth of the flows (then comparing every flow costs no more).
  std::optional<std::vector<std::uint32_t>> written_since(std::uint64_t since) const;

 private:
  std::uint64_t serial_;
  std::vector<Flow> flows_;
  std::uint64_t version_ = 0;
  // The flow written by each version after first_, in order (version first_ + 1 + k wrote
  // written_[k]); none known before first_.
  std::uint64_t first_ = 0;
  std::vector<std::uint32_t> written_;
};

}  // namespace failsim::sim
