// The quantity parser on its own: every unit family and prefix against hand-computed values,
// SimGrid's conventions (checked against SimGrid 3.32 itself: its XML loader turns
// bandwidth="10Gbps" into 1.25e9 B/s, as scenarios/examples/lab-platform.xml does), and every
// way a quantity can be wrong, each with its message.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "input_error_of.hpp"

#include "input/input_error.hpp"
#include "input/units.hpp"

using failsim::input::InputError;
using failsim::input::JsonLocation;
using failsim::input::parse_quantity;
using failsim::input::Quantity;
using failsim::input::quantity_from_json;
using failsim::input::Sign;

namespace {

const JsonLocation WHERE{"units.json", "/cluster/network/latency"};

struct Good {
  const char* text;
  Quantity kind;
  double value;
};

struct Bad {
  const char* text;
  Quantity kind;
  Sign sign;
  const char* found;  ///< the whole "found" part of the message
};

using failsim::testing::error_of;

}  // namespace

TEST_CASE("quantities in every unit family parse to SimGrid's base units", "[units]") {
  const std::vector<Good> cases{
      // Time: seconds.
      {"50us", Quantity::TIME, 50e-6},
      {"100us", Quantity::TIME, 1e-4},
      {"50\u00b5s", Quantity::TIME, 50e-6},
      {"2ms", Quantity::TIME, 2e-3},
      {"1.5s", Quantity::TIME, 1.5},
      {"10min", Quantity::TIME, 600.0},
      {"1h", Quantity::TIME, 3600.0},
      {"1d", Quantity::TIME, 86400.0},
      {"2w", Quantity::TIME, 1209600.0},
      {"3ns", Quantity::TIME, 3e-9},
      {"7ps", Quantity::TIME, 7e-12},
      {".5s", Quantity::TIME, 0.5},
      {"1e3ms", Quantity::TIME, 1.0},
      {"2.5E-1s", Quantity::TIME, 0.25},
      {" 20 ms ", Quantity::TIME, 0.02},
      // Data size: bytes; b is a bit; k M G T P E are powers of 1000, Ki Mi ... of 1024.
      {"3B", Quantity::DATA_SIZE, 3.0},
      {"8b", Quantity::DATA_SIZE, 1.0},
      {"100kB", Quantity::DATA_SIZE, 1e5},
      {"2GB", Quantity::DATA_SIZE, 2e9},
      {"1TB", Quantity::DATA_SIZE, 1e12},
      {"1KiB", Quantity::DATA_SIZE, 1024.0},
      {"512MiB", Quantity::DATA_SIZE, 536870912.0},
      {"1GiB", Quantity::DATA_SIZE, 1073741824.0},
      {"1Mb", Quantity::DATA_SIZE, 125000.0},
      {"2Kib", Quantity::DATA_SIZE, 256.0},
      {"1EB", Quantity::DATA_SIZE, 1e18},
      // Bandwidth: bytes per second.
      {"10Gbps", Quantity::BANDWIDTH, 1.25e9},
      {"1GBps", Quantity::BANDWIDTH, 1e9},
      {"100Mbps", Quantity::BANDWIDTH, 1.25e7},
      {"8bps", Quantity::BANDWIDTH, 1.0},
      {"1KiBps", Quantity::BANDWIDTH, 1024.0},
      {"10 Gbps", Quantity::BANDWIDTH, 1.25e9},
      // Compute speed: flop/s (decimal prefixes only, as in SimGrid).
      {"1Gf", Quantity::SPEED, 1e9},
      {"12.5Mf", Quantity::SPEED, 1.25e7},
      {"2Tf", Quantity::SPEED, 2e12},
      {"5f", Quantity::SPEED, 5.0},
      {"3kflops", Quantity::SPEED, 3000.0},
      // Amounts of computation: flops.
      {"350Mf", Quantity::FLOP_AMOUNT, 3.5e8},
      {"1Gflop", Quantity::FLOP_AMOUNT, 1e9},
      {"2kflops", Quantity::FLOP_AMOUNT, 2000.0},
  };
  for (const Good& c : cases) {
    INFO(c.text);
    // Exact: one rounding, so a value reads back as the decimal that was written.
    CHECK(parse_quantity(c.text, c.kind, Sign::POSITIVE, WHERE) == c.value);
  }
}

TEST_CASE("a duration combines units largest first, summed exactly", "[units]") {
  const std::vector<std::pair<const char*, double>> cases{
      {"2h13min", 2 * 3600.0 + 13 * 60.0},
      {"1d2h3min4s", 86400.0 + 2 * 3600.0 + 3 * 60.0 + 4.0},
      {"1w1d", 8 * 86400.0},
      {"1h30.5min", 3600.0 + 30.5 * 60.0},
      {"2h 13min", 7980.0},
      {" 2 h 13 min ", 7980.0},
      {"1s500ms", 1.5},
      {"1s100ms", 1.1},  // the double nearest 1.1, as "1.1s" is
      {"1ms250us", 1.25e-3},
      {"3min0s", 180.0},
  };
  for (const auto& [text, value] : cases) {
    INFO(text);
    CHECK(parse_quantity(text, Quantity::TIME, Sign::POSITIVE, WHERE) == value);
  }
  CHECK(parse_quantity("1s100ms", Quantity::TIME, Sign::POSITIVE, WHERE) ==
        parse_quantity("1.1s", Quantity::TIME, Sign::POSITIVE, WHERE));
  CHECK(parse_quantity("0h0min", Quantity::TIME, Sign::NON_NEGATIVE, WHERE) == 0.0);
  CHECK(failsim::input::quantity_kind("2h13min") == Quantity::TIME);
  CHECK_FALSE(failsim::input::quantity_kind("13min2h"));
}

TEST_CASE("a malformed compound duration says which part is wrong", "[units]") {
  const std::vector<Bad> cases{
      {"2h 13", Quantity::TIME, Sign::POSITIVE, "\"2h 13\" (no unit after 13)"},
      {"2h13", Quantity::TIME, Sign::POSITIVE, "\"2h13\" (no unit after 13)"},
      {"13min2h", Quantity::TIME, Sign::POSITIVE,
       "\"13min2h\" (the units of a compound duration descend, each once, largest first: 'h' "
       "after 'min')"},
      {"1h2h", Quantity::TIME, Sign::POSITIVE,
       "\"1h2h\" (the units of a compound duration descend, each once, largest first: 'h' after "
       "'h')"},
      {"1.5h30min", Quantity::TIME, Sign::POSITIVE,
       "\"1.5h30min\" (only the last part of a compound duration may have a fraction or an "
       "exponent: 1.5h)"},
      {"1h-5min", Quantity::TIME, Sign::POSITIVE, "\"1h-5min\" (no number before '-5min')"},
      {"1h5m", Quantity::TIME, Sign::POSITIVE,
       "\"1h5m\" (ambiguous unit 'm': write 'min' for minutes or 'ms' for milliseconds)"},
      {"1h5mins", Quantity::TIME, Sign::POSITIVE,
       "\"1h5mins\" (unknown unit 'mins' (did you mean 'min'?))"},
      {"1h5GB", Quantity::TIME, Sign::POSITIVE,
       "\"1h5GB\" ('GB' is a unit of a data size, not of a duration)"},
      {"0h0min", Quantity::TIME, Sign::POSITIVE, "\"0h0min\" (zero)"},
      // Other kinds take one unit: a compound is an unknown unit there.
      {"2GB3MB", Quantity::DATA_SIZE, Sign::POSITIVE, "\"2GB3MB\" (unknown unit 'GB3MB')"},
  };
  for (const Bad& c : cases) {
    INFO(c.text);
    const InputError e = error_of([&] { parse_quantity(c.text, c.kind, c.sign, WHERE); });
    CHECK(e.found() == c.found);
    CHECK(e.json_path() == "/cluster/network/latency");
  }
}

TEST_CASE("plain JSON numbers are taken in the base unit", "[units]") {
  CHECK(quantity_from_json(nlohmann::json(0.5), Quantity::TIME, Sign::POSITIVE, WHERE) == 0.5);
  CHECK(quantity_from_json(nlohmann::json(3), Quantity::DATA_SIZE, Sign::POSITIVE, WHERE) == 3.0);
  CHECK(quantity_from_json(nlohmann::json(1250000000U), Quantity::BANDWIDTH, Sign::POSITIVE,
                           WHERE) == 1.25e9);
  CHECK(quantity_from_json(nlohmann::json("2ms"), Quantity::TIME, Sign::POSITIVE, WHERE) == 2e-3);
}

TEST_CASE("zero is accepted only where the field allows it", "[units]") {
  CHECK(parse_quantity("0s", Quantity::TIME, Sign::NON_NEGATIVE, WHERE) == 0.0);
  CHECK(quantity_from_json(nlohmann::json(0), Quantity::TIME, Sign::NON_NEGATIVE, WHERE) == 0.0);
  CHECK(error_of([] { parse_quantity("0s", Quantity::TIME, Sign::POSITIVE, WHERE); }).found() ==
        "\"0s\" (zero)");
  CHECK(error_of([] {
          quantity_from_json(nlohmann::json(0), Quantity::TIME, Sign::POSITIVE, WHERE);
        }).found() == "0");
}

TEST_CASE("every malformed quantity string gets its own explanation", "[units]") {
  const std::vector<Bad> cases{
      {"", Quantity::TIME, Sign::POSITIVE, "\"\" (empty)"},
      {"   ", Quantity::TIME, Sign::POSITIVE, "\"   \" (empty)"},
      {"-2ms", Quantity::TIME, Sign::NON_NEGATIVE, "\"-2ms\" (negative)"},
      {"ms", Quantity::TIME, Sign::POSITIVE, "\"ms\" (no number before the unit)"},
      {"+5s", Quantity::TIME, Sign::POSITIVE, "\"+5s\" (no number before the unit)"},
      {"nan s", Quantity::TIME, Sign::POSITIVE, "\"nan s\" (no number before the unit)"},
      {"inf", Quantity::TIME, Sign::POSITIVE, "\"inf\" (no number before the unit)"},
      {"2", Quantity::TIME, Sign::POSITIVE,
       "\"2\" (no unit; write a plain JSON number for a duration in its base unit)"},
      {"10Gbps", Quantity::TIME, Sign::POSITIVE,
       "\"10Gbps\" ('Gbps' is a unit of a bandwidth, not of a duration)"},
      {"2GB", Quantity::BANDWIDTH, Sign::POSITIVE,
       "\"2GB\" ('GB' is a unit of a data size, not of a bandwidth)"},
      {"1Gf", Quantity::TIME, Sign::POSITIVE,
       "\"1Gf\" ('Gf' is a unit of a compute speed, not of a duration)"},
      {"50us", Quantity::SPEED, Sign::POSITIVE,
       "\"50us\" ('us' is a unit of a duration, not of a compute speed)"},
      {"5m", Quantity::TIME, Sign::POSITIVE,
       "\"5m\" (ambiguous unit 'm': write 'min' for minutes or 'ms' for milliseconds)"},
      {"2KB", Quantity::DATA_SIZE, Sign::POSITIVE,
       "\"2KB\" (unknown unit 'KB': write 'kB' (x1000) or 'KiB' (x1024))"},
      {"3Kf", Quantity::SPEED, Sign::POSITIVE, "\"3Kf\" (unknown unit 'Kf': write 'kf')"},
      {"1Gif", Quantity::SPEED, Sign::POSITIVE,
       "\"1Gif\" (unknown unit 'Gif' (did you mean 'Gf'?))"},
      {"3 parsecs", Quantity::TIME, Sign::POSITIVE, "\"3 parsecs\" (unknown unit 'parsecs')"},
      // A typo of a unit of the right kind names the closest one.
      {"10 Gbs", Quantity::BANDWIDTH, Sign::POSITIVE,
       "\"10 Gbs\" (unknown unit 'Gbs' (did you mean 'Gbps'?))"},
      {"2mss", Quantity::TIME, Sign::POSITIVE,
       "\"2mss\" (unknown unit 'mss' (did you mean 'ms'?))"},
      {"1.2.3s", Quantity::TIME, Sign::POSITIVE, "\"1.2.3s\" (unknown unit '.3s')"},
      {"0x10s", Quantity::TIME, Sign::POSITIVE, "\"0x10s\" (unknown unit 'x10s')"},
      {"1e999s", Quantity::TIME, Sign::POSITIVE, "\"1e999s\" (number out of range)"},
      {"1e300EB", Quantity::DATA_SIZE, Sign::POSITIVE, "\"1e300EB\" (number out of range)"},
      {"0Gbps", Quantity::BANDWIDTH, Sign::POSITIVE, "\"0Gbps\" (zero)"},
      {"10GBPS", Quantity::BANDWIDTH, Sign::POSITIVE,
       "\"10GBPS\" (unknown unit 'GBPS' (did you mean 'GBps'?))"},
  };
  for (const Bad& c : cases) {
    INFO(c.text);
    const InputError e = error_of([&] { parse_quantity(c.text, c.kind, c.sign, WHERE); });
    CHECK(e.found() == c.found);
    CHECK(e.file() == "units.json");
    CHECK(e.json_path() == "/cluster/network/latency");
  }
}

TEST_CASE("non-string, non-number and negative JSON values are rejected", "[units]") {
  const std::vector<std::pair<nlohmann::json, std::string>> cases{
      {nlohmann::json(-1.5), "-1.5"},
      {nlohmann::json(-3), "-3"},
      {nlohmann::json(true), "true"},
      {nlohmann::json(nullptr), "null"},
      {nlohmann::json::array({1, 2}), "[1,2]"},
      {nlohmann::json::object({{"value", 1}}), "{\"value\":1}"},
  };
  for (const auto& [value, found] : cases) {
    INFO(value.dump());
    const InputError e =
        error_of([&] { quantity_from_json(value, Quantity::BANDWIDTH, Sign::POSITIVE, WHERE); });
    CHECK(e.found() == found);
  }
}

TEST_CASE("a quantity error names file, path, the kind expected and the text found", "[units]") {
  const InputError e =
      error_of([] { parse_quantity("10Gbps", Quantity::TIME, Sign::NON_NEGATIVE, WHERE); });
  CHECK(e.expected() ==
        "a duration >= 0: a number of seconds, or a string with a unit such as \"50us\", "
        "\"1.5s\", \"10min\", \"2h13min\" (units: ps ns us ms s min h d w)");
  CHECK(std::string(e.what()) ==
        "units.json: /cluster/network/latency: expected " + e.expected() +
            ", found \"10Gbps\" ('Gbps' is a unit of a bandwidth, not of a duration)");
  CHECK_THAT(failsim::input::expected_quantity(Quantity::BANDWIDTH, Sign::POSITIVE),
             Catch::StartsWith("a bandwidth > 0: a number of bytes per second"));
  CHECK_THAT(failsim::input::expected_quantity(Quantity::FLOP_AMOUNT, Sign::POSITIVE),
             Catch::StartsWith("an amount of computation > 0: a number of flops"));
}

TEST_CASE("JSON Pointers escape '~' and '/' as RFC 6901 says", "[units]") {
  const JsonLocation root{"f.json", ""};
  CHECK(root.child("cluster").child("a/b~c").child(std::size_t{2}).pointer == "/cluster/a~1b~0c/2");
}

TEST_CASE("the kind and base unit of a quantity as written, for runs.csv", "[units]") {
  using failsim::input::base_unit;
  using failsim::input::quantity_kind;
  CHECK(quantity_kind("20s") == Quantity::TIME);
  CHECK(quantity_kind(" 1.5 ms ") == Quantity::TIME);
  CHECK(quantity_kind("2GiB") == Quantity::DATA_SIZE);
  CHECK(quantity_kind("10Gbps") == Quantity::BANDWIDTH);
  CHECK(quantity_kind("1Gf") == Quantity::SPEED);  // or a flop amount: the same base unit
  CHECK(quantity_kind("3 kflop") == Quantity::FLOP_AMOUNT);
  for (const char* text : {"", "s", "20", "checkpoint", "20 parsecs", "forever"}) {
    INFO(text);
    CHECK_FALSE(quantity_kind(text));
  }
  CHECK(base_unit(Quantity::TIME) == "s");
  CHECK(base_unit(Quantity::DATA_SIZE) == "B");
  CHECK(base_unit(Quantity::BANDWIDTH) == "Bps");
  CHECK(base_unit(Quantity::SPEED) == "f");
  CHECK(base_unit(Quantity::FLOP_AMOUNT) == "f");
}
