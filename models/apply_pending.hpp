// The rules for applying several (possibly stale) gradients at once, as a server does after an
// outage or when a synchronous round completes: one step of an optimizer (models/optimizer.hpp)
// on their combination. Apart from sgd.hpp since the optimizer holds an Sgd.
#pragma once

#include <cstdint>
#include <span>

#include "models/stale_rule.hpp"

namespace failsim::models {

class Optimizer;

struct StaleRuleConfig {
  StaleRule rule = StaleRule::SUM;
  int paper_threshold = 50;     ///< PAPER: more pending than this switches to low_lr
  float paper_low_lr = 0.001f;  ///< PAPER: learning rate used above the threshold
  int drop_bound = 0;           ///< DROP_STALE: largest staleness still applied
};

/// w_i of a gradient of staleness `staleness` under `rule`, before MEAN's 1/k: 0 when the rule
/// drops it.
float stale_weight(const StaleRuleConfig& rule, std::int64_t staleness);

/// Gradients waiting to be applied: `grad` is the sum of `count` gradients, all of the same
/// staleness under a rule that weighs by staleness (a store sums what it holds as it arrives,
/// so an outage's pile is one vector, not thousands). Summed in arrival order, so a rule of
/// weight 1 gives the bits it would give on the gradients one by one.
struct PendingGradient {
  std::span<const float> grad;
  std::int64_t staleness = 0;
  std::int64_t count = 1;
};

struct ApplyOutcome {
  std::int64_t applied = 0;  ///< gradients that entered the step
  std::int64_t dropped = 0;  ///< gradients a rule discarded
  float learning_rate = 0;   ///< lr_eff of the step (0 when nothing was applied; AdamW: scheduled)
};

/// Combines pending gradients by the rule into one step of `optimizer` (models/optimizer.hpp:
/// SGD, or AdamW at the rule's learning rate relative to its own) from parameters `from` into
/// `to` (which may be `from`; untouched when nothing is applied). `combined` is caller-owned
/// scratch of num_params floats (so the server's hot path does not allocate).
ApplyOutcome apply_pending(Optimizer& optimizer, std::span<const float> from, std::span<float> to,
                           std::span<const PendingGradient> pending, const StaleRuleConfig& rule,
                           std::span<float> combined);

}  // namespace failsim::models
