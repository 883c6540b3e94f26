// What a run would cost in a cloud: each simulated host is an instance of a type named by a
// pricing plan, billed by the plan's rule over the time the host was held. Prices and rules
// live in a price file users edit (analysis/prices.json, documented in docs/cost-model.md).
// Engine-free: it reads host timelines, not a simulation.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace failsim::analysis {

/// A closed-open interval of simulated seconds [begin, end).
struct Interval {
  double begin = 0.0;
  double end = 0.0;
};

/// One simulated host over a run: its role and when it was down. A host is held from 0 to the
/// run's end except while down (a failed instance is released at the failure and its
/// replacement is billed from when the host is back).
struct HostTimeline {
  std::string host;  ///< e.g. "server-0", "worker-3"
  /// "server", "replica", "worker", "storage" or "coordinator" (result.json's hosts[].role), or
  /// "node" (an accelerator node of a collective run).
  std::string role;
  std::vector<Interval> down;  ///< disjoint, sorted
};

/// How an instance type is charged.
enum class BillingRule {
  PER_SECOND,  ///< each held interval billed by the second, at least `minimum_seconds`
  PER_HOUR,    ///< each held interval rounded up to whole hours
  COMMITMENT,  ///< the whole window [0, end) for every host, held or down, busy or idle
  SPOT,        ///< per second at the spot price; preemptions are failures the run injects
};

/// A pricing plan: which instance type each role runs on and how it is billed.
struct Plan {
  std::string name;
  std::string description;
  BillingRule rule = BillingRule::PER_SECOND;
  double minimum_seconds = 0.0;              ///< PER_SECOND and SPOT: minimum per held interval
  std::map<std::string, std::string> roles;  ///< role -> instance type; roles absent: not billed
};

/// An instance type's prices (USD per hour), with where and when they were read.
struct InstanceType {
  std::string name;
  std::string provider;
  std::string region;
  double on_demand_per_hour = 0.0;
  double commitment_per_hour = 0.0;  ///< effective hourly rate of the fixed-term commitment
  double spot_per_hour = 0.0;
  double spot_interruptions_per_hour = 0.0;  ///< for injecting preemptions as failures
  std::string source;                        ///< URL or document the prices come from
  std::string date;                          ///< when they were read, YYYY-MM-DD
  /// Which figure comes from which source, and which come from knowledge rather than a page
  /// (with the date they are known to be valid); "" when the sources say it all.
  std::string note;
};

struct PriceBook {
  std::map<std::string, InstanceType> instances;
  std::map<std::string, Plan> plans;
  std::string default_plan;
  /// The plan of collective runs when none is asked for (their hosts are "node"s, which a
  /// parameter server's plan does not bill); "" when the file names none: default_plan.
  std::string default_collective_plan;
};

/// Reads and validates a price file. Bad input throws input::InputError (file, JSON path,
/// expectation, found value), like a scenario file.
PriceBook load_price_book(const std::filesystem::path& file);

/// Parses and validates the text of a price file; `file_label` names it in error messages.
PriceBook parse_price_book_text(const std::string& text, const std::string& file_label);

/// The price file's spelling of a rule: "per_second", "per_hour", "commitment" or "spot".
std::string to_string(BillingRule rule);

/// The cost of a run's hosts over [0, until) under one plan.
struct Cost {
  double usd = 0.0;
  double host_hours = 0.0;    ///< hours the billed hosts were held in [0, until)
  double billed_hours = 0.0;  ///< hours charged after the plan's rounding and minimums
};

/// Bills every host whose role the plan names; `until` clips the window (the run's end time
/// for the whole run, the time a target accuracy was reached for the cost to reach it).
/// Throws std::invalid_argument for a plan name the book does not hold.
///
/// A host is held on [0, until) minus its down intervals (clipped to [0, until)); its held
/// intervals are the maximal intervals of positive length left. With L_i their lengths in
/// seconds and p the instance type's price per hour for the rule:
///   PER_SECOND  usd = sum_i max(L_i, minimum_seconds) / 3600 * on_demand_per_hour
///   PER_HOUR    usd = sum_i ceil(L_i / 3600) * on_demand_per_hour
///   COMMITMENT  usd = until / 3600 * commitment_per_hour       (down or not)
///   SPOT        usd = sum_i max(L_i, minimum_seconds) / 3600 * spot_per_hour
/// The minimum applies to every held interval, also one cut short by `until` (an instance
/// started is charged its minimum). host_hours = sum_i L_i / 3600 and billed_hours the hours
/// charged (the factor of p above), both summed over the billed hosts. Throws
/// std::invalid_argument for a negative or NaN `until`, or down intervals that are not sorted,
/// disjoint and with begin <= end.
Cost cost_of_run(const PriceBook& book, std::string_view plan,
                 const std::vector<HostTimeline>& hosts, double until);

}  // namespace failsim::analysis
