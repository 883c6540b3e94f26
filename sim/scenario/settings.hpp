// The own settings of a recovery strategy (parameter-server protocol) or design (collective
// protocol), held by the scenario without naming the strategy: each strategy's room declares its
// struct, reads and writes it; the scenario's RecoveryConfig and CollectiveRecoveryConfig hold it
// in one StrategySettings. Engine-free, like the whole scenario.
#pragma once

#include <any>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

namespace failsim::sim {

/// A recovery strategy's or design's own configuration, its struct (e.g. CheckpointConfig,
/// QuorumConfig), held without the scenario knowing which: compared by value (Scenario's ==) and
/// handed back as its type. Empty for one without settings ("none", "checkpoint-restart").
class StrategySettings {
 public:
  StrategySettings() = default;
  template <class T>
  explicit StrategySettings(T settings) : value_(std::move(settings)), equal_(&equal<T>) {}

  /// The settings as `T`, or nullptr when they are another strategy's.
  template <class T>
  const T* find() const {
    return std::any_cast<T>(&value_);
  }
  /// The settings as `T`; asking a strategy's settings as another's is a programming error
  /// (std::logic_error).
  template <class T>
  const T& get() const {
    const T* settings = find<T>();
    if (settings == nullptr) {
      throw std::logic_error(std::string("recovery settings asked as ") + typeid(T).name() +
                             " are " + value_.type().name());
    }
    return *settings;
  }

  bool operator==(const StrategySettings& other) const {
    return value_.type() == other.value_.type() &&
           (equal_ == nullptr || equal_(value_, other.value_));
  }

 private:
  template <class T>
  static bool equal(const std::any& a, const std::any& b) {
    return *std::any_cast<T>(&a) == *std::any_cast<T>(&b);
  }

  std::any value_;
  bool (*equal_)(const std::any&, const std::any&) = nullptr;
};

}  // namespace failsim::sim
