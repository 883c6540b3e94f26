// The rules that turn pending gradients into one SGD step (models/sgd.hpp applies them). Its own
// header so that the scenario reader names them without the math.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace failsim::models {

/// How a set of k gradients g_1..g_k (staleness s_i = server version at apply time minus the
/// version each was computed from) becomes one SGD step p -= lr_eff * sum_i w_i g_i.
enum class StaleRule {
  SUM,    ///< w_i = 1, lr_eff = lr (the study: summed gradients)
  MEAN,   ///< w_i = 1/k, lr_eff = lr
  PAPER,  ///< w_i = 1, lr_eff = low_lr if k > threshold else lr (study's code: 0.001 above 50)
  INVERSE_STALENESS,  ///< w_i = 1/max(1, s_i), lr_eff = lr
  DROP_STALE,         ///< gradients with s_i > bound dropped; the rest summed (w_i = 1)
};

/// Every rule with its spelling (the scenario format's and the logs'), the study's first.
inline constexpr std::array<std::pair<std::string_view, StaleRule>, 5> STALE_RULES{{
    {"paper", StaleRule::PAPER},
    {"sum", StaleRule::SUM},
    {"mean", StaleRule::MEAN},
    {"inverse_staleness", StaleRule::INVERSE_STALENESS},
    {"drop_stale", StaleRule::DROP_STALE},
}};

/// The rule's spelling: "sum", "drop_stale", ...
inline std::string to_string(StaleRule rule) {
  for (const auto& [spelling, r] : STALE_RULES) {
    if (r == rule) return std::string(spelling);
  }
  return "?";
}

/// Whether w_i depends on the staleness s_i (else gradients may be summed before it is known).
constexpr bool weighs_by_staleness(StaleRule rule) {
  return rule == StaleRule::INVERSE_STALENESS || rule == StaleRule::DROP_STALE;
}

}  // namespace failsim::models
