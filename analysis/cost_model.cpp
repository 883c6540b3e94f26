// The cost model: reading a price file (docs/cost-model.md) and billing host timelines.
//
// The price file is read like a scenario (style rule 4): every key known, every value checked
// where it is read, every error a input::InputError with file, JSON Pointer, expectation and
// found value. The file read, the raw parse (positions, duplicate keys) and the typed getters
// come from input/json_input.hpp and input/object_reader.hpp.
#include "analysis/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "input/input_error.hpp"
#include "input/json_input.hpp"
#include "input/object_reader.hpp"

namespace failsim::analysis {
namespace {

using input::JsonLocation;
using input::ObjectReader;
using nlohmann::json;

constexpr std::string_view FORMAT = "failsim-prices";
constexpr std::int64_t FORMAT_VERSION = 1;
constexpr double SECONDS_PER_HOUR = 3600.0;

const input::Choices<BillingRule>& rule_choices() {
  static const input::Choices<BillingRule> choices = {
      {"per_second", BillingRule::PER_SECOND},
      {"per_hour", BillingRule::PER_HOUR},
      {"commitment", BillingRule::COMMITMENT},
      {"spot", BillingRule::SPOT},
  };
  return choices;
}

// --- Fields ------------------------------------------------------------------------------------

bool is_leap_year(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

/// A calendar date written YYYY-MM-DD.
std::string read_date(const input::ObjectReader& r, std::string_view key) {
  const char* expected = "a date written YYYY-MM-DD";
  const json& v = r.require(key, expected);
  const input::JsonLocation where = r.at(key);
  if (!v.is_string()) where.fail(expected, input::describe_found(v));
  const std::string& s = v.get_ref<const std::string&>();
  const bool shape =
      s.size() == 10 && s[4] == '-' && s[7] == '-' &&
      std::all_of(s.begin(), s.end(), [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
  if (!shape) where.fail(expected, input::describe_found(v));
  const int year = std::stoi(s.substr(0, 4));
  const int month = std::stoi(s.substr(5, 2));
  const int day = std::stoi(s.substr(8, 2));
  static constexpr int DAYS[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int days_in_month =
      month >= 1 && month <= 12 ? DAYS[month - 1] + (month == 2 && is_leap_year(year) ? 1 : 0) : 0;
  if (day < 1 || day > days_in_month) {
    where.fail("a date written YYYY-MM-DD that exists in the calendar", input::describe_found(v));
  }
  return s;
}

/// A non-empty list of non-empty strings, joined with "; ".
std::string read_sources(const input::ObjectReader& r) {
  const std::vector<std::string> sources = r.list(
      "sources", 1, "non-empty strings (URLs or document names)",
      [](const json& v, const input::JsonLocation& where) { return input::read_string(v, where); });
  std::string joined;
  for (const std::string& s : sources) {
    if (!joined.empty()) joined += "; ";
    joined += s;
  }
  return joined;
}

/// The members of a JSON object whose keys are names the user chooses (instance types, plans):
/// at least one, none empty.
const json& read_named_objects(const input::ObjectReader& top, std::string_view key,
                               const std::string& expected) {
  const json& v = top.require(key, expected);
  const input::JsonLocation where = top.at(key);
  if (!v.is_object() || v.empty()) where.fail(expected, input::describe_found(v));
  for (const auto& item : v.items()) {
    if (item.key().empty()) where.child("").fail("a non-empty name", "\"\"");
  }
  return v;
}

InstanceType read_instance(const std::string& name, const json& v,
                           const input::JsonLocation& where) {
  const input::ObjectReader r(
      v, where,
      {"provider", "region", "on_demand_per_hour", "commitment_per_hour", "spot_per_hour",
       "spot_interruptions_per_hour", "sources", "date", "note"});
  const input::Interval non_negative = input::Interval::non_negative();
  InstanceType t;
  t.name = name;
  t.provider = r.string("provider");
  t.region = r.string("region");
  t.on_demand_per_hour = r.number("on_demand_per_hour", input::Interval::positive());
  t.commitment_per_hour = r.number_or("commitment_per_hour", 0.0, non_negative);
  t.spot_per_hour = r.number_or("spot_per_hour", 0.0, non_negative);
  t.spot_interruptions_per_hour = r.number_or("spot_interruptions_per_hour", 0.0, non_negative);
  t.source = read_sources(r);
  t.date = read_date(r, "date");
  t.note = r.string_or("note", "");
  return t;
}

/// The hourly price `rule` charges for `t` (0 when the file gives none).
double price_per_hour(const InstanceType& t, BillingRule rule) {
  switch (rule) {
    case BillingRule::PER_SECOND:
    case BillingRule::PER_HOUR:
      return t.on_demand_per_hour;
    case BillingRule::COMMITMENT:
      return t.commitment_per_hour;
    case BillingRule::SPOT:
      return t.spot_per_hour;
  }
  return 0.0;
}

/// The price field `rule` reads.
std::string_view price_field(BillingRule rule) {
  switch (rule) {
    case BillingRule::PER_SECOND:
    case BillingRule::PER_HOUR:
      return "on_demand_per_hour";
    case BillingRule::COMMITMENT:
      return "commitment_per_hour";
    case BillingRule::SPOT:
      return "spot_per_hour";
  }
  return "?";
}

/// What a plan's role needs from its instance type under `rule`.
std::string price_needed(BillingRule rule) {
  return fmt::format("an instance type with {} > 0 (rule \"{}\" charges it)", price_field(rule),
                     to_string(rule));
}

std::string quoted_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += n;
    out += '"';
  }
  return out;
}

/// An instance type named by a plan's role: it must exist, and have a price for the rule.
std::string read_role_instance(const json& v, const input::JsonLocation& where,
                               const std::map<std::string, InstanceType>& instances,
                               BillingRule rule) {
  std::vector<std::string_view> names;
  for (const auto& [name, t] : instances) names.push_back(name);
  const std::string expected =
      fmt::format("one of the instance types in /instances ({})", quoted_list(names));
  if (!v.is_string()) where.fail(expected, input::describe_found(v));
  const std::string& name = v.get_ref<const std::string&>();
  const auto it = instances.find(name);
  if (it == instances.end()) {
    std::string found = input::describe_found(v);
    const std::string hint = input::closest_match(name, names);
    if (!hint.empty()) found += fmt::format(" (did you mean \"{}\"?)", hint);
    where.fail(expected, found);
  }
  if (price_per_hour(it->second, rule) <= 0.0) {
    where.fail(price_needed(rule),
               fmt::format("\"{}\", whose {} is 0 or absent", name, price_field(rule)));
  }
  return name;
}

Plan read_plan(const std::string& name, const json& v, const input::JsonLocation& where,
               const std::map<std::string, InstanceType>& instances) {
  const input::ObjectReader r(v, where, {"description", "rule", "minimum", "roles"});
  Plan p;
  p.name = name;
  p.description = r.string_or("description", "");
  p.rule = r.choice("rule", rule_choices());
  if (p.rule == BillingRule::PER_SECOND || p.rule == BillingRule::SPOT) {
    p.minimum_seconds =
        r.quantity_or("minimum", 0.0, input::Quantity::TIME, input::Sign::NON_NEGATIVE);
  } else {
    r.forbid("minimum", "only rules \"per_second\" and \"spot\" have a minimum");
  }
  const input::ObjectReader roles =
      r.object("roles", {"server", "replica", "worker", "storage", "coordinator", "node"});
  for (std::string_view role : {"server", "replica", "worker", "storage", "coordinator", "node"}) {
    const json* instance = roles.find(role);
    if (instance == nullptr) continue;
    p.roles.emplace(std::string(role),
                    read_role_instance(*instance, roles.at(role), instances, p.rule));
  }
  if (p.roles.empty()) {
    r.at("roles").fail("at least one role (server, replica, worker, storage, coordinator, node)",
                       "{}");
  }
  return p;
}

PriceBook parse_price_book(const json& doc, const std::string& file_label) {
  const input::ObjectReader top(doc, input::JsonLocation{file_label, ""},
                                {"format", "format_version", "description", "default_plan",
                                 "default_collective_plan", "instances", "plans"});
  const std::string format_expected = fmt::format("\"{}\"", FORMAT);
  const json& format = top.require("format", format_expected);
  if (!format.is_string() || format.get_ref<const std::string&>() != FORMAT) {
    top.at("format").fail(format_expected, input::describe_found(format));
  }
  top.integer("format_version", FORMAT_VERSION, FORMAT_VERSION);
  top.string_or("description", "");

  PriceBook book;
  const json& instances =
      read_named_objects(top, "instances", "an object of instance types by name, at least one");
  for (const auto& item : instances.items()) {
    book.instances.emplace(
        item.key(), read_instance(item.key(), item.value(), top.at("instances").child(item.key())));
  }
  const json& plans = read_named_objects(top, "plans", "an object of plans by name, at least one");
  for (const auto& item : plans.items()) {
    book.plans.emplace(item.key(), read_plan(item.key(), item.value(),
                                             top.at("plans").child(item.key()), book.instances));
  }

  std::vector<std::string_view> plan_names;
  for (const auto& [name, p] : book.plans) plan_names.push_back(name);
  const std::string default_expected =
      fmt::format("one of the plans ({})", quoted_list(plan_names));
  const json& default_plan = top.require("default_plan", default_expected);
  if (!default_plan.is_string() ||
      book.plans.count(default_plan.get_ref<const std::string&>()) == 0) {
    std::string found = input::describe_found(default_plan);
    if (default_plan.is_string()) {
      const std::string hint =
          input::closest_match(default_plan.get_ref<const std::string&>(), plan_names);
      if (!hint.empty()) found += fmt::format(" (did you mean \"{}\"?)", hint);
    }
    top.at("default_plan").fail(default_expected, found);
  }
  book.default_plan = default_plan.get<std::string>();
  // Optional: a collective run's nodes are another kind of host than a parameter server's.
  if (const json* collective = top.find("default_collective_plan")) {
    const bool known =
        collective->is_string() && book.plans.count(collective->get_ref<const std::string&>()) > 0;
    if (!known) {
      std::string found = input::describe_found(*collective);
      if (collective->is_string()) {
        const std::string hint =
            input::closest_match(collective->get_ref<const std::string&>(), plan_names);
        if (!hint.empty()) found += fmt::format(" (did you mean \"{}\"?)", hint);
      }
      top.at("default_collective_plan").fail(default_expected, found);
    }
    const Plan& plan = book.plans.at(collective->get<std::string>());
    if (plan.roles.count("node") == 0) {
      top.at("default_collective_plan")
          .fail("a plan that names the role \"node\" (a collective run's hosts)",
                input::describe_found(*collective) + ", which does not");
    }
    book.default_collective_plan = collective->get<std::string>();
  }
  return book;
}

// --- Billing -----------------------------------------------------------------------------------

/// The maximal intervals of positive length in [0, until) outside `host`'s down intervals.
std::vector<Interval> held_intervals(const HostTimeline& host, double until) {
  std::vector<Interval> held;
  double t = 0.0;
  double previous_end = -std::numeric_limits<double>::infinity();
  for (const Interval& d : host.down) {
    if (!(d.begin <= d.end) || d.begin < previous_end) {
      throw std::invalid_argument(fmt::format(
          "cost_of_run: the down intervals of '{}' are not sorted, disjoint intervals with "
          "begin <= end",
          host.host));
    }
    previous_end = d.end;
    const double begin = std::clamp(d.begin, 0.0, until);
    const double end = std::clamp(d.end, 0.0, until);
    if (begin > t) held.push_back({t, begin});
    t = std::max(t, end);
  }
  if (until > t) held.push_back({t, until});
  return held;
}

/// Whole hours charged for a held interval of `seconds` > 0 under per-hour rounding. The
/// tolerance keeps an hour that floating-point sums made 3600.000000001 s from costing two.
double rounded_up_hours(double seconds) {
  constexpr double TOLERANCE_HOURS = 1e-9;
  return std::max(1.0, std::ceil(seconds / SECONDS_PER_HOUR - TOLERANCE_HOURS));
}

}  // namespace

std::string to_string(BillingRule rule) { return input::spelling_of(rule, rule_choices()); }

PriceBook parse_price_book_text(const std::string& text, const std::string& file_label) {
  return parse_price_book(input::parse_json_text(text, file_label), file_label);
}

PriceBook load_price_book(const std::filesystem::path& file) {
  return parse_price_book_text(input::read_input_file(file, "a readable price file"),
                               file.string());
}

Cost cost_of_run(const PriceBook& book, std::string_view plan_name,
                 const std::vector<HostTimeline>& hosts, double until) {
  const auto plan_it = book.plans.find(std::string(plan_name));
  if (plan_it == book.plans.end()) {
    throw std::invalid_argument(
        fmt::format("cost_of_run: no plan named '{}' in the price book", plan_name));
  }
  if (!(until >= 0.0)) {
    throw std::invalid_argument("cost_of_run: the window end must be a number >= 0");
  }
  const Plan& plan = plan_it->second;
  Cost cost;
  for (const HostTimeline& host : hosts) {
    const auto role = plan.roles.find(host.role);
    if (role == plan.roles.end()) continue;  // roles a plan does not name are not billed
    const InstanceType& type = book.instances.at(role->second);
    const double rate = price_per_hour(type, plan.rule);

    double held_seconds = 0.0;
    double billed_hours = 0.0;
    for (const Interval& i : held_intervals(host, until)) {
      const double length = i.end - i.begin;
      held_seconds += length;
      switch (plan.rule) {
        case BillingRule::PER_SECOND:
        case BillingRule::SPOT:
          billed_hours += std::max(length, plan.minimum_seconds) / SECONDS_PER_HOUR;
          break;
        case BillingRule::PER_HOUR:
          billed_hours += rounded_up_hours(length);
          break;
        case BillingRule::COMMITMENT:
          break;  // billed for the whole window below
      }
    }
    if (plan.rule == BillingRule::COMMITMENT) billed_hours = until / SECONDS_PER_HOUR;

    cost.host_hours += held_seconds / SECONDS_PER_HOUR;
    cost.billed_hours += billed_hours;
    cost.usd += billed_hours * rate;
  }
  return cost;
}

}  // namespace failsim::analysis
