// failures.stochastic[i].heterogeneity: components of one kind failing at different rates, as
// bad ("lemon") nodes from the start, good ones turning bad over time, or a spread of rates of
// mean 1 (docs/cluster.md, "Heterogeneous nodes").
#include <fmt/format.h>

#include <cmath>

#include "sim/scenario/collective/sections.hpp"
#include "sim/scenario/sections.hpp"

namespace failsim::sim::detail {
using namespace failsim::input;
namespace {

const Choices<RateSpread> SPREADS{{"gamma", RateSpread::GAMMA},
                                  {"lognormal", RateSpread::LOGNORMAL}};

/// heterogeneity.spread: the law of the components' rate factors, of mean 1.
void read_spread(const ObjectReader& r, NodeHeterogeneity& h) {
  const ObjectReader s = r.object("spread", {"distribution", "shape", "sigma"});
  h.spread = s.choice("distribution", SPREADS);
  if (h.spread == RateSpread::GAMMA) {
    s.forbid("sigma", "it applies only to distribution \"lognormal\"");
    h.spread_parameter = s.number("shape", Interval::positive());
  } else {
    s.forbid("shape", "it applies only to distribution \"gamma\"");
    h.spread_parameter = s.number("sigma", Interval::positive());
  }
}

}  // namespace

NodeHeterogeneity read_heterogeneity(const ObjectReader& entry) {
  const ObjectReader r =
      entry.object("heterogeneity", {"bad_fraction", "bad_factor", "turns_bad", "spread"});
  NodeHeterogeneity h;
  if (r.has("spread")) {
    for (const char* k : {"bad_fraction", "bad_factor", "turns_bad"})
      r.forbid(k, "bad nodes or a 'spread' of rates, not both, in one entry");
    read_spread(r, h);
    return h;
  }
  if (!r.has("bad_fraction") && !r.has("turns_bad")) {
    entry.at("heterogeneity")
        .fail(
            "an object with 'bad_fraction' (and 'bad_factor'), 'turns_bad' (and 'bad_factor') or "
            "'spread'",
            describe_found(*entry.find("heterogeneity")));
  }
  h.bad_fraction = r.number_or("bad_fraction", 0.0, Interval{0.0, 1.0, false, false});
  h.bad_factor = r.number("bad_factor", Interval{1.0, 1e6, false, false});
  if (r.has("turns_bad"))
    h.turns_bad_mean = r.quantity("turns_bad", Quantity::TIME, Sign::POSITIVE);
  return h;
}

nlohmann::json heterogeneity_to_json(const NodeHeterogeneity& h) {
  if (h.spread != RateSpread::NONE) {
    const bool gamma = h.spread == RateSpread::GAMMA;
    return {{"spread",
             {{"distribution", spelling_of(h.spread, SPREADS)},
              {gamma ? "shape" : "sigma", h.spread_parameter}}}};
  }
  nlohmann::json out{{"bad_fraction", h.bad_fraction}, {"bad_factor", h.bad_factor}};
  if (h.turns_bad_mean) out["turns_bad"] = *h.turns_bad_mean;
  return out;
}

}  // namespace failsim::sim::detail

namespace failsim::sim {

double mean_rate_factor(const NodeHeterogeneity& h, double horizon) {
  if (h.spread != RateSpread::NONE) return 1.0;
  const double f = h.bad_fraction, k = h.bad_factor;
  double factor = 1.0 - f + f * k;
  if (h.turns_bad_mean) {
    const double t = *h.turns_bad_mean;
    const double turned = horizon > 0.0 && std::isfinite(horizon)
                              ? 1.0 - t / horizon * (1.0 - std::exp(-horizon / t))
                              : 1.0;
    factor += (1.0 - f) * (k - 1.0) * turned;
  }
  return factor;
}

}  // namespace failsim::sim
