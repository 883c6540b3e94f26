#include "input/units.hpp"

#include "input/object_reader.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace failsim::input {
namespace {

/// value = number * mul / div. Sub-unit scales divide (by 1e3, 1e6, 8, ...) rather than
/// multiply by an inexact reciprocal, so "100us" is the double nearest 1e-4, as written.
struct Scale {
  double mul = 1.0;
  double div = 1.0;
};

using UnitTable = std::map<std::string, Scale, std::less<>>;

struct Prefix {
  const char* symbol;
  double factor;
};

constexpr std::array<Prefix, 6> DECIMAL_PREFIXES{
    {{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
constexpr std::array<Prefix, 6> BINARY_PREFIXES{{{"Ki", 0x1p10},
                                                 {"Mi", 0x1p20},
                                                 {"Gi", 0x1p30},
                                                 {"Ti", 0x1p40},
                                                 {"Pi", 0x1p50},
                                                 {"Ei", 0x1p60}}};

/// `unit` alone and with every prefix of the chosen families.
void add_prefixed(UnitTable& table, const std::string& unit, double div, bool binary_too) {
  table.emplace(unit, Scale{1.0, div});
  for (const Prefix& p : DECIMAL_PREFIXES) table.emplace(p.symbol + unit, Scale{p.factor, div});
  if (binary_too) {
    for (const Prefix& p : BINARY_PREFIXES) table.emplace(p.symbol + unit, Scale{p.factor, div});
  }
}

UnitTable make_table(Quantity kind) {
  UnitTable t;
  switch (kind) {
    case Quantity::TIME:
      t = {{"ps", {1.0, 1e12}},     {"ns", {1.0, 1e9}},   {"us", {1.0, 1e6}},
           {"\u00b5s", {1.0, 1e6}}, {"ms", {1.0, 1e3}},   {"s", {}},
           {"min", {60.0, 1.0}},    {"h", {3600.0, 1.0}}, {"d", {86400.0, 1.0}},
           {"w", {604800.0, 1.0}}};
      break;
    case Quantity::DATA_SIZE:
      add_prefixed(t, "B", 1.0, true);
      add_prefixed(t, "b", 8.0, true);
      break;
    case Quantity::BANDWIDTH:
      add_prefixed(t, "Bps", 1.0, true);
      add_prefixed(t, "bps", 8.0, true);
      break;
    case Quantity::SPEED:
      add_prefixed(t, "f", 1.0, false);
      add_prefixed(t, "flops", 1.0, false);
      break;
    case Quantity::FLOP_AMOUNT:
      add_prefixed(t, "f", 1.0, false);
      add_prefixed(t, "flop", 1.0, false);
      add_prefixed(t, "flops", 1.0, false);
      break;
  }
  return t;
}

constexpr std::array<Quantity, 5> ALL_KINDS{Quantity::TIME, Quantity::DATA_SIZE,
                                            Quantity::BANDWIDTH, Quantity::SPEED,
                                            Quantity::FLOP_AMOUNT};

const UnitTable& units_of(Quantity kind) {
  static const std::array<UnitTable, 5> tables{
      make_table(Quantity::TIME), make_table(Quantity::DATA_SIZE), make_table(Quantity::BANDWIDTH),
      make_table(Quantity::SPEED), make_table(Quantity::FLOP_AMOUNT)};
  return tables[static_cast<std::size_t>(kind)];
}

const char* kind_noun(Quantity kind) {
  switch (kind) {
    case Quantity::TIME:
      return "duration";
    case Quantity::DATA_SIZE:
      return "data size";
    case Quantity::BANDWIDTH:
      return "bandwidth";
    case Quantity::SPEED:
      return "compute speed";
    case Quantity::FLOP_AMOUNT:
      return "amount of computation";
  }
  return "quantity";
}

const char* article(Quantity kind) { return kind == Quantity::FLOP_AMOUNT ? "an" : "a"; }

/// Why a unit is not accepted for `kind`, phrased for the "found" part of a message.
std::string unit_problem(std::string_view unit, Quantity kind) {
  if (kind == Quantity::TIME && unit == "m") {
    return "ambiguous unit 'm': write 'min' for minutes or 'ms' for milliseconds";
  }
  for (Quantity other : ALL_KINDS) {
    if (other != kind && units_of(other).contains(unit)) {
      return fmt::format("'{}' is a unit of {} {}, not of {} {}", unit, article(other),
                         kind_noun(other), article(kind), kind_noun(kind));
    }
  }
  // "KB", "Kbps", "Kf": SimGrid's kilo is a lower-case k; binary kibi is Ki.
  if (unit.size() >= 2 && unit[0] == 'K' && unit[1] != 'i') {
    std::string rest(unit.substr(1));
    std::string decimal = "k" + rest;
    std::string binary = "Ki" + rest;
    if (units_of(kind).contains(binary)) {
      return fmt::format("unknown unit '{}': write '{}' (x1000) or '{}' (x1024)", unit, decimal,
                         binary);
    }
    if (units_of(kind).contains(decimal)) {
      return fmt::format("unknown unit '{}': write '{}'", unit, decimal);
    }
  }
  // A typo of a unit of this kind ("Gbs" for "Gbps", "mss" for "ms"): name the closest.
  std::vector<std::string_view> known;
  for (const auto& [symbol, scale] : units_of(kind)) known.push_back(symbol);
  // Only for something that looks like a unit: "1.2.3s" is a malformed number, not a typo.
  const bool word = !unit.empty() && std::isalpha(static_cast<unsigned char>(unit[0])) != 0;
  const std::string hint = word ? closest_match(unit, known) : std::string();
  if (!hint.empty()) return fmt::format("unknown unit '{}' (did you mean '{}'?)", unit, hint);
  return fmt::format("unknown unit '{}'", unit);
}

std::string quoted(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Length of the longest prefix of `s` that is a plain decimal number: digits, an optional
/// fraction and an optional exponent ("1.5", ".5", "2e-3"). No sign, no "inf"/"nan"/hex.
std::size_t number_length(std::string_view s) {
  std::size_t i = 0;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail_quantity(std::string_view text, Quantity kind, Sign sign,
                                const JsonLocation& where, const std::string& why) {
  where.fail(expected_quantity(kind, sign), quoted(text) + " (" + why + ")");
}

/// Length of the unit word at the start of `s`: letters, and the bytes of a UTF-8 'µ'.
std::size_t word_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) != 0 ||
                          static_cast<unsigned char>(s[i]) >= 0x80)) {
    ++i;
  }
  return i;
}

/// Whether `s`, a number of `n` characters and what follows, is a compound duration such as
/// "2h13min": a duration unit right after the number and more than blanks after the unit.
bool is_compound_duration(std::string_view s, std::size_t n) {
  const std::string_view rest = trim(s.substr(n));
  const std::size_t w = word_length(rest);
  return w > 0 && units_of(Quantity::TIME).contains(rest.substr(0, w)) &&
         !trim(rest.substr(w)).empty();
}

/// A compound duration, "1d2h3min4.5s": parts of a number and a unit, the units descending
/// (each once, largest first), only the last number with a fraction or an exponent. The sum is
/// counted in the finest unit, whose ratio to every other is a whole number, and converted
/// once, so "2h13min" is exactly 7980 s and "1s100ms" the double nearest 1.1 s.
double parse_compound_duration(std::string_view text, std::string_view s, Sign sign,
                               const JsonLocation& where) {
  const auto fail = [&](const std::string& why) {
    fail_quantity(text, Quantity::TIME, sign, where, why);
  };
  const UnitTable& table = units_of(Quantity::TIME);
  std::vector<std::pair<double, Scale>> parts;
  std::string_view previous_unit;
  while (!s.empty()) {
    const std::size_t n = number_length(s);
    if (n == 0) fail(fmt::format("no number before '{}'", s));
    const std::string_view number_text = s.substr(0, n);
    s = trim(s.substr(n));
    const std::size_t w = word_length(s);
    if (w == 0) fail(fmt::format("no unit after {}", number_text));
    const std::string_view unit = s.substr(0, w);
    s = trim(s.substr(w));
    auto it = table.find(unit);
    if (it == table.end()) fail(unit_problem(unit, Quantity::TIME));
    if (!parts.empty()) {
      const Scale& last = parts.back().second;
      // Descending: each unit smaller than the one before (so none twice).
      if (it->second.mul * last.div >= last.mul * it->second.div) {
        fail(fmt::format(
            "the units of a compound duration descend, each once, largest first: '{}' after "
            "'{}'",
            unit, previous_unit));
      }
    }
    if (!s.empty() && number_text.find_first_not_of("0123456789") != std::string_view::npos) {
      fail(
          fmt::format("only the last part of a compound duration may have a fraction or an "
                      "exponent: {}{}",
                      number_text, unit));
    }
    double number = 0.0;
    auto [end, ec] = std::from_chars(number_text.data(), number_text.data() + n, number);
    if (ec != std::errc() || end != number_text.data() + n) fail("number out of range");
    parts.emplace_back(number, it->second);
    previous_unit = unit;
  }
  const Scale finest = parts.back().second;
  double total = 0.0;  // in the finest unit
  for (const auto& [number, scale] : parts) {
    // A whole number: the units are powers of ten, 60, 24 and 7 apart.
    const double ratio = scale.mul * finest.div / (scale.div * finest.mul);
    total += number * ratio;
  }
  const double value = total * finest.mul / finest.div;
  if (!std::isfinite(value)) fail("number out of range");
  if (sign == Sign::POSITIVE && value == 0.0) fail("zero");
  return value;
}

}  // namespace

std::string expected_quantity(Quantity kind, Sign sign) {
  const char* bound = sign == Sign::POSITIVE ? "> 0" : ">= 0";
  switch (kind) {
    case Quantity::TIME:
      return fmt::format(
          "a duration {}: a number of seconds, or a string with a unit such as \"50us\", "
          "\"1.5s\", \"10min\", \"2h13min\" (units: ps ns us ms s min h d w)",
          bound);
    case Quantity::DATA_SIZE:
      return fmt::format(
          "a data size {}: a number of bytes, or a string with a unit such as \"2GB\", "
          "\"512MiB\" (units: B, or b for bits, with prefixes k M G T P E or Ki Mi Gi Ti Pi Ei)",
          bound);
    case Quantity::BANDWIDTH:
      return fmt::format(
          "a bandwidth {}: a number of bytes per second, or a string with a unit such as "
          "\"10Gbps\", \"1GBps\" (units: Bps, or bps for bits, with prefixes k M G T P E or "
          "Ki Mi Gi Ti Pi Ei)",
          bound);
    case Quantity::SPEED:
      return fmt::format(
          "a compute speed {}: a number of flop/s, or a string with a unit such as \"1Gf\", "
          "\"12.5Mf\" (units: f or flops, with prefixes k M G T P E)",
          bound);
    case Quantity::FLOP_AMOUNT:
      return fmt::format(
          "an amount of computation {}: a number of flops, or a string with a unit such as "
          "\"350Mf\" (units: f, flop or flops, with prefixes k M G T P E)",
          bound);
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, Quantity kind, Sign sign, const JsonLocation& where) {
  std::string_view s = trim(text);
  if (s.empty()) fail_quantity(text, kind, sign, where, "empty");
  if (s.front() == '-') fail_quantity(text, kind, sign, where, "negative");
  const std::size_t n = number_length(s);
  if (n == 0) fail_quantity(text, kind, sign, where, "no number before the unit");
  std::string_view unit = trim(s.substr(n));
  if (unit.empty()) {
    fail_quantity(text, kind, sign, where,
                  fmt::format("no unit; write a plain JSON number for {} {} in its base unit",
                              article(kind), kind_noun(kind)));
  }
  const UnitTable& table = units_of(kind);
  auto it = table.find(unit);
  if (it == table.end() && kind == Quantity::TIME && is_compound_duration(s, n)) {
    return parse_compound_duration(text, s, sign, where);
  }
  if (it == table.end()) fail_quantity(text, kind, sign, where, unit_problem(unit, kind));

  double number = 0.0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + n, number);
  if (ec != std::errc() || end != s.data() + n)
    fail_quantity(text, kind, sign, where, "number out of range");
  const double value = number * it->second.mul / it->second.div;
  if (!std::isfinite(value)) fail_quantity(text, kind, sign, where, "number out of range");
  if (sign == Sign::POSITIVE && value == 0.0) fail_quantity(text, kind, sign, where, "zero");
  return value;
}

double quantity_from_json(const nlohmann::json& value, Quantity kind, Sign sign,
                          const JsonLocation& where) {
  if (value.is_string()) {
    return parse_quantity(value.get_ref<const std::string&>(), kind, sign, where);
  }
  if (!value.is_number()) where.fail(expected_quantity(kind, sign), describe_found(value));
  const double v = value.get<double>();
  if (!std::isfinite(v)) where.fail(expected_quantity(kind, sign), "a number out of range");
  if (v < 0.0 || (sign == Sign::POSITIVE && v == 0.0)) {
    where.fail(expected_quantity(kind, sign), describe_found(value));
  }
  return v;
}

std::string_view base_unit(Quantity kind) {
  switch (kind) {
    case Quantity::TIME:
      return "s";
    case Quantity::DATA_SIZE:
      return "B";
    case Quantity::BANDWIDTH:
      return "Bps";
    case Quantity::SPEED:
    case Quantity::FLOP_AMOUNT:
      return "f";
  }
  return "";
}

std::optional<Quantity> quantity_kind(std::string_view text) {
  const std::string_view s = trim(text);
  const std::size_t n = number_length(s);
  if (n == 0) return std::nullopt;
  const std::string_view unit = trim(s.substr(n));
  if (is_compound_duration(s, n) && !units_of(Quantity::TIME).contains(unit)) {
    try {
      (void)parse_compound_duration(s, s, Sign::NON_NEGATIVE, JsonLocation{});
      return Quantity::TIME;
    } catch (const InputError&) {
      return std::nullopt;
    }
  }
  // Speeds before flop amounts: "1Gf" is both, and both have the base unit "f".
  for (const Quantity kind : {Quantity::TIME, Quantity::DATA_SIZE, Quantity::BANDWIDTH,
                              Quantity::SPEED, Quantity::FLOP_AMOUNT}) {
    if (units_of(kind).count(unit) != 0) return kind;
  }
  return std::nullopt;
}

}  // namespace failsim::input
