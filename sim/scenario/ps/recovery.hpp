// The `recovery` section: the strategy that survives a server failure, and its own settings.
// A strategy is one row of the strategy table (sim/ps/recovery/strategy_table.cpp: its name, a
// one-line description, its reader, checks and writer, and the facts the other sections ask) and
// one file of settings (sim/ps/recovery/<name>/settings.{hpp,cpp}: its configuration struct and
// the functions of its row). The other sections never name a strategy: they ask its row, through
// RecoveryConfig::kind(). The rows and the simulation's implementations (strategies.hpp) are
// made from one list, sim/ps/recovery/strategies.def. Engine-free, like the whole scenario.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/input_error.hpp"
#include "input/object_reader.hpp"
#include "sim/scenario/settings.hpp"

namespace failsim::input {
class ObjectReader;
}

namespace failsim::sim {

struct ClusterConfig;

/// A recovery strategy as the scenario knows it: one row of the strategy table. The functions
/// receive the strategy's own settings (StrategySettings::get of its struct); nullptr where a
/// strategy has nothing to do.
struct RecoveryStrategy {
  std::string_view name{};         ///< its spelling in recovery.strategy
  std::string_view description{};  ///< one line, for a reader of the table
  /// The keys of the recovery object its settings are read from (e.g. "chain"); the other
  /// strategies refuse them.
  std::vector<std::string_view> sections{};
  /// Reads its settings from the recovery object (nullptr: it has none).
  StrategySettings (*read)(const input::ObjectReader& recovery) = nullptr;
  /// Checks its settings against the cluster, once it is read; `recovery` locates the recovery
  /// object for the messages.
  void (*check_cluster)(const StrategySettings& settings, const ClusterConfig& cluster,
                        const input::JsonLocation& recovery) = nullptr;
  /// Writes its settings into the recovery object of the resolved scenario.
  void (*write)(const StrategySettings& settings, nlohmann::json& recovery) = nullptr;

  // The facts the other sections ask.
  /// It has a storage host (cluster.storage; failure target "storage"). Its servers' blocking
  /// transfers to it do not survive a dead link yet: no "server_link" failures.
  bool uses_storage = false;
  /// It runs one replica per server host after the head: at least 2 server hosts; failure
  /// target "replica" (a chain position).
  bool uses_chain = false;
  /// Its workers talk to the external store, which applies whatever is pending: "async" only.
  bool uses_store = false;
  /// It runs only on the built-in star cluster (its coordination service and storage host need
  /// links of their own); every strategy does when there are failures.
  bool star_only = false;
  /// Whether these settings run one server and keep the other server hosts as spares, so any
  /// number of server hosts is accepted (nullptr: never; else one server host exactly, or the
  /// chain's at least 2).
  bool (*keeps_spares)(const StrategySettings& settings) = nullptr;
  /// The settings keeps_spares holds for, as refusals name them ("multi-level").
  std::string_view spares_with{};
  /// Elastic resume (sim/ps/job.hpp): how long a server host may be down before the job resizes
  /// to the server hosts that are up; nullopt (or nullptr): it never resizes.
  std::optional<double> (*elastic_patience)(const StrategySettings& settings) = nullptr;
  /// Where its settings turn elastic resume on, as refusals name it.
  std::string_view elastic_setting{};
};

/// The strategy table, in the order the format lists the strategies.
std::span<const RecoveryStrategy> recovery_strategies();
/// The row named `name`, or nullptr.
const RecoveryStrategy* find_recovery_strategy(std::string_view name);

struct RecoveryConfig {
  std::string strategy = "none";  ///< a name of the strategy table
  StrategySettings settings;      ///< the strategy's own (empty for "none")

  /// The strategy's row of the table (std::logic_error for a name not in it).
  const RecoveryStrategy& kind() const;
  /// The settings as the strategy's struct `T` (e.g. CheckpointConfig).
  template <class T>
  const T& get() const {
    return settings.get<T>();
  }
  /// Elastic resume's patience (RecoveryStrategy::elastic_patience); nullopt: no resize.
  std::optional<double> elastic_patience() const;

  bool operator==(const RecoveryConfig&) const = default;
};

namespace detail {
/// Read before the cluster and the failures: the strategy decides how many server hosts there
/// are, whether there is a storage host, and which targets a failure may hit (recovery.cpp).
RecoveryConfig read_recovery(const input::ObjectReader& top);
nlohmann::json recovery_to_json(const RecoveryConfig& recovery);
/// The strategies of the table that have `fact`, as refusals name them: `strategy "a"` or
/// `strategies "a", "b" and "c"`.
std::string strategies_with(const std::function<bool(const RecoveryStrategy&)>& fact);
}  // namespace detail

}  // namespace failsim::sim
