// Sweep files: parsing, checking and expansion into a plan (see plan.hpp).
#include "sweep/plan.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "analysis/figure_names.hpp"
#include "input/json_input.hpp"
#include "input/json_pointer.hpp"
#include "input/object_reader.hpp"
#include "input/units.hpp"
#include "sim/scenario/resolve.hpp"
#include "sim/scenario/scenario.hpp"

namespace failsim::sweep {
namespace fs = std::filesystem;
using nlohmann::json;
// Sweep files are read with the input library's readers throughout.
using namespace failsim::input;

namespace {

/// Limits that catch a typo (a step of "1ms" over 200 s) before it becomes a million runs.
constexpr std::size_t MAX_VALUES = 10000;
constexpr std::size_t MAX_RUNS = 100000;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

/// Text made fit for a scenario name: every other character becomes '-'.
std::string name_safe(const std::string& text) {
  std::string out = text;
  std::replace_if(
      out.begin(), out.end(), [](char c) { return !name_char(c); }, '-');
  return out;
}

/// The default label of a varied path: its last token that is not an array index.
std::string default_label(const std::string& pointer) {
  const std::vector<std::string> tokens = pointer_tokens(pointer);
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    if (!array_index(*it)) return name_safe(*it);
  }
  return name_safe(tokens.back());
}

/// Whether `pointer` is `ancestor` or lies under it.
bool is_under(const std::string& pointer, const std::string& ancestor) {
  return pointer == ancestor ||
         (pointer.size() > ancestor.size() && pointer.compare(0, ancestor.size(), ancestor) == 0 &&
          pointer[ancestor.size()] == '/');
}

// ---- ranges -------------------------------------------------------------------------------

constexpr std::array<Quantity, 5> QUANTITY_KINDS{Quantity::TIME, Quantity::DATA_SIZE,
                                                 Quantity::BANDWIDTH, Quantity::SPEED,
                                                 Quantity::FLOP_AMOUNT};

/// A number as written in a range value: 15 significant digits, so that 0.1 + 2 x 0.1 reads
/// 0.3 and not 0.30000000000000004.
std::string short_number(double x) { return fmt::format("{:.15g}", x); }
double rounded(double x) { return std::strtod(short_number(x).c_str(), nullptr); }

/// from, from + step, ..., to: `to` must be from plus a whole number of steps (within 1e-9 of
/// a step, the drift of decimal steps in binary), else `to_where` fails naming the two nearest
/// values that are. Each value is computed as from + i x step (no accumulated drift) and
/// rounded to 15 digits; the last one is `to` itself.
std::vector<double> range_numbers(double from, double to, double step, const JsonLocation& where,
                                  const std::string& unit) {
  const double steps = (to - from) / step;
  const double whole = std::round(steps);
  if (std::fabs(steps - whole) > 1e-9 * std::max(1.0, std::fabs(steps))) {
    where.child("to").fail(fmt::format("'from' plus a whole number of steps, e.g. {}{} or {}{}",
                                       short_number(from + std::floor(steps) * step), unit,
                                       short_number(from + std::ceil(steps) * step), unit),
                           short_number(to) + unit);
  }
  if (whole + 1 > static_cast<double>(MAX_VALUES)) {
    where.child("step").fail(fmt::format("a step giving at most {} values", MAX_VALUES),
                             fmt::format("{}{} ({} values)", short_number(step), unit, whole + 1));
  }
  const auto count = static_cast<std::size_t>(whole) + 1;
  std::vector<double> out;
  for (std::size_t i = 0; i + 1 < count; ++i) out.push_back(rounded(from + double(i) * step));
  out.push_back(to);
  return out;
}

/// The kinds of quantity `text` parses as (several for "f": a speed and an amount of flops).
std::vector<Quantity> kinds_of(const std::string& text, std::string* why) {
  std::vector<Quantity> kinds;
  for (Quantity kind : QUANTITY_KINDS) {
    try {
      parse_quantity(text, kind, Sign::NON_NEGATIVE, JsonLocation{});
      kinds.push_back(kind);
    } catch (const InputError& e) {
      if (why != nullptr && why->empty()) *why = e.found();
    }
  }
  return kinds;
}

/// The unit as written after the number ("10 Gbps" -> "Gbps"), for keeping it in the values.
std::string written_unit(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) != 0 || text[i] == '.' ||
          text[i] == 'e' || text[i] == 'E' || text[i] == '+' || text[i] == '-' || text[i] == ' ')) {
    // An 'e' or 'E' belongs to the number only when a digit or sign follows it.
    if ((text[i] == 'e' || text[i] == 'E') &&
        !(i + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0 ||
                                  text[i + 1] == '+' || text[i + 1] == '-'))) {
      break;
    }
    ++i;
  }
  return text.substr(i);
}

/// The leading number of a quantity string as written ("100ms" -> 100).
double written_number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

/// A range of plain numbers. Integers stay integers (a worker count must be one) and need no
/// drift check.
std::vector<json> read_number_range(const ObjectReader& r, const json& from, const json& to,
                                    const json& step) {
  for (const auto& [key, v] : {std::pair<const char*, const json*>{"to", &to}, {"step", &step}}) {
    if (!v->is_number()) r.at(key).fail("a number, like 'from'", describe_found(*v));
  }
  std::vector<json> values;
  if (from.is_number_integer() && to.is_number_integer() && step.is_number_integer()) {
    const std::int64_t lo = read_integer(from, r.at("from"), std::numeric_limits<int>::min(),
                                         std::numeric_limits<int>::max());
    const std::int64_t hi = read_integer(to, r.at("to"), lo, std::numeric_limits<int>::max());
    const std::int64_t by = read_integer(step, r.at("step"), 1, std::numeric_limits<int>::max());
    if ((hi - lo) % by != 0) {
      r.at("to").fail(fmt::format("'from' plus a whole number of steps, e.g. {} or {}",
                                  lo + (hi - lo) / by * by, lo + ((hi - lo) / by + 1) * by),
                      describe_found(to));
    }
    if (static_cast<std::size_t>((hi - lo) / by) + 1 > MAX_VALUES) {
      r.at("step").fail(fmt::format("a step giving at most {} values", MAX_VALUES),
                        fmt::format("{} ({} values)", by, (hi - lo) / by + 1));
    }
    for (std::int64_t x = lo; x <= hi; x += by) values.emplace_back(x);
    return values;
  }
  const double lo = read_number(from, r.at("from"), Interval{});
  const double hi = read_number(to, r.at("to"), Interval{lo, Interval{}.hi, false, true});
  const double by = read_number(step, r.at("step"), Interval::positive());
  for (double x : range_numbers(lo, hi, by, r.location(), "")) values.emplace_back(x);
  return values;
}

/// The one kind of quantity that 'from', 'to' and 'step' all parse as (the first of several:
/// "1Gf" is a speed and an amount of flops); fails naming the first bound that shares none.
Quantity range_kind(const ObjectReader& r, const json& from, const json& to, const json& step,
                    const std::string& expected_bound) {
  std::string why;
  const std::vector<Quantity> from_kinds = kinds_of(from.get<std::string>(), &why);
  if (from_kinds.empty()) r.at("from").fail(expected_bound, why);
  std::vector<Quantity> kinds = from_kinds;
  for (const auto& [key, v] : {std::pair<const char*, const json*>{"to", &to}, {"step", &step}}) {
    const std::string expected = "a quantity of the same kind as 'from' (" + describe_found(from) +
                                 "), as a string with a unit";
    if (!v->is_string()) r.at(key).fail(expected, describe_found(*v));
    const std::vector<Quantity> these = kinds_of(v->get<std::string>(), nullptr);
    std::vector<Quantity> common;
    for (Quantity k : kinds) {
      if (std::find(these.begin(), these.end(), k) != these.end()) common.push_back(k);
    }
    if (common.empty()) {
      // The parser's own message for this kind says what is wrong with the unit.
      parse_quantity(v->get<std::string>(), kinds.front(), Sign::NON_NEGATIVE, r.at(key));
      r.at(key).fail(expected, describe_found(*v));
    }
    kinds = common;
  }
  return kinds.front();
}

/// A range of quantities with units ("100ms" to "1s" by "100ms"), as strings.
std::vector<json> read_quantity_range(const ObjectReader& r, const json& from, const json& to,
                                      const json& step, const std::string& expected_bound) {
  const Quantity kind = range_kind(r, from, to, step, expected_bound);
  const std::string from_text = from.get<std::string>();
  const double lo = parse_quantity(from_text, kind, Sign::NON_NEGATIVE, r.at("from"));
  const double hi = parse_quantity(to.get<std::string>(), kind, Sign::NON_NEGATIVE, r.at("to"));
  const double by = parse_quantity(step.get<std::string>(), kind, Sign::POSITIVE, r.at("step"));
  if (hi < lo)
    r.at("to").fail("a quantity >= 'from' (" + describe_found(from) + ")", describe_found(to));
  // Values keep the unit the user wrote when all three share it ("100ms" ... "1000ms"), else
  // they are written in the base unit ("0.1s" ... "1s").
  std::string unit = written_unit(from_text);
  double a = written_number(from_text), b = written_number(to.get<std::string>()),
         c = written_number(step.get<std::string>());
  if (unit != written_unit(to.get<std::string>()) ||
      unit != written_unit(step.get<std::string>()) || unit.empty()) {
    unit = std::string(input::base_unit(kind));  // parse_quantity reads it back
    a = lo;
    b = hi;
    c = by;
  }
  std::vector<json> values;
  for (double x : range_numbers(a, b, c, r.location(), unit)) {
    values.emplace_back(short_number(x) + unit);
  }
  return values;
}

/// A "range" {from, to, step}: plain numbers, or quantities with units.
std::vector<json> read_range(const ObjectReader& r) {
  const std::string expected_bound =
      "a number, or a quantity with a unit such as \"10s\", \"2GB\", \"10Gbps\", \"1Gf\"";
  const json& from = r.require("from", expected_bound);
  const json& to = r.require("to", expected_bound);
  const json& step = r.require("step", expected_bound);
  if (from.is_number()) return read_number_range(r, from, to, step);
  if (!from.is_string()) r.at("from").fail(expected_bound, describe_found(from));
  return read_quantity_range(r, from, to, step, expected_bound);
}

// ---- vary entries -------------------------------------------------------------------------

/// The varied path's values: its list ("values") or its range ("range"), one of the two.
std::vector<json> read_values(const ObjectReader& r) {
  const json* values = r.find("values");
  const json* range = r.find("range");
  if (values != nullptr && range != nullptr) {
    r.at("range").fail("either 'values' or 'range', not both", describe_found(*range));
  }
  if (values == nullptr && range == nullptr) {
    r.at("values").fail("a list of values, or a 'range' instead (one of the two is required)",
                        "nothing");
  }
  if (range != nullptr) return read_range(r.object("range", {"from", "to", "step"}));
  std::vector<json> list = r.list("values", 1, "values of the field (any JSON)",
                                  [](const json& v, const JsonLocation&) { return v; });
  if (list.size() > MAX_VALUES) {
    r.at("values").fail(fmt::format("at most {} values", MAX_VALUES),
                        fmt::format("{} values", list.size()));
  }
  return list;
}

/// "names": one name per value, for values whose text makes a poor name (a list of events, an
/// object): distinct, or in a zip (where values repeat) the same name exactly for the same value.
std::vector<std::string> read_value_names(const ObjectReader& r, const std::vector<json>& values,
                                          bool zipped) {
  std::vector<std::string> names = r.list(
      "names", 1, "names of the values, one per value", [](const json& v, const JsonLocation& at) {
        if (!v.is_string() || !sim::is_valid_name(v.get<std::string>())) {
          at.fail(
              "a name of letters, digits, '.', '_' and '-', not starting with '.' "
              "or '-' (it names the points in place of the value)",
              describe_found(v));
        }
        return v.get<std::string>();
      });
  if (names.size() != values.size()) {
    r.at("names").fail(fmt::format("one name per value ({})", values.size()),
                       fmt::format("{} names", names.size()));
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (zipped && (names[i] == names[j]) != (values[i] == values[j])) {
        r.at("names").child(i).fail(
            "one name per distinct value (a zipped value may repeat, and its name with it)",
            names[i] == names[j]
                ? fmt::format("\"{}\" for values {} and {}, which differ", names[i], j, i)
                : fmt::format("\"{}\" and \"{}\" for the same value (values {} and {})", names[j],
                              names[i], j, i));
      }
      if (!zipped && names[i] == names[j]) {
        r.at("names").child(i).fail("distinct names (each one names a point)",
                                    fmt::format("\"{}\" twice (names {} and {})", names[i], j, i));
      }
    }
  }
  return names;
}

/// A path and its values. `zipped`: one of a zip's paths, whose values may repeat (the zip's
/// combinations are checked distinct instead, read_vary_entry).
VariedPath read_varied_path(const ObjectReader& r, bool zipped) {
  VariedPath p;
  p.where = r.location().pointer;
  p.pointer = r.string("path");
  const std::string syntax = pointer_syntax_error(p.pointer);
  if (!syntax.empty()) {
    r.at("path").fail(
        "a JSON Pointer (RFC 6901) into the scenario, such as \"/failures/events/0/at\"",
        describe_found(r.require("path", "")) + " (" + syntax + ")");
  }
  for (const char* reserved : {"/name", "/seed", "/output"}) {
    if (is_under(p.pointer, reserved)) {
      r.at("path").fail(
          "a path outside /name, /seed and /output (the sweep names each point after its values, "
          "gives the seeds in 'seeds' and places every result directory)",
          describe_found(r.require("path", "")));
    }
  }
  p.label = r.string_or("label", default_label(p.pointer));
  if (!sim::is_valid_name(p.label)) {
    r.at("label").fail(
        "a label of letters, digits, '.', '_' and '-', not starting with '.' or '-' (it names "
        "the points)",
        describe_found(*r.find("label")));
  }
  p.values = read_values(r);
  if (r.has("names")) p.names = read_value_names(r, p.values, zipped);
  if (zipped) return p;
  // Checked after the names: of two mistakes, the one in the names is reported.
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (p.values[i] == p.values[j]) {
        const JsonLocation at = r.has("values") ? r.at("values").child(i) : r.at("range");
        at.fail(fmt::format("distinct values (each one is a point of the sweep)"),
                fmt::format("{} twice (values {} and {})", describe_found(p.values[i]), j, i));
      }
    }
  }
  return p;
}

/// "/a = 1, /b = \"x\"": the values of a point as messages name them.
std::string settings_text(const std::vector<std::string>& paths, const std::vector<json>& values) {
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    out += fmt::format("{}{} = {}", i == 0 ? "" : ", ", paths[i], describe_found(values[i]));
  }
  return out;
}

/// A zip's paths may repeat values (a strategy paired with several spare counts), but two of
/// its combinations may not be the same: they would make the same runs twice.
void check_distinct_combinations(const VaryEntry& entry, const JsonLocation& zip) {
  const auto same = [&](std::size_t i, std::size_t j) {
    return std::all_of(entry.paths.begin(), entry.paths.end(),
                       [&](const VariedPath& p) { return p.values[i] == p.values[j]; });
  };
  for (std::size_t i = 0; i < entry.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!same(i, j)) continue;
      std::vector<std::string> paths;
      std::vector<json> values;
      for (const VariedPath& p : entry.paths) {
        paths.push_back(p.pointer);
        values.push_back(p.values[i]);
      }
      zip.fail(
          "distinct combinations of the zipped values (each one is a point of the sweep; a "
          "value may repeat where another path's differs)",
          fmt::format("{} twice (values {} and {})", settings_text(paths, values), j, i));
    }
  }
}

VaryEntry read_vary_entry(const json& v, const JsonLocation& where) {
  const ObjectReader r(v, where, {"path", "label", "values", "range", "names", "zip"});
  VaryEntry entry;
  entry.where = where.pointer;
  if (r.has("zip")) {
    for (const char* key : {"path", "label", "values", "range", "names"}) {
      r.forbid(key, "a zip entry lists its paths, each with its values, in 'zip'");
    }
    entry.paths =
        r.list("zip", 1, "fields with their values, each {\"path\": ..., \"values\": [...]}",
               [](const json& item, const JsonLocation& at) {
                 return read_varied_path(
                     ObjectReader(item, at, {"path", "label", "values", "range", "names"}), true);
               });
    for (std::size_t i = 1; i < entry.paths.size(); ++i) {
      if (entry.paths[i].values.size() != entry.paths[0].values.size()) {
        JsonLocation{where.file, entry.paths[i].where}.fail(
            fmt::format("as many values as {} ({}): zipped paths vary together",
                        entry.paths[0].where, entry.paths[0].values.size()),
            fmt::format("{} values", entry.paths[i].values.size()));
      }
    }
    check_distinct_combinations(entry, r.at("zip"));
  } else {
    entry.paths.push_back(read_varied_path(r, false));
  }
  return entry;
}

/// `figures`: distinct names of `failsim plot`'s figures (analysis/figure_names.hpp).
std::vector<std::string> read_figures(const json& v, const JsonLocation& where) {
  std::string names;
  for (const std::string_view name : analysis::FIGURE_NAMES) {
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  const std::string expected = "a list of figures of failsim plot (" + names + ")";
  if (!v.is_array() || v.empty()) where.fail(expected, describe_found(v));
  std::vector<std::string> figures;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool known =
        v[i].is_string() && std::find(analysis::FIGURE_NAMES.begin(), analysis::FIGURE_NAMES.end(),
                                      v[i].get<std::string>()) != analysis::FIGURE_NAMES.end();
    if (!known)
      where.child(i).fail("a figure of failsim plot (" + names + ")", describe_found(v[i]));
    const std::string name = v[i].get<std::string>();
    if (std::find(figures.begin(), figures.end(), name) != figures.end()) {
      where.child(i).fail("distinct figures", describe_found(v[i]) + " a second time");
    }
    figures.push_back(name);
  }
  return figures;
}

std::vector<std::uint64_t> read_seeds(const json& v, const JsonLocation& where) {
  const std::string expected =
      "a list of seeds (integers >= 0) or a range {\"from\": FIRST, \"to\": LAST}";
  std::vector<std::uint64_t> seeds;
  if (v.is_array()) {
    if (v.empty()) where.fail(expected + " with at least one seed", "[]");
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t seed = read_uint64(v[i], where.child(i));
      if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end()) {
        where.child(i).fail("distinct seeds", fmt::format("{} a second time", seed));
      }
      seeds.push_back(seed);
    }
  } else if (v.is_object()) {
    const ObjectReader r(v, where, {"from", "to"});
    const std::uint64_t from = read_uint64(r.require("from", "an integer >= 0"), r.at("from"));
    const std::uint64_t to = read_uint64(r.require("to", "an integer >= 'from'"), r.at("to"));
    if (to < from)
      r.at("to").fail(fmt::format("an integer >= 'from' ({})", from), std::to_string(to));
    if (to - from >= MAX_VALUES) {
      // In long double: to - from + 1 wraps to 0 for the range of every 64-bit seed.
      r.at("to").fail(
          fmt::format("at most {} seeds", MAX_VALUES),
          fmt::format("{} ({:.0f} seeds)", to, static_cast<long double>(to - from) + 1));
    }
    // Counted from 0: `s <= to` never ends when `to` is the largest 64-bit seed.
    for (std::uint64_t k = 0; k <= to - from; ++k) seeds.push_back(from + k);
  } else {
    where.fail(expected, describe_found(v));
  }
  return seeds;
}

BaseScenario read_base(const json& v, const JsonLocation& where) {
  BaseScenario base;
  base.written = read_string(v, where);
  const fs::path written(base.written);
  base.path = (written.is_absolute() ? written : fs::path(where.file).parent_path() / written)
                  .lexically_normal()
                  .string();
  try {
    base.doc = parse_json_text(read_input_file(base.path, "a readable scenario file"), base.path);
  } catch (const InputError& e) {
    where.fail("a scenario file, relative to the sweep file",
               describe_found(v) + " (" + e.what() + ")");
  }
  return base;
}

}  // namespace

Sweep parse_sweep(const json& doc, const std::string& file_label) {
  const JsonLocation root{file_label, ""};
  const ObjectReader top(
      doc, root,
      {"name", "description", "scenarios", "seeds", "vary", "output", "target_loss", "figures"});
  Sweep s;
  s.file = file_label;
  s.name = top.string("name");
  if (!sim::is_valid_name(s.name)) {
    top.at("name").fail(
        "a name of letters, digits, '.', '_' and '-', not starting with '.' or '-' (it names "
        "the default output directory)",
        describe_found(doc.at("name")));
  }
  if (const json* d = top.find("description")) {
    if (!d->is_string()) top.at("description").fail("a string", describe_found(*d));
    s.description = d->get<std::string>();
  }
  s.scenarios = top.list("scenarios", 1, "scenario files, relative to the sweep file", read_base);
  for (std::size_t i = 0; i < s.scenarios.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (s.scenarios[i].path == s.scenarios[j].path) {
        top.at("scenarios")
            .child(i)
            .fail("each scenario file at most once",
                  describe_found(s.scenarios[i].written) +
                      fmt::format(" again (also /scenarios/{})", j));
      }
    }
  }
  if (const json* seeds = top.find("seeds")) s.seeds = read_seeds(*seeds, top.at("seeds"));
  if (const json* vary = top.find("vary")) {
    if (!vary->is_array()) {
      top.at("vary").fail(
          "a list of vary entries (each {\"path\", \"values\" or \"range\"} or "
          "{\"zip\": [...]})",
          describe_found(*vary));
    }
    for (std::size_t i = 0; i < vary->size(); ++i) {
      s.vary.push_back(read_vary_entry((*vary)[i], top.at("vary").child(i)));
    }
  }
  std::map<std::string, std::string> seen;  // pointer -> where
  for (const VaryEntry& entry : s.vary) {
    for (const VariedPath& p : entry.paths) {
      const auto [it, fresh] = seen.emplace(p.pointer, p.where);
      if (!fresh) {
        JsonLocation{file_label, p.where + "/path"}.fail(
            "each path varied by one entry only",
            fmt::format("{} again (also {})", describe_found(p.pointer), it->second));
      }
    }
  }
  const ObjectReader output = top.object_or_empty("output", {"directory"});
  s.output_directory = output.string_or("directory", "results/sweeps/" + s.name);
  s.target_loss = top.optional_number("target_loss", input::Interval::positive());
  if (const json* figures = top.find("figures"))
    s.figures = read_figures(*figures, top.at("figures"));
  return s;
}

Sweep load_sweep(const std::string& path) {
  return parse_sweep(parse_json_text(read_input_file(path, "a readable sweep file"), path), path);
}

namespace {

/// Points per base: the product of the entries' lengths, each entry limited to MAX_VALUES. Fails
/// when the sweep would make more than MAX_RUNS runs.
std::size_t points_per_base(const Sweep& sweep) {
  std::size_t grid = 1;
  for (const VaryEntry& entry : sweep.vary) {
    grid *= entry.size();
    if (grid > MAX_RUNS) break;
  }
  const std::size_t seeds = sweep.seeds ? sweep.seeds->size() : 1;
  const double total =
      static_cast<double>(grid) * static_cast<double>(sweep.scenarios.size()) * double(seeds);
  if (total > static_cast<double>(MAX_RUNS)) {
    JsonLocation{sweep.file, sweep.vary.empty() ? "/seeds" : "/vary"}.fail(
        fmt::format("at most {} runs (scenarios x values x seeds)", MAX_RUNS),
        fmt::format("{} runs", total));
  }
  return grid;
}

/// The base scenario's "name", which its points' names begin with. A base without one as a
/// string fails with the scenario's own error (no name, not an object) if it has one, else null.
const json* base_name(const BaseScenario& base, const JsonLocation& base_where) {
  const json* name = base.doc.is_object() ? &base.doc : nullptr;
  if (name != nullptr) {
    auto it = base.doc.find("name");
    name = it != base.doc.end() && it->is_string() ? &*it : nullptr;
  }
  if (name == nullptr) {
    // The scenario's own error (no name, not an object) says what is wrong with it.
    try {
      sim::parse_scenario(base.doc, base.path);
    } catch (const InputError& e) {
      base_where.fail("a valid scenario file", describe_found(base.written) + ": " + e.what());
    }
  }
  return name;
}

/// Point g's scenario document: the base with the g-th combination of values set. Fills
/// point.values and point.id (the base's name, then "_<label>-<value>" per varied path).
json point_document(const Sweep& sweep, const BaseScenario& base, const json* name, std::size_t g,
                    SweepPoint& point) {
  json doc = base.doc;
  std::string id = name != nullptr ? name->get<std::string>() : std::string();
  // Mixed radix, the first entry most significant: it varies slowest.
  std::vector<std::size_t> choice(sweep.vary.size());
  std::size_t rest = g;
  for (std::size_t k = sweep.vary.size(); k-- > 0;) {
    choice[k] = rest % sweep.vary[k].size();
    rest /= sweep.vary[k].size();
  }
  for (std::size_t k = 0; k < sweep.vary.size(); ++k) {
    for (const VariedPath& p : sweep.vary[k].paths) {
      const json& value = p.values[choice[k]];
      const std::string problem = set_at_pointer(doc, p.pointer, value);
      if (!problem.empty()) {
        JsonLocation{sweep.file, p.where + "/path"}.fail(
            "a path of every base scenario: all but its last step must exist there",
            fmt::format("{} in {} ({})", describe_found(p.pointer), base.path, problem));
      }
      point.values.push_back(value);
      id += "_" + p.label + "-" +
            (p.names.empty() ? name_safe(value_text(value)) : p.names[choice[k]]);
    }
  }
  doc["name"] = id;
  point.id = id;
  return doc;
}

/// The place in the sweep file to blame for an error at `json_path` of a point's scenario: the
/// first varied path that holds (or contains) the bad field, else `fallback`.
std::string blamed_place(const Sweep& sweep, const std::string& json_path,
                         const std::string& fallback) {
  for (const VaryEntry& entry : sweep.vary) {
    for (const VariedPath& p : entry.paths) {
      if (is_under(json_path, p.pointer) || is_under(p.pointer, json_path)) return p.where;
    }
  }
  return fallback;
}

/// Reads and resolves the point's scenario into point.scenario, point.scenario_seed and
/// point.wall; an invalid one fails, blaming the vary entry that made it so (blamed_place).
void resolve_point(const Sweep& sweep, const SweepPlan& plan, const std::string& base_pointer,
                   const json& doc, SweepPoint& point) {
  const BaseScenario& base = sweep.scenarios[point.base];
  try {
    const sim::Scenario scenario = sim::parse_scenario(doc, base.path);
    point.wall = sim::estimate_wall_time(scenario, sim::resolve(scenario, base.path));
    if (!scenario.output.timeseries) {
      JsonLocation{base.path, "/output/timeseries"}.fail(
          "true in a sweep (runs.csv and the table read timeseries.csv)", "false");
    }
    point.scenario = sim::to_json(scenario);
    point.scenario_seed = scenario.seed;
  } catch (const InputError& e) {
    const std::string with =
        plan.paths.empty() ? "" : " with " + settings_text(plan.paths, point.values);
    JsonLocation{sweep.file, blamed_place(sweep, e.json_path(), base_pointer)}.fail(
        "values that make a valid scenario of every point",
        fmt::format("point {} ({}{}) invalid: {}", point.index, base.path, with, e.what()));
  }
}

/// Refuses a point whose resolved scenario, apart from its name and output directory, is an
/// earlier point's: the two would make the same runs ("10s" and "10000ms", or a zip's
/// combination written twice in other words). `resolved` maps each earlier point's scenario so.
void check_not_repeated(const Sweep& sweep, const SweepPlan& plan, const SweepPoint& point,
                        std::map<std::string, std::size_t>& resolved) {
  json same = point.scenario;
  same.erase("name");
  if (auto it = same.find("output"); it != same.end() && it->is_object()) it->erase("directory");
  const auto [it, fresh] = resolved.emplace(same.dump(), point.index);
  if (fresh) return;
  const SweepPoint& other = plan.points[it->second];
  const auto described = [&](const SweepPoint& p) {
    return plan.paths.empty()
               ? plan.bases[p.base]
               : fmt::format("{} with {}", plan.bases[p.base], settings_text(plan.paths, p.values));
  };
  JsonLocation{sweep.file, sweep.vary.empty() ? "/scenarios" : "/vary"}.fail(
      "points that differ in the scenario they run (two alike would make the same runs twice)",
      fmt::format("point {} ({}) the same scenario as point {} ({})", point.index, described(point),
                  other.index, described(other)));
}

/// The plan's runs: each point with each of the sweep's seeds, or with its own seed.
void add_runs(const Sweep& sweep, SweepPlan& plan) {
  for (const SweepPoint& point : plan.points) {
    const std::vector<std::uint64_t> point_seeds =
        sweep.seeds ? *sweep.seeds : std::vector<std::uint64_t>{point.scenario_seed};
    for (std::uint64_t seed : point_seeds) {
      SweepRun run;
      run.index = plan.runs.size();
      run.point = point.index;
      run.seed = seed;
      run.directory = fmt::format("runs/{}/seed-{}", point.id, seed);
      plan.runs.push_back(std::move(run));
    }
  }
}

}  // namespace

SweepPlan expand_sweep(const Sweep& sweep) {
  SweepPlan plan;
  plan.name = sweep.name;
  plan.target_loss = sweep.target_loss;
  plan.figures = sweep.figures;
  for (const VaryEntry& entry : sweep.vary) {
    for (const VariedPath& p : entry.paths) {
      plan.paths.push_back(p.pointer);
      plan.labels.push_back(p.label);
    }
  }
  for (const BaseScenario& base : sweep.scenarios) plan.bases.push_back(base.written);
  const std::size_t grid = points_per_base(sweep);

  std::map<std::string, std::size_t> ids;
  std::map<std::string, std::size_t> resolved;  // a point's scenario but its names -> the point
  for (std::size_t b = 0; b < sweep.scenarios.size(); ++b) {
    const BaseScenario& base = sweep.scenarios[b];
    const JsonLocation base_where = JsonLocation{sweep.file, ""}.child("scenarios").child(b);
    const json* name = base_name(base, base_where);
    for (std::size_t g = 0; g < grid; ++g) {
      SweepPoint point;
      point.index = plan.points.size();
      point.base = b;
      const json doc = point_document(sweep, base, name, g, point);
      resolve_point(sweep, plan, base_where.pointer, doc, point);
      const auto [it, fresh] = ids.emplace(point.id, point.index);
      if (!fresh) {
        const SweepPoint& other = plan.points[it->second];
        JsonLocation{sweep.file, sweep.vary.empty() ? base_where.pointer : "/vary"}.fail(
            "points with distinct names (base scenario names and values that differ in a name)",
            fmt::format("\"{}\" for point {} ({}) and point {} ({})", point.id, other.index,
                        plan.bases[other.base], point.index, base.written));
      }
      check_not_repeated(sweep, plan, point, resolved);
      plan.points.push_back(std::move(point));
    }
  }
  add_runs(sweep, plan);
  return plan;
}

std::string point_scenario_file(const SweepPoint& point) {
  return "scenarios/" + point.id + ".json";
}

std::string value_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

json plan_json(const SweepPlan& plan) {
  const auto values_of = [&](const SweepPoint& point) {
    json values = json::object();
    for (std::size_t i = 0; i < plan.paths.size(); ++i) values[plan.paths[i]] = point.values[i];
    return values;
  };
  json points = json::array();
  for (const SweepPoint& point : plan.points) {
    points.push_back({{"index", point.index},
                      {"id", point.id},
                      {"base", plan.bases[point.base]},
                      {"values", values_of(point)},
                      {"scenario_file", point_scenario_file(point)},
                      {"scenario", point.scenario}});
  }
  json runs = json::array();
  for (const SweepRun& run : plan.runs) {
    const SweepPoint& point = plan.points[run.point];
    runs.push_back({{"index", run.index},
                    {"point", point.id},
                    {"base", plan.bases[point.base]},
                    {"values", values_of(point)},
                    {"seed", run.seed},
                    {"directory", run.directory}});
  }
  return {{"format", "failsim-sweep-plan"},
          {"format_version", 1},
          {"name", plan.name},
          {"paths", plan.paths},
          {"labels", plan.labels},
          {"bases", plan.bases},
          {"points", points},
          {"runs", runs}};
}

}  // namespace failsim::sweep
