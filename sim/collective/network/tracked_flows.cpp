#include "sim/collective/network/tracked_flows.hpp"

#include <algorithm>
#include <atomic>

namespace failsim::sim {

namespace {
std::atomic<std::uint64_t> next_serial{1};
}  // namespace

TrackedFlows::TrackedFlows() : serial_(next_serial++) {}

void TrackedFlows::reset(std::vector<Flow> flows) {
  flows_ = std::move(flows);
  ++version_;
  first_ = version_;
  written_.clear();
}

void TrackedFlows::write(std::size_t i, const Flow& flow) {
  if (flows_[i] == flow) return;
  flows_[i] = flow;
  ++version_;
  // A record longer than an eighth of the flows is worth no more than comparing them all (and
  // a job of 100,000 swaps must not keep one entry per swap).
  if (8 * (written_.size() + 1) > flows_.size()) {
    first_ = version_;
    written_.clear();
    return;
  }
  written_.push_back(static_cast<std::uint32_t>(i));
}

std::optional<std::vector<std::uint32_t>> TrackedFlows::written_since(std::uint64_t since) const {
  if (since < first_ || since > version_) return std::nullopt;
  std::vector<std::uint32_t> out(written_.begin() + static_cast<std::ptrdiff_t>(since - first_),
                                 written_.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace failsim::sim
