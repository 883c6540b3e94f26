// Strategy "stateless"'s settings (docs/strategies.md): the study's stateless parameter server,
// whose parameters and pending gradients live in an external store; the functions of its row in
// the strategy table (strategies.cpp). Its `stateless` section is also stateless_chain's.
#pragma once

#include <nlohmann/json.hpp>

#include "models/stale_rule.hpp"
#include "sim/scenario/ps/recovery.hpp"

namespace failsim::sim {

/// Parameters and pending gradients live in the external store (the storage host's memory).
/// Also how "stateless_chain" applies the gradients pending in its store.
struct StatelessConfig {
  models::StaleRule rule =
      models::StaleRule::PAPER;  ///< how pending gradients are applied on return
  int paper_threshold = 50;      ///< PAPER: more pending than this -> paper_low_lr
  double paper_low_lr = 0.001;   ///< PAPER
  int drop_bound = 0;            ///< DROP_STALE: largest staleness still applied

  bool operator==(const StatelessConfig&) const = default;
};

namespace detail {
/// Reads recovery.stateless (absent: the defaults).
StatelessConfig read_stateless_section(const input::ObjectReader& recovery);
/// Writes recovery.stateless.
void write_stateless_section(const StatelessConfig& stateless, nlohmann::json& recovery);

StrategySettings read_stateless(const input::ObjectReader& recovery);
void write_stateless(const StrategySettings& settings, nlohmann::json& recovery);
}  // namespace detail

}  // namespace failsim::sim
