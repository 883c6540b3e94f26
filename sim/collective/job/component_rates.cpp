#include "sim/collective/job/component_rates.hpp"

#include <algorithm>
#include <cmath>

#include "input/interrupt.hpp"
#include "sim/scenario/distribution.hpp"

namespace failsim::sim {

double gamma_draw(double shape, models::Rng& rng) {
  if (shape < 1.0) {
    // 1 - U keeps the power's argument in (0, 1].
    return gamma_draw(shape + 1.0, rng) * std::pow(1.0 - rng.uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    const double t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

ComponentRates draw_component_rates(const NodeHeterogeneity& h, int count, std::uint64_t root) {
  const auto n = static_cast<std::size_t>(count);
  ComponentRates out;
  out.factor.assign(n, 1.0);
  out.turns_bad_at.assign(n, std::numeric_limits<double>::infinity());
  out.bad_factor = h.bad_factor;
  std::vector<bool> bad_from_start(n, false);
  if (h.spread == RateSpread::NONE) {
    // Exactly round(f x count) bad components (halves away from zero): a partial Fisher-Yates
    // shuffle on a stream of its own.
    const auto bad = static_cast<std::size_t>(std::llround(h.bad_fraction * count));
    std::vector<int> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
    models::Rng select(models::derive_seed(root, 0));
    for (std::size_t i = 0; i < bad; ++i) std::swap(order[i], order[i + select.below(n - i)]);
    out.bad.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(bad));
    std::sort(out.bad.begin(), out.bad.end());
    for (const int c : out.bad) {
      out.factor[static_cast<std::size_t>(c)] = h.bad_factor;
      bad_from_start[static_cast<std::size_t>(c)] = true;
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    input::poll_interrupt(static_cast<long long>(c), count, "drawing the components' rates",
                          "component");
    models::Rng rng(models::derive_seed(root, c + 1));
    switch (h.spread) {
      case RateSpread::GAMMA:
        // Shape a, scale 1/a: mean 1, variance 1/a.
        out.factor[c] = gamma_draw(h.spread_parameter, rng) / h.spread_parameter;
        break;
      case RateSpread::LOGNORMAL:
        // Mean 1: the failure processes' lognormal law, one way to draw it.
        out.factor[c] =
            draw(Distribution{DistributionKind::LOGNORMAL, 1.0, h.spread_parameter}, rng);
        break;
      case RateSpread::NONE:
        // A good component turns bad after an exponential time (a bad one already is).
        if (h.turns_bad_mean && !bad_from_start[c])
          out.turns_bad_at[c] = -*h.turns_bad_mean * std::log(1.0 - rng.uniform());
        break;
    }
  }
  return out;
}

double lifetime_end(double since, double base, double factor, double turns_bad_at,
                    double bad_factor) {
  if (since >= turns_bad_at) return since + base / bad_factor;
  const double end = since + base / factor;
  if (end <= turns_bad_at) return end;
  return turns_bad_at + (base - (turns_bad_at - since) * factor) / bad_factor;
}

}  // namespace failsim::sim
