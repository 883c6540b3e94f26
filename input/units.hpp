// Physical quantities as people write them ("10Gbps", "50us", "2GB", "1Gf"), parsed in one
// place with SimGrid's unit conventions, so every scenario field reads units the same way and
// the values handed to the engine are in SimGrid's base units.
//
//   kind         base unit (a plain JSON number means this)   suffixes
//   TIME         second                                       ps ns us µs ms s min h d w
//   DATA_SIZE    byte                                         B, b (bit = B/8)
//   BANDWIDTH    byte per second                              Bps, bps (bit/s = Bps/8)
//   SPEED        flop per second                              f, flops
//   FLOP_AMOUNT  flop                                         f, flop, flops
//
// B, b, Bps and bps take decimal prefixes k M G T P E (powers of 1000) or binary prefixes
// Ki Mi Gi Ti Pi Ei (powers of 1024); f, flop and flops take the decimal ones only. So
// "10Gbps" = 1e10 bit/s = 1.25e9 B/s, "512MiB" = 536870912 B, "12.5Mf" = 1.25e7 flop/s.
// One deliberate difference from SimGrid: its "m" (minute) is refused as ambiguous with milli;
// write "min" or "ms". A duration may combine units, largest first and each once, as people
// write them: "2h13min" = 7980 s, "1d2h3min4.5s" (only the last number with a fraction).
// Suffixes are case-sensitive ("Mb" is megabits, "MB" megabytes), and a
// space between number and unit is allowed ("10 Gbps").
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "input/input_error.hpp"

namespace failsim::input {

/// What a quantity measures; fixes its base unit and the suffixes it accepts.
enum class Quantity { TIME, DATA_SIZE, BANDWIDTH, SPEED, FLOP_AMOUNT };

/// Which values a field accepts: strictly positive, or zero too.
enum class Sign { POSITIVE, NON_NEGATIVE };

/// Parses text such as "2ms" or "10 Gbps" into the base unit of `kind`. Rejects empty text, a
/// missing number or unit, unknown suffixes, suffixes of another kind ("10Gbps" for a TIME),
/// negative, infinite or out-of-range values, and zero when `sign` is POSITIVE, by throwing
/// InputError at `where`.
double parse_quantity(std::string_view text, Quantity kind, Sign sign, const JsonLocation& where);

/// A JSON value holding a quantity: a number (already in the base unit) or a string parsed by
/// parse_quantity(). Any other JSON type is a InputError at `where`.
double quantity_from_json(const nlohmann::json& value, Quantity kind, Sign sign,
                          const JsonLocation& where);

/// The symbol of `kind`'s base unit as scenario files write it: "s", "B", "Bps", and "f" for
/// both a SPEED (flop/s) and a FLOP_AMOUNT (flop).
std::string_view base_unit(Quantity kind);

/// The kind of quantity of a number with a unit, such as "20s", "2 GB", "10Gbps" or "1Gf"
/// ("f" units are speeds or flop amounts, as the field decides: SPEED, with the same base
/// unit); none for text that is not a number followed by a known unit. Checks no range.
std::optional<Quantity> quantity_kind(std::string_view text);

/// What `expected` says for such a field, e.g. `a duration > 0: a number of seconds, or ...`.
std::string expected_quantity(Quantity kind, Sign sign);

}  // namespace failsim::input
