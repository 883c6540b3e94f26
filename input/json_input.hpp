// Reading a JSON input file (a scenario, a price file, a result read back) up to the parsed
// document: the file read, malformed JSON turned into an InputError with line and column, and
// duplicate keys refused. What the document means is each format's own reader's business.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "input/printable.hpp"  // first_invalid_utf8, escape_non_ascii, printable

namespace failsim::input {

/// Input files a person writes (scenarios, sweeps, price files) are far smaller than this; a
/// larger one is a mistake (a wrong path, a log), refused before it is read.
constexpr std::uintmax_t MAX_INPUT_BYTES = std::uintmax_t{16} << 20;

/// The deepest nesting of arrays and objects a JSON input may have: the formats need 6 levels,
/// and a hostile file nested a million deep must be an error, not a crash.
constexpr int MAX_JSON_DEPTH = 64;

/// The whole content of the regular file at `path`, at most `max_bytes` long. A missing file, a
/// directory, anything but a regular file (a FIFO, a device such as /dev/zero: they may block or
/// never end), a larger file or an unreadable one is an InputError naming `path`, expecting
/// `expected` (e.g. "a readable scenario file").
std::string read_input_file(const std::filesystem::path& path, const std::string& expected,
                            std::uintmax_t max_bytes = MAX_INPUT_BYTES);

/// Parses JSON text, refusing a key seen twice in one object (nlohmann would silently keep the
/// last one) and nesting deeper than MAX_JSON_DEPTH. Malformed JSON is an InputError expecting
/// "valid JSON", found nlohmann's description, at a 1-based line and column when nlohmann gives a
/// position; `file_label` names the file in every error.
nlohmann::json parse_json_text(const std::string& text, const std::string& file_label);

}  // namespace failsim::input
