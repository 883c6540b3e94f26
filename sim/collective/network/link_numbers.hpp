// Links numbered by their first use, for a set of flows' shape (flows.hpp) and groups
// (representatives.hpp): a table of open addressing over the links' addresses. A route per flow
// is numbered at every new assignment (a spare swap's checkpoint load and write are 16,384 flows
// each in the Llama-3-sized job), and std::unordered_map allocated a node per link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace simgrid::s4u {
class Link;
}  // namespace simgrid::s4u

namespace failsim::sim {

class LinkNumbers {
 public:
  /// `link`'s number, and whether this call gave it (the next number: the links seen so far).
  std::pair<std::uint32_t, bool> number(const simgrid::s4u::Link* link) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = slot_of(link);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].link == link) return {slots_[i].number, false};
      if (slots_[i].link == nullptr) {
        slots_[i] = {link, static_cast<std::uint32_t>(size_)};
        return {static_cast<std::uint32_t>(size_++), true};
      }
    }
  }
  /// `link`'s number, if it has one.
  std::optional<std::uint32_t> find(const simgrid::s4u::Link* link) const {
    if (slots_.empty()) return std::nullopt;
    for (std::size_t i = slot_of(link);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].link == link) return slots_[i].number;
      if (slots_[i].link == nullptr) return std::nullopt;
    }
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    const simgrid::s4u::Link* link = nullptr;
    std::uint32_t number = 0;
  };
  std::size_t slot_of(const simgrid::s4u::Link* link) const {
    // Fibonacci hashing of the address (its low bits are the allocator's alignment).
    const auto bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(link));
    return static_cast<std::size_t>((bits * 11400714819323198485ULL) >> (64 - log2_));
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    log2_ = old.empty() ? 6 : log2_ + 1;
    slots_.assign(std::size_t{1} << log2_, Slot{});
    for (const Slot& s : old) {
      if (s.link == nullptr) continue;
      std::size_t i = slot_of(s.link);
      while (slots_[i].link != nullptr) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned log2_ = 0;
};

}  // namespace failsim::sim
